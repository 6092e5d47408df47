package dev.collsim.scenarios.views;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.collsim.reports.HtmlReport;
import dev.collsim.scenarios.serve.ServingPlan;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/** A serving plan in the HTML report: the verdicts, tokens/s per GPU by system and mode, and the two tables. */
public final class ServeHtml {
    private ServeHtml() {}

    public static void add(HtmlReport report, ServingPlan p) {
        report.heading(String.format(Locale.ROOT, "%s at ISL %d / OSL %d", p.model(), p.isl(), p.osl()));
        p.systems().forEach(s -> report.text(ServeView.verdict(p, s)));
        ServeView.acrossSystems(p).forEach(report::text);
        report.chart(perGpu(p), 380);
        if (p.simulated() != null) {
            report.chart(frontier(p), 420);
        }
        ServeView.tables(p).forEach(report::table);
    }

    private static ObjectNode perGpu(ServingPlan p) {
        ObjectNode o = HtmlReport.json().createObjectNode();
        o.putObject("title").put("text", "Output tokens/s per GPU at " + ServeView.targets(p)).put("left", "center");
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

    /** Every load run as tokens/s per GPU against tokens/s per user, each system's frontier joined by a line. */
    private static ObjectNode frontier(ServingPlan p) {
        ObjectNode o = Charts.xy("Throughput against interactivity: the load runs, each system's frontier joined", "output tokens/s per user",
                "output tokens/s per GPU", "item", true);
        ArrayNode series = o.putArray("series");
        for (ServingPlan.SystemPlan s : p.systems()) {
            List<ServingPlan.Run> runs = p.simulated().runs().stream().filter(r -> r.system().equals(s.system())).toList();
            ArrayNode points = series.addObject().put("name", s.system()).put("type", "scatter").putArray("data");
            runs.forEach(r -> points.addObject().put("name", r.deployment() + String.format(Locale.ROOT, " at %.2f of its rate%s", r.load(),
                    r.meets() ? ", within the targets" : "")).putArray("value").add(r.tokensPerSPerUser()).add(r.tokensPerSPerGpu()));
            ArrayNode line = series.addObject().put("name", s.system() + " frontier").put("type", "line").putArray("data");
            runs.stream().filter(ServingPlan.Run::onFrontier).sorted(Comparator.comparingDouble(ServingPlan.Run::tokensPerSPerUser))
                    .forEach(r -> line.addArray().add(r.tokensPerSPerUser()).add(r.tokensPerSPerGpu()));
        }
        return o;
    }
}
