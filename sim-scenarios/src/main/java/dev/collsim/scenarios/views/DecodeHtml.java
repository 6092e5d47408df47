package dev.collsim.scenarios.views;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.collsim.reports.HtmlReport;
import dev.collsim.scenarios.decode.DecodeResult.KernelKind;
import dev.collsim.scenarios.decode.DecodeResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

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
        report.heading("decode step of " + r.setup().model() + " on " + r.setup().system());
        report.text(String.format(Locale.ROOT, "tp %d, pp %d, ep %d, dp %d, batch %d, context %d, %s, overlap %s: inter-token latency"
                        + " %.3f ms, %.1f tokens/s per GPU, %.1f per user", l.tp(), l.pp(), l.ep(), l.dp(), l.batch(), l.context(), l.dtype().label(),
                l.overlap().label(), r.itl().ms(), r.tokensPerSPerGpu(), r.tokensPerSPerUser()));
        report.text(String.format(Locale.ROOT, "%s's kernels and host loop, efficiencies %s: %d kernels a step whose floors (fitted"
                        + " constants) take %.3f ms and whose work at peak rates (the roofline's bound) takes %.3f ms; the host between steps"
                        + " %.3f ms, %.3f ms of it exposed", r.setup().engine().label(), r.setup().efficiencySet(), r.timing().kernels(), r.timing().kernelFloor().ms(), r.timing().roofline().ms(),
                r.timing().host().ms(), r.timing().hostExposed().ms()));
        if (l.speculation().speculates()) {
            report.text(DecodeReport.speculation(r));
        }
        report.chart(timeline(r), 260);
        report.chart(layers(r), 360);
        report.chart(breakdown(r), 320);
        report.table(DecodeReport.table(r));
    }

    static ObjectNode timeline(DecodeResult r) {
        List<DecodeResult.Layer> shown = timelineLayers(r.layers());
        ObjectNode o = HtmlReport.json().createObjectNode();
        o.put("collsimGantt", true);
        o.putObject("title").put("text", "layers " + String.join(", ", shown.stream().map(l -> l.index() + (l.moe() ? " (MoE)" : "")).toList())
                + " on the GPU's streams (ms); hover a kernel for its name").put("left", "center");
        o.putObject("tooltip").put("trigger", "item");
        o.putObject("grid").put("containLabel", true).put("left", 20).put("right", 30).put("top", 50).put("bottom", 60);
        o.putObject("xAxis").put("type", "value").put("scale", true).put("name", "ms");
        // Zoom in on time (a slider under the chart, and the mouse wheel) to read the kernels.
        o.putArray("dataZoom").add(HtmlReport.json().createObjectNode().put("type", "slider").put("xAxisIndex", 0))
                .add(HtmlReport.json().createObjectNode().put("type", "inside").put("xAxisIndex", 0));
        // Each stream a row; where a stream runs collectives between its kernels (no overlap), they get a row of their own.
        List<String> streams = r.layout().overlap().streamNames();
        Set<Integer> mixed = new TreeSet<>();
        Set<Integer> computes = new TreeSet<>();
        shown.forEach(l -> l.spans().forEach(sp -> (sp.kind() == KernelKind.COMPUTE ? computes : mixed).add(sp.stream())));
        mixed.retainAll(computes);
        List<String> rows = new ArrayList<>(streams);
        for (int st : mixed) {
            String of = streams.size() > 1 ? " of " + streams.get(st) : "";
            rows.set(st, "kernels" + of);
            rows.add("collectives" + of + " (same stream)");
        }
        ArrayNode cats = o.putObject("yAxis").put("type", "category").put("name", "stream").putArray("data");
        rows.forEach(cats::add);
        ArrayNode series = o.putArray("series");
        for (String kind : List.of("compute", "comm")) {
            ObjectNode s = series.addObject().put("type", "custom").put("name", kind.equals("comm") ? "communication" : kind);
            s.putObject("encode").putArray("x").add(1).add(2);
            s.withObject("/encode").put("y", 0);
            ArrayNode data = s.putArray("data");
            for (DecodeResult.Layer layer : shown) {
                for (DecodeResult.Span span : layer.spans()) {
                    if (span.kind().label().equals(kind)) {
                        int row = kind.equals("comm") && mixed.contains(span.stream())
                                ? rows.indexOf("collectives" + (streams.size() > 1 ? " of " + streams.get(span.stream()) : "") + " (same stream)")
                                : span.stream();
                        ObjectNode item = data.addObject();
                        item.put("name", "layer " + layer.index() + " " + span.name() + (span.microBatch() > 0 ? " (micro-batch 1)" : ""));
                        item.putArray("value").add(row).add(span.start().ms()).add(span.end().ms());
                    }
                }
            }
        }
        return o;
    }

    /**
     * The layers the timeline shows: the first {@link #TIMELINE_LAYERS}; where they are all dense and
     * the model has MoE layers after them (DeepSeek's first three are dense), the first layer and the
     * first MoE layers instead, so both kinds show.
     */
    static List<DecodeResult.Layer> timelineLayers(List<DecodeResult.Layer> layers) {
        List<DecodeResult.Layer> first = layers.subList(0, Math.min(TIMELINE_LAYERS, layers.size()));
        int moe = 0;
        while (moe < layers.size() && !layers.get(moe).moe()) {
            moe++;
        }
        if (moe < TIMELINE_LAYERS || moe >= layers.size()) {
            return first;
        }
        List<DecodeResult.Layer> out = new ArrayList<>(List.of(layers.get(0)));
        out.addAll(layers.subList(moe, Math.min(layers.size(), moe + TIMELINE_LAYERS - 1)));
        return out;
    }

    static ObjectNode layers(DecodeResult r) {
        ObjectNode o = HtmlReport.json().createObjectNode();
        o.putObject("title").put("text", "compute and communication per layer (ms)").put("left", "center");
        o.putObject("tooltip").put("trigger", "axis");
        o.putObject("legend").put("top", 28);
        o.putObject("grid").put("top", 70).put("left", 60).put("right", 30);
        ArrayNode x = o.putObject("xAxis").put("type", "category").put("name", "layer").put("nameLocation", "middle").put("nameGap", 28)
                .putArray("data");
        o.putObject("yAxis").put("type", "value").put("name", "ms");
        ArrayNode series = o.putArray("series");
        ArrayNode compute = series.addObject().put("name", "compute").put("type", "bar").put("stack", "t").putArray("data");
        ArrayNode comm = series.addObject().put("name", "communication").put("type", "bar").put("stack", "t").putArray("data");
        for (DecodeResult.Layer layer : r.layers()) {
            x.add(layer.index());
            compute.add(layer.compute().ms());
            comm.add(layer.comm().ms());
        }
        return o;
    }

    static ObjectNode breakdown(DecodeResult r) {
        ObjectNode o = HtmlReport.json().createObjectNode();
        o.putObject("title").put("text", "where the step's time goes (ms)").put("left", "center");
        o.putObject("tooltip").put("trigger", "item");
        ObjectNode pie = o.putArray("series").addObject().put("type", "pie").put("radius", "60%");
        // Each slice says its value, not only its share.
        pie.putObject("label").put("formatter", "{b}: {c} ms ({d}%)");
        ArrayNode data = pie.putArray("data");
        // The slices partition the step: hidden communication is part of the compute stream's busy time, not added to it.
        double hidden = Math.min(r.timing().compute().ms(), Math.max(0, r.comm().busy().ms() - r.comm().exposed().ms()));
        data.addObject().put("name", "compute alone").put("value", ms(r.timing().compute().ms() - hidden));
        data.addObject().put("name", "compute with communication under it").put("value", ms(hidden));
        data.addObject().put("name", "communication, exposed").put("value", ms(r.comm().exposed().ms()));
        if (r.timing().hostExposed().ms() > 0) {
            data.addObject().put("name", "host between steps, exposed").put("value", ms(r.timing().hostExposed().ms()));
        }
        if (r.timing().bubble().ms() > 0) {
            data.addObject().put("name", "pipeline bubble").put("value", ms(r.timing().bubble().ms()));
        }
        double idle = r.step().ms() - r.timing().compute().ms() - r.comm().exposed().ms() - r.timing().hostExposed().ms() - r.timing().bubble().ms();
        if (idle > 1e-9) {
            data.addObject().put("name", "idle").put("value", ms(idle));
        }
        return o;
    }

    /** Milliseconds to the microsecond, as a label shows them. */
    private static double ms(double v) {
        return Math.round(v * 1000) / 1000.0;
    }
}
