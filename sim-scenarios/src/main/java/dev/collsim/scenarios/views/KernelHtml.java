package dev.collsim.scenarios.views;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.collsim.reports.HtmlReport;
import dev.collsim.scenarios.validate.KernelValidation;
import dev.collsim.scenarios.validate.KernelValidation.Outcome;
import java.util.List;
import java.util.Locale;

/**
 * {@code validate --kernels --report}: per kind of kernel, every measured call against its model on log axes, a
 * series per GPU, the line of no error drawn through them; then the scores' table.
 */
public final class KernelHtml {
    private KernelHtml() {}

    public static HtmlReport report(KernelValidation v) {
        HtmlReport report = new HtmlReport("collsim validate --kernels");
        report.heading("The step model's kernels against aiconfigurator's measured tables");
        report.text("Each point is one measured call (x) and the time the step model gives the same kernel (y), in microseconds;"
                + " on the diagonal the model is exact, below it the model is fast. A series per GPU and engine: click a legend entry to hide it.");
        List<String> gpus = v.outcomes().stream().map(KernelHtml::series).distinct().toList();
        for (String kind : v.outcomes().stream().map(Outcome::kind).distinct().toList()) {
            report.chart(scatter(kind, v.outcomes().stream().filter(o -> o.kind().equals(kind)).toList(), gpus), 520);
        }
        KernelValidationView.tables(v).forEach(report::table);
        return report;
    }


    private static ObjectNode scatter(String kind, List<Outcome> rows, List<String> gpus) {
        ObjectNode o = Charts.xy(kind + ": model against measured (us)", "measured (us)", "model (us)", "item", true);
        // Nine GPU and engine series: the legend takes two rows above the plot.
        o.with("grid").put("top", 100);
        o.with("xAxis").put("type", "log");
        o.with("yAxis").put("type", "log");
        ArrayNode series = o.putArray("series");
        double low = rows.stream().mapToDouble(r -> Math.min(r.measuredUs(), r.simulatedUs())).min().orElse(1);
        double high = rows.stream().mapToDouble(r -> Math.max(r.measuredUs(), r.simulatedUs())).max().orElse(10);
        for (String gpu : rows.stream().map(KernelHtml::series).distinct().toList()) {
            ObjectNode one = series.addObject().put("name", gpu).put("type", "scatter").put("symbolSize", 3).put("large", true);
            one.putObject("itemStyle").put("color", Charts.COLOURS[gpus.indexOf(gpu) % Charts.COLOURS.length]);
            ArrayNode data = one.putArray("data");
            rows.stream().filter(r -> series(r).equals(gpu)).forEach(r -> data.addArray().add(round(r.measuredUs())).add(round(r.simulatedUs())));
        }
        ObjectNode line = series.addObject().put("name", "no error").put("type", "line").put("symbol", "none");
        line.putObject("itemStyle").put("color", "#333333");
        ArrayNode diagonal = line.putArray("data");
        diagonal.addArray().add(low).add(low);
        diagonal.addArray().add(high).add(high);
        return o;
    }

    /** A chart's series: a GPU under one engine's kernels. */
    private static String series(Outcome o) {
        return o.gpu() + ", " + o.engine();
    }

    /** Four significant digits: the tables' own precision, and a page a fraction of the size. */
    private static double round(double us) {
        return Double.parseDouble(String.format(Locale.ROOT, "%.4g", us));
    }
}
