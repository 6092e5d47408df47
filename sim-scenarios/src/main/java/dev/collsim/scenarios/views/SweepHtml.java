package dev.collsim.scenarios.views;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.collsim.core.input.InputException;
import dev.collsim.reports.HtmlReport;
import dev.collsim.scenarios.scenario.Scenario;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A sweep's results in the HTML report: its main quantity (bench: bus bandwidth, decode: tokens/s
 * per GPU) against the last axis, a line per combination of the others; with two axes, a heat map
 * of them too.
 */
public final class SweepHtml {
    /** Lines a chart holds before it stops being readable. */
    static final int MAX_LINES = 24;

    private SweepHtml() {}

    public static void add(HtmlReport report, Scenario scenario, Path jsonl) {
        String metric = scenario.command().equals("bench") ? "busbw_GBps" : "tokens_per_s_per_gpu";
        List<JsonNode> rows = new ArrayList<>();
        try {
            for (String line : Files.readAllLines(jsonl)) {
                rows.add(HtmlReport.json().readTree(line));
            }
        } catch (IOException e) {
            throw new InputException(jsonl + ": cannot read the results (" + e.getMessage() + ")");
        }
        List<String> axes = new ArrayList<>(scenario.axes().keySet());
        String x = axes.get(axes.size() - 1);
        report.heading(scenario.name() + ": " + metric + " over " + String.join(", ", axes));
        report.text(rows.size() + " points; rows with an error are left out");
        ObjectNode o = HtmlReport.json().createObjectNode();
        o.putObject("title").put("text", metric + " against " + x).put("left", "center");
        o.putObject("tooltip").put("trigger", "axis");
        o.putObject("legend").put("top", 28).put("type", "scroll");
        o.putObject("grid").put("top", 80).put("left", 70).put("right", 30);
        ArrayNode xs = o.putObject("xAxis").put("type", "category").put("name", x).put("nameLocation", "middle").put("nameGap", 28).putArray("data");
        scenario.axes().get(x).forEach(xs::add);
        o.putObject("yAxis").put("type", "value").put("name", metric);
        Map<String, ObjectNode> lines = new LinkedHashMap<>();
        ArrayNode series = o.putArray("series");
        for (JsonNode row : rows) {
            if (!row.get("error").isNull() || row.get(metric) == null || row.get(metric).isNull()) {
                continue;
            }
            StringBuilder key = new StringBuilder();
            for (String a : axes.subList(0, axes.size() - 1)) {
                key.append(key.length() == 0 ? "" : ", ").append(a).append(' ').append(row.get(a).asText());
            }
            String name = key.length() == 0 ? metric : key.toString();
            if (!lines.containsKey(name) && lines.size() >= MAX_LINES) {
                continue;
            }
            ObjectNode line = lines.computeIfAbsent(name, k -> {
                ObjectNode s = series.addObject().put("name", k).put("type", "line");
                ArrayNode data = s.putArray("data");
                scenario.axes().get(x).forEach(v -> data.addNull());
                return s;
            });
            ((ArrayNode) line.get("data")).set(scenario.axes().get(x).indexOf(row.get(x).asText()), row.get(metric));
        }
        report.chart(o, 460);
        if (axes.size() == 2) {
            report.chart(heatmap(scenario, rows, axes, metric), 420);
        }
    }

    private static ObjectNode heatmap(Scenario scenario, List<JsonNode> rows, List<String> axes, String metric) {
        ObjectNode o = HtmlReport.json().createObjectNode();
        o.putObject("title").put("text", metric + " over " + axes.get(0) + " and " + axes.get(1)).put("left", "center");
        o.putObject("tooltip").put("position", "top");
        o.putObject("grid").put("top", 60).put("left", 100).put("right", 30).put("bottom", 90);
        ArrayNode xs = o.putObject("xAxis").put("type", "category").put("name", axes.get(0)).put("nameLocation", "middle").put("nameGap", 28)
                .putArray("data");
        scenario.axes().get(axes.get(0)).forEach(xs::add);
        ArrayNode ys = o.putObject("yAxis").put("type", "category").put("name", axes.get(1)).putArray("data");
        scenario.axes().get(axes.get(1)).forEach(ys::add);
        ArrayNode data = HtmlReport.json().createArrayNode();
        double max = 0;
        for (JsonNode row : rows) {
            if (row.get("error").isNull() && row.get(metric) != null && !row.get(metric).isNull()) {
                double v = row.get(metric).asDouble();
                max = Math.max(max, v);
                data.addArray().add(scenario.axes().get(axes.get(0)).indexOf(row.get(axes.get(0)).asText()))
                        .add(scenario.axes().get(axes.get(1)).indexOf(row.get(axes.get(1)).asText())).add(v);
            }
        }
        o.putObject("visualMap").put("min", 0).put("max", max).put("calculable", true).put("orient", "horizontal")
                .put("left", "center").put("bottom", 10);
        o.putArray("series").addObject().put("type", "heatmap").put("name", metric).set("data", data);
        return o;
    }
}
