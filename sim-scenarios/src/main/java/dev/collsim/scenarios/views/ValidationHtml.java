package dev.collsim.scenarios.views;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.collsim.reports.HtmlReport;
import dev.collsim.scenarios.validate.Validation;
import dev.collsim.scenarios.validate.Validation.Point;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * {@code validate --report}: per system and operation, every data set's measured bus bandwidth over size beside the
 * simulated one, so a gap that opens at some sizes or GPU counts shows where the model's mechanism is missing; then
 * the scores' table.
 */
public final class ValidationHtml {
    private ValidationHtml() {}

    public static HtmlReport report(Validation v) {
        HtmlReport report = new HtmlReport("collsim validate");
        report.heading("Simulated against measured nccl-tests runs");
        report.text("One chart per system and operation: each data set's bus bandwidth (nccl-tests' busbw, GB/s) over the"
                + " message size, measured as a solid line with points, simulated dashed in the same colour. Where the dashed"
                + " line lies above the solid one the model is fast. Click a legend entry to hide it.");
        Map<String, Map<String, List<Point>>> bySystemAndOp = v.points().stream().collect(Collectors.groupingBy(Point::system,
                LinkedHashMap::new, Collectors.groupingBy(p -> p.row().op(), LinkedHashMap::new, Collectors.toList())));
        bySystemAndOp.forEach((system, byOp) -> byOp.forEach((op, points) -> report.chart(chart(system, op, points), 460)));
        report.table(ValidationView.summary(v));
        return report;
    }

    private static ObjectNode chart(String system, String op, List<Point> points) {
        ObjectNode o = Charts.xy(system + ": " + op, "size (B)", "bus bandwidth (GB/s)", "item", true);
        // Many data sets on one system: the legend scrolls on one line instead of covering the plot.
        o.with("legend").put("type", "scroll");
        o.with("grid").put("top", 80);
        o.with("xAxis").put("type", "log").put("logBase", 2).put("min", "dataMin").put("max", "dataMax");
        ArrayNode series = o.putArray("series");
        List<String> datasets = points.stream().map(Point::dataset).distinct().toList();
        for (int i = 0; i < datasets.size(); i++) {
            String dataset = datasets.get(i);
            List<Point> mine = points.stream().filter(p -> p.dataset().equals(dataset))
                    .sorted(Comparator.comparingLong(p -> p.row().sizeBytes())).toList();
            String colour = Charts.COLOURS[i % Charts.COLOURS.length];
            line(series, dataset + " measured", colour, "solid", mine, true);
            line(series, dataset + " simulated", colour, "dashed", mine, false);
        }
        return o;
    }

    private static void line(ArrayNode series, String name, String colour, String style, List<Point> points, boolean measured) {
        ObjectNode one = series.addObject().put("name", name).put("type", "line").put("symbolSize", measured ? 5 : 0)
                .put("showSymbol", measured);
        one.putObject("itemStyle").put("color", colour);
        one.putObject("lineStyle").put("type", style).put("width", measured ? 1.5 : 2);
        ArrayNode data = one.putArray("data");
        for (Point p : points) {
            double busBw = measured ? p.measuredBusBwGBps() : p.simulated().busBwGBps();
            data.addArray().add(p.row().sizeBytes()).add(Double.parseDouble(String.format(Locale.ROOT, "%.4g", busBw)));
        }
    }
}
