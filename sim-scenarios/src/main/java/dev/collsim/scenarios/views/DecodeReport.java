package dev.collsim.scenarios.views;

import dev.collsim.reports.Column;
import dev.collsim.reports.Table;
import dev.collsim.scenarios.decode.DecodeResult;
import dev.collsim.scenarios.decode.Speculation;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The decode step as a table: one row per layer, the totals around it. */
public final class DecodeReport {
    private DecodeReport() {}

    public static Table table(DecodeResult r) {
        DecodeResult.Layout l = r.layout();
        Table t = new Table("decode step of " + r.setup().model(), List.of(Column.number("layer", "layer", "", 6, 0),
                Column.text("kind", "kind", 6), Column.number("start_ms", "start", "(ms)", 10, 4),
                Column.number("end_ms", "end", "(ms)", 10, 4), Column.number("compute_ms", "compute", "(ms)", 10, 4),
                Column.number("comm_ms", "comm", "(ms)", 10, 4)),
                r.setup().whatIfs().isEmpty() ? Map.of("command", "decode", "model", r.setup().model(), "system", r.setup().system())
                        : Map.of("command", "decode", "model", r.setup().model(), "system", r.setup().system(), "what_ifs", r.setup().whatIfs()));
        t.note(String.format(Locale.ROOT, "%s on %s (%s): tp %d, pp %d, ep %d, dp %d = %d GPUs; batch %d%s, context %d, %s, KV cache %s;"
                        + " all-reduce %s, overlap %s, CUDA graphs %s; engine %s, efficiencies %s", r.setup().model(), r.setup().system(), r.setup().gpu(), l.tp(),
                l.pp(), l.ep(), l.dp(), l.gpus(), l.batch(), l.pp() > 1 ? " (" + l.pp() + " micro-batches of " + l.microBatch() + ")" : "",
                l.context(), l.dtype().label(), l.kvDtype().label(), l.allreduce().label(), l.overlap().label(), l.cudaGraphs() ? "on" : "off", r.setup().engine().label(), r.setup().efficiencySet()));
        if (!r.setup().whatIfs().isEmpty()) {
            t.note("what-ifs: " + r.setup().whatIfs());
        }
        t.note(String.format(Locale.ROOT, "memory per GPU: %.1f GiB of %.1f (weights %.1f, KV cache %.1f,%s buffers %.1f, reserve 1.0)",
                gib(r.memory().total()), gib(r.memory().capacityBytes()), gib(r.memory().weightsBytes()), gib(r.memory().kvBytes()),
                r.memory().stateBytes() > 0 ? String.format(Locale.ROOT, " linear state %.1f,", gib(r.memory().stateBytes())) : "",
                gib(r.memory().buffersBytes())));
        for (String w : r.warnings()) {
            t.note("warning: " + w);
        }
        if (!r.setup().contention().isEmpty()) {
            t.note("contention: " + r.setup().contention());
        }
        for (DecodeResult.Layer layer : r.layers()) {
            t.row(layer.index(), layer.moe() ? "moe" : "dense", layer.start().ms(), layer.end().ms(), layer.compute().ms(), layer.comm().ms());
        }
        t.footnote(String.format(Locale.ROOT, "inter-token latency %.3f ms: %.1f tokens/s, %.1f per GPU, %.1f per user",
                r.itl().ms(), r.tokensPerS(), r.tokensPerSPerGpu(), r.tokensPerSPerUser()));
        if (l.speculation().speculates()) {
            t.footnote(speculation(r));
        }
        if (l.moeExchange() != null) {
            t.footnote(String.format(Locale.ROOT, "MoE tokens to the experts of %d EP ranks: %s", l.ep(), switch (l.moeExchange()) {
                case ALLGATHER -> "every replica's gathered to every rank, the outputs reduce-scattered back (--all2all allgather)";
                case ALLTOALL -> "each token's top-k copies by NCCL's all-to-all (--all2all alltoall)";
                default -> "each token's top-k copies by DeepEP's kernels at their published rates (--all2all deepep)";
            }));
        }
        if (!l.experts().evenLoad()) {
            t.footnote(expertLoad(l));
        }
        t.footnote(String.format(Locale.ROOT, "compute %.3f ms (the weights it reads take %.3f ms at HBM's peak), communication %.3f ms"
                        + " (bandwidth %.3f, latency %.3f), exposed %.3f ms; %.1f MB sent per GPU", r.timing().compute().ms(), r.timing().weightsRead().ms(),
                r.comm().busy().ms(), r.comm().bandwidthTerm().ms(), r.comm().latencyTerm().ms(), r.comm().exposed().ms(), r.comm().bytesPerGpu() / 1e6));
        t.footnote(String.format(Locale.ROOT, "%d kernels per step: their floors (launch gaps and fixed times, fitted) %.3f ms; their work at"
                        + " the roofline's peak rates (a bound) %.3f ms; host %.3f ms between steps, %.3f ms of it exposed%s",
                r.timing().kernels(), r.timing().kernelFloor().ms(), r.timing().roofline().ms(), r.timing().host().ms(), r.timing().hostExposed().ms(),
                l.pp() > 1 ? String.format(Locale.ROOT, "; pipeline bubble %.3f ms", r.timing().bubble().ms()) : ""));
        return t;
    }

    /**
     * The same step on several fabrics, one row each: the communication's bandwidth and latency terms,
     * and each as a share of the time the weights take at HBM's peak (the seeds' "overhead").
     */
    public static Table fabrics(List<DecodeResult> results) {
        DecodeResult first = results.get(0);
        Table t = new Table("decode step of " + first.setup().model() + " on several fabrics", List.of(Column.text("system", "system", 18),
                Column.text("tp_path", "TP group over", 30), Column.number("itl_ms", "ITL", "(ms)", 8, 3),
                Column.number("weights_read_ms", "weights at HBM peak", "(ms)", 20, 3),
                Column.number("comm_mb", "sent per GPU", "(MB)", 13, 1),
                Column.number("bandwidth_ms", "bandwidth term", "(ms)", 15, 3), Column.number("bandwidth_pct", "bandwidth", "(%)", 10, 1),
                Column.number("latency_ms", "latency term", "(ms)", 13, 3), Column.number("latency_pct", "latency", "(%)", 8, 1),
                Column.number("exposed_ms", "exposed", "(ms)", 8, 3)),
                Map.of("command", "decode --fabrics", "model", first.setup().model()));
        DecodeResult.Layout l = first.layout();
        t.note(String.format(Locale.ROOT, "%s, tp %d, pp %d, batch %d, context %d, %s, all-reduce %s, overlap %s; %% of the weights' time at HBM peak",
                first.setup().model(), l.tp(), l.pp(), l.batch(), l.context(), l.dtype().label(), l.allreduce().label(), l.overlap().label()));
        for (DecodeResult r : results) {
            t.row(r.setup().system(), r.setup().tpPath(), r.itl().ms(), r.timing().weightsRead().ms(), r.comm().bytesPerGpu() / 1e6, r.comm().bandwidthTerm().ms(),
                    100 * r.comm().bandwidthTerm().ms() / r.timing().weightsRead().ms(), r.comm().latencyTerm().ms(), 100 * r.comm().latencyTerm().ms() / r.timing().weightsRead().ms(),
                    r.comm().exposed().ms());
        }
        return t;
    }

    /** What a speculative step is made of, in a line: the step, its drafts' share, the tokens it keeps. */
    static String speculation(DecodeResult r) {
        Speculation s = r.layout().speculation();
        return String.format(Locale.ROOT, "speculative decoding (%s): a step of %.3f ms verifies %d tokens a sequence, then the draft"
                        + " layer's %s (draft_* kernels) take %.3f ms of it; the inter-token latency is the step over the tokens kept",
                s.describe(), r.step().ms(), s.verified(), s.drafts() == 1 ? "pass" : s.drafts() + " passes", r.draftTime().ms());
    }

    /** The experts' load in a line: the routing asked for, and what the busiest EP rank takes. */
    static String expertLoad(DecodeResult.Layout l) {
        return String.format(Locale.ROOT, "expert load (%s): the busiest of %d EP ranks takes %.2fx an even share of the routed tokens,"
                + " and the step waits for it", l.experts().loadLabel(), l.ep(), l.expertImbalance());
    }

    private static double gib(double bytes) {
        return bytes / (1L << 30);
    }
}
