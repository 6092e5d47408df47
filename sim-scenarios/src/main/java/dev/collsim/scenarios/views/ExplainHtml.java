package dev.collsim.scenarios.views;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.collsim.reports.HtmlReport;
import dev.collsim.reports.Table;
import java.util.ArrayList;
import java.util.List;

/**
 * The teaching view in the HTML report: every transfer of the schedule as a bar from its start to its
 * delivery on its sender's row, and controls to play, pause or step through them in time order, each
 * step saying who sent which bytes to whom and whose inputs they carry.
 */
public final class ExplainHtml {
    private ExplainHtml() {}

    public static void add(HtmlReport report, Table table) {
        List<List<Object>> rows = table.rows();
        List<String> senders = new ArrayList<>();
        for (List<Object> r : rows) {
            if (!senders.contains((String) r.get(2))) {
                senders.add((String) r.get(2));
            }
        }
        senders.sort(null);
        ObjectNode o = HtmlReport.json().createObjectNode();
        o.put("collsimGantt", true);
        o.putObject("title").put("text", "the schedule: each transfer from its start to its delivery, on its sender's row (us)").put("left", "center");
        o.putObject("tooltip").put("trigger", "item");
        o.putObject("grid").put("left", 60).put("right", 30).put("top", 50);
        o.putObject("xAxis").put("type", "value").put("name", "us").put("min", 0);
        ArrayNode cats = o.putObject("yAxis").put("type", "category").put("name", "sender").putArray("data");
        senders.forEach(cats::add);
        ObjectNode s = o.putArray("series").addObject().put("type", "custom").put("name", "transfers");
        s.putObject("encode").putArray("x").add(1).add(2);
        s.withObject("/encode").put("y", 0);
        ArrayNode data = s.putArray("data");
        ArrayNode captions = HtmlReport.json().createArrayNode();
        for (List<Object> r : rows) {
            String label = "step " + r.get(0) + ", channel " + r.get(1) + ": " + r.get(2) + " -> " + r.get(3) + ", bytes " + r.get(4)
                    + ", " + r.get(8) + (r.get(9).toString().isEmpty() ? "" : ", carrying " + r.get(9));
            ObjectNode item = data.addObject().put("name", label);
            item.putArray("value").add(senders.indexOf((String) r.get(2))).add((Double) r.get(6)).add((Double) r.get(7));
            captions.add(label);
        }
        int index = report.chartCount();
        report.heading("Step through the schedule");
        table.preamble().stream().filter(n -> !n.isEmpty()).limit(1).forEach(report::text);
        String json;
        try {
            json = HtmlReport.json().writeValueAsString(captions);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
        report.raw("<div><button id=\"play\">play</button> <button id=\"pause\">pause</button> <button id=\"step\">step</button>"
                + " <button id=\"reset\">reset</button> <span id=\"caption\">all " + rows.size() + " transfers</span></div>");
        report.chart(o, 120 + 40 * senders.size());
        report.raw("<script>window.addEventListener('load',function(){var chart=window.collsimCharts[" + index + "];if(!chart){return;}"
                + "var all=chart.getOption().series[0].data.slice();var captions=" + json + ";var shown=all.length;var timer=null;"
                + "function show(k){shown=Math.max(0,Math.min(all.length,k));chart.setOption({series:[{data:all.slice(0,shown)}]});"
                + "document.getElementById('caption').textContent=shown===0?'press step or play':'transfer '+shown+' of '+all.length+': '"
                + "+captions[shown-1];}"
                + "document.getElementById('step').onclick=function(){show(shown>=all.length?1:shown+1);};"
                + "document.getElementById('reset').onclick=function(){if(timer){clearInterval(timer);timer=null;}show(0);};"
                + "document.getElementById('pause').onclick=function(){if(timer){clearInterval(timer);timer=null;}};"
                + "document.getElementById('play').onclick=function(){if(timer){return;}if(shown>=all.length){show(0);}"
                + "timer=setInterval(function(){if(shown>=all.length){clearInterval(timer);timer=null;return;}show(shown+1);},400);};"
                // Walk the controls once, so that a broken step-through shows as an error, and end showing everything.
                + "show(0);show(1);show(all.length);"
                + "});</script>");
        report.table(table);
    }
}
