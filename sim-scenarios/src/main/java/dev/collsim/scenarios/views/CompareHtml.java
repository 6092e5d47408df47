package dev.collsim.scenarios.views;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.collsim.reports.HtmlReport;
import dev.collsim.reports.Table;
import dev.collsim.scenarios.compare.Comparison;
import java.util.List;
import java.util.Locale;

/** A comparison in the HTML report: each system's Pareto frontier, the latency target as a line, the winners' table. */
public final class CompareHtml {
    private CompareHtml() {}

    public static void add(HtmlReport report, Comparison c) {
        report.heading(c.model() + " on " + c.gpus() + " GPUs");
        report.text(CompareView.verdict(c));
        report.text(String.format(Locale.ROOT, "context %d, %s; the latency target %.1f ms between tokens is %.1f tokens/s per user:"
                + " layouts right of the dashed line meet it", c.context(), c.dtype().label(), c.itlSlo().ms(), 1000 / c.itlSlo().ms()));
        report.chart(frontiers(c), 460);
        List<Table> tables = CompareView.tables(c);
        report.table(tables.get(tables.size() - 1));
        for (Table t : tables.subList(0, tables.size() - 1)) {
            report.table(t);
        }
    }

    private static ObjectNode frontiers(Comparison c) {
        ObjectNode o = Charts.xy("Pareto frontiers: tokens/s per GPU against tokens/s per user", "tokens/s per user", "tokens/s per GPU", "item",
                true);
        ArrayNode series = o.putArray("series");
        boolean first = true;
        for (Comparison.SystemResult s : c.systems()) {
            ObjectNode line = series.addObject().put("name", s.system()).put("type", "line").put("showSymbol", true);
            ArrayNode data = line.putArray("data");
            for (Comparison.Row r : s.frontier()) {
                ObjectNode item = data.addObject().put("name", r.layout() + ", batch " + r.step().layout().batch());
                item.putArray("value").add(r.step().tokensPerSPerUser()).add(r.step().tokensPerSPerGpu());
            }
            if (s.best() != null) {
                // The layout chosen within the target, marked on its system's frontier.
                ObjectNode mark = line.putObject("markPoint").put("symbol", "pin").put("symbolSize", 44);
                ObjectNode at = mark.putArray("data").addObject().put("name", "best within the target: " + s.best().layout());
                at.putArray("coord").add(s.best().step().tokensPerSPerUser()).add(s.best().step().tokensPerSPerGpu());
                at.put("value", "best");
            }
            if (first) {
                ObjectNode mark = line.putObject("markLine").put("symbol", "none");
                mark.putObject("lineStyle").put("type", "dashed");
                mark.putArray("data").addObject().put("name", "target").put("xAxis", 1000 / c.itlSlo().ms());
                first = false;
            }
        }
        return o;
    }
}
