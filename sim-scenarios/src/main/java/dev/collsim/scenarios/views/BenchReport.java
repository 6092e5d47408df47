package dev.collsim.scenarios.views;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.collsim.reports.HtmlReport;
import dev.collsim.scenarios.bench.BenchRow;
import dev.collsim.scenarios.bench.BenchSpec;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** A bench sweep in the HTML report: time and bus bandwidth against size on log axes, a curve per algorithm and protocol. */
public final class BenchReport {
    private BenchReport() {}

    public static void add(HtmlReport report, BenchSpec spec, String description, List<BenchRow> rows) {
        add(report, spec, description, rows, null);
    }

    /** With measured times (size to us, or null), drawn as points beside the simulated curves, and the error per size in the table. */
    public static void add(HtmlReport report, BenchSpec spec, String description, List<BenchRow> rows, Map<Long, Double> measured) {
        report.heading(spec.op().ncclName() + " on " + spec.system());
        report.text(description);
        report.chart(chart("time per iteration (us)", rows, true, true, measured, spec), 380);
        report.chart(chart("bus bandwidth (GB/s)", rows, false, false, measured, spec), 380);
        report.table(BenchTable.of(spec, description, rows, measured));
    }

    private static ObjectNode chart(String title, List<BenchRow> rows, boolean time, boolean logY, Map<Long, Double> measured,
                                    BenchSpec spec) {
        ObjectNode o = HtmlReport.json().createObjectNode();
        o.putObject("title").put("text", title).put("left", "center");
        o.putObject("tooltip").put("trigger", "axis");
        o.putObject("legend").put("top", 28);
        o.putObject("grid").put("top", 70).put("left", 70).put("right", 60);
        o.putObject("xAxis").put("type", "log").put("name", "message size").put("nameLocation", "middle").put("nameGap", 28).put("logBase", 2)
                .put("min", "dataMin").put("max", "dataMax").put("collsimBytes", true);
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
        if (measured != null && !measured.isEmpty() && !rows.isEmpty()) {
            // Every measured size, simulated or not; busbw from its time by nccl-tests' factor for this op and rank count.
            BenchRow any = rows.get(0);
            double busFactor = any.busBwGBps() / any.algBwGBps();
            ArrayNode data = all.addObject().put("name", "measured").put("type", "scatter").put("symbolSize", 7).putArray("data");
            new TreeMap<>(measured).forEach((size, us) -> data.addArray().add(size).add(time ? us : size / us / 1e3 * busFactor));
        }
        return o;
    }
}
