package dev.collsim.scenarios.views;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.collsim.core.input.InputException;
import dev.collsim.reports.HtmlReport;
import dev.collsim.scenarios.scenario.Scenario;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.MathContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A sweep's results in the HTML report: its main quantity (bench: bus bandwidth, decode: tokens/s
 * per GPU) against the last axis, a line per combination of the others while they are few; with
 * more, small multiples (a chart per value of the first axis) or, with two axes, only the heat map,
 * whose cells print their values: never a score of lines under a paged legend.
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
        List<String> keys = axes.subList(0, axes.size() - 1);
        int lines = (int) rows.stream().filter(r -> valid(r, metric)).map(r -> key(r, keys, metric)).distinct().count();
        if (lines <= FEW_LINES) {
            report.chart(lines(scenario, rows, keys, x, metric, metric + " against " + x), 460);
        } else if (axes.size() >= 3) {
            // Small multiples: one chart per value of the first axis, each with a line per value of the others.
            String first = axes.get(0);
            for (String v : scenario.axes().get(first)) {
                List<JsonNode> group = rows.stream().filter(r -> r.get(first).asText().equals(v)).toList();
                report.chart(lines(scenario, group, keys.subList(1, keys.size()), x, metric, metric + " against " + x + ", " + first + " " + v),
                        300);
            }
        }
        // Two axes: the heat map holds every point with its value, however many lines there would be.
        if (axes.size() == 2) {
            report.chart(heatmap(scenario, rows, axes, metric), 420);
        }
    }

    /** Lines a chart holds before a reader needs its legend more than the lines: more go to small multiples or the heat map. */
    static final int FEW_LINES = 6;

    private static boolean valid(JsonNode row, String metric) {
        return row.get("error").isNull() && row.get(metric) != null && !row.get(metric).isNull();
    }

    private static String key(JsonNode row, List<String> keys, String metric) {
        StringBuilder key = new StringBuilder();
        for (String a : keys) {
            key.append(key.length() == 0 ? "" : ", ").append(a).append(' ').append(row.get(a).asText());
        }
        return key.length() == 0 ? metric : key.toString();
    }

    /** The metric against the last axis, a line per combination of {@code keys}. */
    private static ObjectNode lines(Scenario scenario, List<JsonNode> rows, List<String> keys, String x, String metric, String title) {
        ObjectNode o = HtmlReport.json().createObjectNode();
        o.putObject("title").put("text", title).put("left", "center");
        o.putObject("tooltip").put("trigger", "axis");
        o.putObject("legend").put("top", 28);
        o.putObject("grid").put("top", 80).put("left", 70).put("right", 30);
        ArrayNode xs = o.putObject("xAxis").put("type", "category").put("name", x).put("nameLocation", "middle").put("nameGap", 28).putArray("data");
        scenario.axes().get(x).forEach(xs::add);
        o.putObject("yAxis").put("type", "value").put("name", metric);
        Map<String, ObjectNode> lines = new LinkedHashMap<>();
        ArrayNode series = o.putArray("series");
        for (JsonNode row : rows) {
            if (!valid(row, metric)) {
                continue;
            }
            String name = key(row, keys, metric);
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
        return o;
    }

    private static ObjectNode heatmap(Scenario scenario, List<JsonNode> rows, List<String> axes, String metric) {
        ObjectNode o = HtmlReport.json().createObjectNode();
        o.putObject("title").put("text", metric + " over " + axes.get(0) + " and " + axes.get(1)).put("left", "center");
        o.putObject("tooltip").put("position", "top");
        o.putObject("grid").put("top", 60).put("left", 100).put("right", 30).put("bottom", 90);
        ArrayNode xs = o.putObject("xAxis").put("type", "category").put("name", axes.get(0)).put("nameLocation", "middle").put("nameGap", 28)
                .putArray("data");
        scenario.axes().get(axes.get(0)).forEach(xs::add);
        ArrayNode ys = o.putObject("yAxis").put("type", "category").put("name", axes.get(1)).put("nameLocation", "middle").put("nameGap", 70)
                .putArray("data");
        scenario.axes().get(axes.get(1)).forEach(ys::add);
        ArrayNode data = HtmlReport.json().createArrayNode();
        double max = 0;
        for (JsonNode row : rows) {
            if (row.get("error").isNull() && row.get(metric) != null && !row.get(metric).isNull()) {
                // To three significant figures: each cell prints its value.
                double v = new BigDecimal(row.get(metric).asDouble()).round(new MathContext(3)).doubleValue();
                max = Math.max(max, v);
                data.addArray().add(scenario.axes().get(axes.get(0)).indexOf(row.get(axes.get(0)).asText()))
                        .add(scenario.axes().get(axes.get(1)).indexOf(row.get(axes.get(1)).asText())).add(v);
            }
        }
        o.putObject("visualMap").put("min", 0).put("max", max).put("calculable", true).put("orient", "horizontal")
                .put("left", "center").put("bottom", 10);
        ObjectNode cells = o.putArray("series").addObject().put("type", "heatmap").put("name", metric);
        cells.putObject("label").put("show", true);
        cells.set("data", data);
        return o;
    }
}
