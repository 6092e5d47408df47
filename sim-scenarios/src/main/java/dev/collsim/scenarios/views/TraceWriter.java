package dev.collsim.scenarios.views;

import dev.collsim.reports.TraceEvents;
import dev.collsim.scenarios.decode.DecodeResult.KernelKind;
import dev.collsim.scenarios.decode.DecodeResult;
import java.util.List;

/**
 * The step as a Perfetto trace: one process (the GPU the step follows), a thread per stream, a slice
 * per kernel with its layer, micro-batch, bytes (a collective's data sent, a compute kernel's HBM
 * traffic) and a compute kernel's FLOPs; for a step whose collectives contended, a second
 * process with a counter per link of that GPU and its NIC, its load in percent of its rate.
 */
public final class TraceWriter {
    private TraceWriter() {}

    public static String json(DecodeResult r) {
        // Under PP the step follows one micro-batch through every stage: a GPU of each stage in turn.
        String process = r.layout().pp() == 1 ? "GPU 0 (" + r.setup().gpu() + ")"
                : "a GPU of each of the " + r.layout().pp() + " pipeline stages in turn (" + r.setup().gpu() + ")";
        TraceEvents trace = new TraceEvents().processName(0, process);
        List<String> streams = r.layout().overlap().streamNames();
        for (int s = 0; s < streams.size(); s++) {
            trace.threadName(0, s, streams.get(s));
        }
        add(trace, -1, r.timeline().beforeLayers());
        r.layers().forEach(l -> add(trace, l.index(), l.spans()));
        add(trace, r.layers().size(), r.timeline().afterLayers());
        // A step on one clock: its GPU's and NIC's links as every group's collectives loaded them.
        if (!r.timeline().linkLoads().isEmpty()) {
            trace.processName(1, "links of GPU 0 and its NIC (every group's collectives on one clock)");
        }
        for (DecodeResult.LinkLoad load : r.timeline().linkLoads()) {
            for (double[] step : load.steps()) {
                trace.counter(load.link() + " utilisation (%)", 1, step[0] * 1000, "percent", step[1]);
            }
        }
        return trace.render("ms");
    }

    private static void add(TraceEvents trace, int layer, List<DecodeResult.Span> spans) {
        for (DecodeResult.Span s : spans) {
            var args = trace.slice(s.name(), s.kind().label(), 0, s.stream(), s.start().ms() * 1000, (s.end().ms() - s.start().ms()) * 1000).put("layer", layer)
                    .put("micro_batch", s.microBatch()).put("bytes", s.bytes());
            if (s.kind() == KernelKind.COMPUTE) {
                args.put("flops", s.flops());
            }
        }
    }
}
