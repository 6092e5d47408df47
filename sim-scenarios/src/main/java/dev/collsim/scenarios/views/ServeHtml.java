package dev.collsim.scenarios.views;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.collsim.reports.HtmlReport;
import dev.collsim.scenarios.serve.ServingPlan;
import java.util.Locale;

/** A serving plan in the HTML report: the verdicts, tokens/s per GPU by system and mode, and the two tables. */
public final class ServeHtml {
    private ServeHtml() {}

    public static void add(HtmlReport report, ServingPlan p) {
        report.heading(String.format(Locale.ROOT, "%s at ISL %d / OSL %d", p.model(), p.isl(), p.osl()));
        p.systems().forEach(s -> report.text(ServeView.verdict(p, s)));
        ServeView.acrossSystems(p).forEach(report::text);
        report.chart(perGpu(p), 380);
        ServeView.tables(p).forEach(report::table);
    }

    private static ObjectNode perGpu(ServingPlan p) {
        ObjectNode o = HtmlReport.json().createObjectNode();
        o.putObject("title").put("text", String.format(Locale.ROOT, "Output tokens/s per GPU at TTFT <= %s ms and ITL <= %s ms",
                ServeView.number(p.ttftSlo().ms()), ServeView.number(p.itlSlo().ms()))).put("left", "center");
        o.putObject("tooltip").put("trigger", "item");
        o.putObject("legend").put("top", 28);
        o.putObject("grid").put("top", 70).put("left", 70).put("right", 40);
        ArrayNode names = o.putObject("xAxis").put("type", "category").put("name", "system").put("nameLocation", "middle").put("nameGap", 28)
                .putArray("data");
        p.systems().forEach(s -> names.add(s.system()));
        o.putObject("yAxis").put("type", "value").put("name", "tokens/s per GPU");
        ArrayNode series = o.putArray("series");
        for (String mode : new String[] {"aggregated", "disaggregated"}) {
            ArrayNode data = series.addObject().put("name", mode).put("type", "bar").putArray("data");
            for (ServingPlan.SystemPlan s : p.systems()) {
                ServingPlan.Deployment d = mode.equals("aggregated") ? s.aggregated() : s.disaggregated();
                ObjectNode item = data.addObject().put("name", d == null ? "none meets both targets" : d.deployment());
                item.put("value", d == null ? 0 : d.tokensPerSPerGpu());
            }
        }
        return o;
    }
}
