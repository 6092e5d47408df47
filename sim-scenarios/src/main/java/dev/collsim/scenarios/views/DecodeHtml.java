package dev.collsim.scenarios.views;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.collsim.reports.HtmlReport;
import dev.collsim.scenarios.decode.DecodeResult;
import java.util.List;
import java.util.Locale;

/**
 * A decode step in the HTML report: the first layers' kernels on the GPU's streams (so overlap
 * shows), every layer's compute and communication, and where the step's time goes.
 */
public final class DecodeHtml {
    /** Layers the timeline shows: enough to see the pattern, few enough to read the kernels. */
    static final int TIMELINE_LAYERS = 3;

    private DecodeHtml() {}

    public static void add(HtmlReport report, DecodeResult r) {
        DecodeResult.Layout l = r.layout();
        report.heading("decode step of " + r.model() + " on " + r.system());
        report.text(String.format(Locale.ROOT, "tp %d, pp %d, ep %d, dp %d, batch %d, context %d, %s, overlap %s: inter-token latency"
                        + " %.3f ms, %.1f tokens/s per GPU, %.1f per user", l.tp(), l.pp(), l.ep(), l.dp(), l.batch(), l.context(), l.dtype(),
                l.overlap(), r.itlMs(), r.tokensPerSPerGpu(), r.tokensPerSPerUser()));
        report.text(String.format(Locale.ROOT, "%s's kernels and host loop, efficiencies %s: %d kernels a step whose floors (fitted"
                        + " constants) take %.3f ms and whose work at peak rates (the roofline's bound) takes %.3f ms; the host between steps"
                        + " %.3f ms, %.3f ms of it exposed", r.engine(), r.efficiencySet(), r.kernelsPerStep(), r.kernelFloorMs(), r.rooflineMs(),
                r.hostMs(), r.hostExposedMs()));
        report.chart(timeline(r), 260);
        report.chart(layers(r), 360);
        report.chart(breakdown(r), 320);
        report.table(DecodeReport.table(r));
    }

    static ObjectNode timeline(DecodeResult r) {
        ObjectNode o = HtmlReport.json().createObjectNode();
        o.put("collsimGantt", true);
        o.putObject("title").put("text", "the first " + TIMELINE_LAYERS + " layers on the GPU's streams (ms)").put("left", "center");
        o.putObject("tooltip").put("trigger", "item");
        o.putObject("grid").put("left", 150).put("right", 30).put("top", 50);
        o.putObject("xAxis").put("type", "value").put("scale", true).put("name", "ms");
        ArrayNode cats = o.putObject("yAxis").put("type", "category").put("name", "stream").putArray("data");
        dev.collsim.scenarios.decode.Overlap.fromName(r.layout().overlap()).streamNames().forEach(cats::add);
        ArrayNode series = o.putArray("series");
        for (String kind : List.of("compute", "comm")) {
            ObjectNode s = series.addObject().put("type", "custom").put("name", kind);
            s.putObject("encode").putArray("x").add(1).add(2);
            s.withObject("/encode").put("y", 0);
            ArrayNode data = s.putArray("data");
            for (DecodeResult.Layer layer : r.layers().subList(0, Math.min(TIMELINE_LAYERS, r.layers().size()))) {
                for (DecodeResult.Span span : layer.spans()) {
                    if (span.kind().equals(kind)) {
                        ObjectNode item = data.addObject();
                        item.put("name", "layer " + layer.index() + " " + span.name() + (span.microBatch() > 0 ? " (micro-batch 1)" : ""));
                        item.putArray("value").add(span.stream()).add(span.startMs()).add(span.endMs());
                    }
                }
            }
        }
        return o;
    }

    static ObjectNode layers(DecodeResult r) {
        ObjectNode o = HtmlReport.json().createObjectNode();
        o.putObject("title").put("text", "compute and communication per layer (ms)").put("left", "center");
        o.putObject("tooltip").put("trigger", "axis");
        o.putObject("legend").put("top", 28);
        o.putObject("grid").put("top", 70).put("left", 60).put("right", 30);
        ArrayNode x = o.putObject("xAxis").put("type", "category").put("name", "layer").putArray("data");
        o.putObject("yAxis").put("type", "value").put("name", "ms");
        ArrayNode series = o.putArray("series");
        ArrayNode compute = series.addObject().put("name", "compute").put("type", "bar").put("stack", "t").putArray("data");
        ArrayNode comm = series.addObject().put("name", "communication").put("type", "bar").put("stack", "t").putArray("data");
        for (DecodeResult.Layer layer : r.layers()) {
            x.add(layer.index());
            compute.add(layer.computeMs());
            comm.add(layer.commMs());
        }
        return o;
    }

    static ObjectNode breakdown(DecodeResult r) {
        ObjectNode o = HtmlReport.json().createObjectNode();
        o.putObject("title").put("text", "where the step's time goes (ms)").put("left", "center");
        o.putObject("tooltip").put("trigger", "item");
        ArrayNode data = o.putArray("series").addObject().put("type", "pie").put("radius", "60%").putArray("data");
        // The slices partition the step: hidden communication is part of the compute stream's busy time, not added to it.
        double hidden = Math.min(r.computeMs(), Math.max(0, r.commMs() - r.exposedCommMs()));
        data.addObject().put("name", "compute alone").put("value", r.computeMs() - hidden);
        data.addObject().put("name", "compute with communication under it").put("value", hidden);
        data.addObject().put("name", "communication, exposed").put("value", r.exposedCommMs());
        if (r.hostExposedMs() > 0) {
            data.addObject().put("name", "host between steps, exposed").put("value", r.hostExposedMs());
        }
        if (r.pipelineBubbleMs() > 0) {
            data.addObject().put("name", "pipeline bubble").put("value", r.pipelineBubbleMs());
        }
        double idle = r.itlMs() - r.computeMs() - r.exposedCommMs() - r.hostExposedMs() - r.pipelineBubbleMs();
        if (idle > 1e-9) {
            data.addObject().put("name", "idle").put("value", idle);
        }
        return o;
    }
}
