package dev.collsim.scenarios.bench;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.collsim.reports.HtmlReport;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A bench sweep in the HTML report: time and bus bandwidth against size on log axes, a curve per algorithm and protocol. */
public final class BenchReport {
    private BenchReport() {}

    public static void add(HtmlReport report, BenchSpec spec, String description, List<BenchRow> rows) {
        report.heading(spec.op().ncclName() + " on " + spec.system());
        report.text(description);
        report.chart(chart("time per iteration (us)", rows, true, true), 380);
        report.chart(chart("bus bandwidth (GB/s)", rows, false, false), 380);
        report.table(BenchTable.of(spec, description, rows));
    }

    private static ObjectNode chart(String title, List<BenchRow> rows, boolean time, boolean logY) {
        ObjectNode o = HtmlReport.json().createObjectNode();
        o.putObject("title").put("text", title).put("left", "center");
        o.putObject("tooltip").put("trigger", "axis");
        o.putObject("legend").put("top", 28);
        o.putObject("grid").put("top", 70).put("left", 70).put("right", 30);
        o.putObject("xAxis").put("type", "log").put("name", "size (B)").put("nameLocation", "middle").put("nameGap", 28).put("logBase", 2)
                .put("min", "dataMin").put("max", "dataMax");
        o.putObject("yAxis").put("type", logY ? "log" : "value").put("name", time ? "us" : "GB/s");
        Map<String, ArrayNode> series = new LinkedHashMap<>();
        ArrayNode all = o.putArray("series");
        for (BenchRow r : rows) {
            String key = r.algo() + "/" + r.proto();
            ArrayNode data = series.computeIfAbsent(key, k -> {
                ObjectNode s = all.addObject().put("name", k).put("type", "line").put("showSymbol", true);
                return s.putArray("data");
            });
            data.addArray().add(r.sizeBytes()).add(time ? r.timeMicros() : r.busBwGBps());
        }
        return o;
    }
}
