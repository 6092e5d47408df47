package dev.collsim.scenarios.views;

import dev.collsim.reports.Column;
import dev.collsim.reports.Table;
import dev.collsim.scenarios.decode.DecodeResult;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The decode step as a table: one row per layer, the totals around it. */
public final class DecodeReport {
    private DecodeReport() {}

    public static Table table(DecodeResult r) {
        DecodeResult.Layout l = r.layout();
        Table t = new Table("decode step of " + r.model(), List.of(Column.number("layer", "layer", "", 6, 0),
                Column.text("kind", "kind", 6), Column.number("start_ms", "start", "(ms)", 10, 4),
                Column.number("end_ms", "end", "(ms)", 10, 4), Column.number("compute_ms", "compute", "(ms)", 10, 4),
                Column.number("comm_ms", "comm", "(ms)", 10, 4)),
                r.whatIfs().isEmpty() ? Map.of("command", "decode", "model", r.model(), "system", r.system())
                        : Map.of("command", "decode", "model", r.model(), "system", r.system(), "what_ifs", r.whatIfs()));
        t.note(String.format(Locale.ROOT, "%s on %s (%s): tp %d, pp %d, ep %d, dp %d = %d GPUs; batch %d%s, context %d, %s, KV cache %s;"
                        + " all-reduce %s, overlap %s, CUDA graphs %s; engine %s, efficiencies %s", r.model(), r.system(), r.gpu(), l.tp(),
                l.pp(), l.ep(), l.dp(), l.gpus(), l.batch(), l.pp() > 1 ? " (" + l.pp() + " micro-batches of " + l.microBatch() + ")" : "",
                l.context(), l.dtype(), l.kvDtype(), l.allreduce(), l.overlap(), l.cudaGraphs() ? "on" : "off", r.engine(), r.efficiencySet()));
        if (!r.whatIfs().isEmpty()) {
            t.note("what-ifs: " + r.whatIfs());
        }
        t.note(String.format(Locale.ROOT, "memory per GPU: %.1f GiB of %.1f (weights %.1f, KV cache %.1f, buffers %.1f, reserve 1.0)",
                gib(r.memoryBytesPerGpu()), gib(r.hbmBytesPerGpu()), gib(r.weightsBytesPerGpu()), gib(r.kvBytesPerGpu()),
                gib(r.buffersBytesPerGpu())));
        for (String w : r.warnings()) {
            t.note("warning: " + w);
        }
        if (!r.contention().isEmpty()) {
            t.note("contention: " + r.contention());
        }
        for (DecodeResult.Layer layer : r.layers()) {
            t.row(layer.index(), layer.moe() ? "moe" : "dense", layer.startMs(), layer.endMs(), layer.computeMs(), layer.commMs());
        }
        t.footnote(String.format(Locale.ROOT, "inter-token latency %.3f ms: %.1f tokens/s, %.1f per GPU, %.1f per user",
                r.itlMs(), r.tokensPerS(), r.tokensPerSPerGpu(), r.tokensPerSPerUser()));
        t.footnote(String.format(Locale.ROOT, "compute %.3f ms (the weights it reads take %.3f ms at HBM's peak), communication %.3f ms"
                        + " (bandwidth %.3f, latency %.3f), exposed %.3f ms; %.1f MB sent per GPU", r.computeMs(), r.weightsReadMs(),
                r.commMs(), r.commBandwidthTermMs(), r.commLatencyTermMs(), r.exposedCommMs(), r.commBytesPerGpu() / 1e6));
        t.footnote(String.format(Locale.ROOT, "%d kernels per step: their floors (launch gaps and fixed times, fitted) %.3f ms; their work at"
                        + " the roofline's peak rates (a bound) %.3f ms; host %.3f ms between steps, %.3f ms of it exposed%s",
                r.kernelsPerStep(), r.kernelFloorMs(), r.rooflineMs(), r.hostMs(), r.hostExposedMs(),
                l.pp() > 1 ? String.format(Locale.ROOT, "; pipeline bubble %.3f ms", r.pipelineBubbleMs()) : ""));
        return t;
    }

    /**
     * The same step on several fabrics, one row each: the communication's bandwidth and latency terms,
     * and each as a share of the time the weights take at HBM's peak (the seeds' "overhead").
     */
    public static Table fabrics(List<DecodeResult> results) {
        DecodeResult first = results.get(0);
        Table t = new Table("decode step of " + first.model() + " on several fabrics", List.of(Column.text("system", "system", 18),
                Column.text("tp_path", "TP group over", 30), Column.number("itl_ms", "ITL", "(ms)", 8, 3),
                Column.number("weights_read_ms", "weights at HBM peak", "(ms)", 20, 3),
                Column.number("comm_mb", "sent per GPU", "(MB)", 13, 1),
                Column.number("bandwidth_ms", "bandwidth term", "(ms)", 15, 3), Column.number("bandwidth_pct", "bandwidth", "(%)", 10, 1),
                Column.number("latency_ms", "latency term", "(ms)", 13, 3), Column.number("latency_pct", "latency", "(%)", 8, 1),
                Column.number("exposed_ms", "exposed", "(ms)", 8, 3)),
                Map.of("command", "decode --fabrics", "model", first.model()));
        DecodeResult.Layout l = first.layout();
        t.note(String.format(Locale.ROOT, "%s, tp %d, pp %d, batch %d, context %d, %s, all-reduce %s, overlap %s; %% of the weights' time at HBM peak",
                first.model(), l.tp(), l.pp(), l.batch(), l.context(), l.dtype(), l.allreduce(), l.overlap()));
        for (DecodeResult r : results) {
            t.row(r.system(), r.tpPath(), r.itlMs(), r.weightsReadMs(), r.commBytesPerGpu() / 1e6, r.commBandwidthTermMs(),
                    100 * r.commBandwidthTermMs() / r.weightsReadMs(), r.commLatencyTermMs(), 100 * r.commLatencyTermMs() / r.weightsReadMs(),
                    r.exposedCommMs());
        }
        return t;
    }

    private static double gib(double bytes) {
        return bytes / (1L << 30);
    }
}
