package dev.collsim.reports;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * One self-contained HTML page: headings, text, tables and ECharts charts, with ECharts itself
 * inlined from its WebJar so the page opens offline. Each chart is an ECharts option (plain JSON).
 * The page records what it rendered in an element with id {@code collsim-status}: how many charts
 * drew something, any script error, and what a reader would miss (a chart without a title, an axis
 * without a title, a series without data), in attributes the browser test reads; a reader sees
 * only a script error, if any.
 */
public final class HtmlReport {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String ECHARTS = "/META-INF/resources/webjars/echarts/5.3.1/dist/echarts.min.js";

    private final String title;
    private final List<String> body = new ArrayList<>();
    private final List<ObjectNode> charts = new ArrayList<>();

    public HtmlReport(String title) {
        this.title = title;
    }

    public static ObjectMapper json() {
        return JSON;
    }

    public HtmlReport heading(String text) {
        body.add("<h2>" + escape(text) + "</h2>");
        return this;
    }

    public HtmlReport text(String text) {
        body.add("<p>" + escape(text) + "</p>");
        return this;
    }

    /** A chart of the given ECharts option, {@code height} pixels tall. */
    public HtmlReport chart(ObjectNode option, int height) {
        body.add("<div class=\"chart\" id=\"chart" + charts.size() + "\" style=\"height:" + height + "px\"></div>");
        charts.add(option);
        return this;
    }

    /** Charts added so far: the next chart's index in {@code window.collsimCharts}. */
    public int chartCount() {
        return charts.size();
    }

    /** A table: its notes as a paragraph, then its rows. */
    public HtmlReport table(Table t) {
        StringBuilder sb = new StringBuilder();
        for (String note : t.preamble()) {
            sb.append("<p class=\"note\">").append(escape(note)).append("</p>");
        }
        sb.append("<table><tr>");
        for (Column c : t.columns()) {
            sb.append("<th>").append(escape(c.title())).append(c.unit().isEmpty() ? "" : " " + escape(c.unit())).append("</th>");
        }
        sb.append("</tr>");
        for (List<Object> row : t.rows()) {
            sb.append("<tr>");
            for (int i = 0; i < row.size(); i++) {
                Column c = t.columns().get(i);
                sb.append(c.left() ? "<td class=\"label\">" : "<td>").append(escape(Cells.human(row.get(i), c))).append("</td>");
            }
            sb.append("</tr>");
        }
        sb.append("</table>");
        for (String note : t.footer()) {
            sb.append("<p class=\"note\">").append(escape(note)).append("</p>");
        }
        body.add(sb.toString());
        return this;
    }

    /** Raw HTML and script of a section that needs its own behaviour (the teaching view's step-through). */
    public HtmlReport raw(String html) {
        body.add(html);
        return this;
    }

    public String render() {
        StringBuilder sb = new StringBuilder();
        sb.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>").append(escape(title)).append("</title>\n");
        sb.append("<style>body{font-family:sans-serif;margin:2em;max-width:1200px}table{border-collapse:collapse;font-size:13px}"
                + "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}td.label{text-align:left}p.note{color:#555;font-size:13px;margin:2px 0}"
                + ".chart{width:100%;margin:1em 0}</style>\n");
        sb.append("<script>window.collsimErrors=[];window.addEventListener('error',function(e){window.collsimErrors.push(String(e.message));});</script>\n");
        sb.append("<script>").append(echarts()).append("</script>\n</head><body>\n");
        sb.append("<h1>").append(escape(title)).append("</h1>\n");
        body.forEach(b -> sb.append(b).append('\n'));
        sb.append("<div id=\"collsim-status\"></div>\n<script>\n(function(){\nvar options=");
        try {
            sb.append(JSON.writeValueAsString(charts));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
        sb.append(";\nfunction gantt(params,api){var y=api.coord([api.value(1),api.value(0)]);var e=api.coord([api.value(2),api.value(0)]);"
                + "var h=api.size([0,1])[1]*0.6;return {type:'rect',shape:echarts.graphic.clipRectByRect({x:y[0],y:y[1]-h/2,"
                + "width:Math.max(1,e[0]-y[0]),height:h},{x:params.coordSys.x,y:params.coordSys.y,width:params.coordSys.width,"
                + "height:params.coordSys.height}),style:api.style()};}\n");
        // What a reader needs of every chart: a title, every axis titled, no series without data.
        sb.append("var problems=[];\nfunction look(opt,i){var t=(opt.title||[])[0];if(!t||!t.text){problems.push('chart '+i+': no title');}"
                + "['xAxis','yAxis'].forEach(function(k){(opt[k]||[]).forEach(function(a,j){if(!a.name){problems.push('chart '+i+': '+k+"
                + "(j?' '+j:'')+' has no title');}});});(opt.series||[]).forEach(function(s,j){if(!s.data||!s.data.length){"
                + "problems.push('chart '+i+': series '+(s.name||j)+' is empty');}});}\n");
        // An axis marked collsimBytes labels its ticks as sizes (8 B, 1 KiB, 8 GiB): JSON cannot carry the formatter function.
        sb.append("function bytes(v){var u=['B','KiB','MiB','GiB','TiB'],i=0;while(v>=1024&&i<4){v/=1024;i++;}"
                + "return (Math.round(v*10)/10)+' '+u[i];}\nfunction sizes(o){['xAxis','yAxis'].forEach(function(k){var a=o[k];"
                + "(Array.isArray(a)?a:a?[a]:[]).forEach(function(x){if(x.collsimBytes){delete x.collsimBytes;x.axisLabel=x.axisLabel||{};"
                + "x.axisLabel.formatter=bytes;}});});}\n");
        sb.append("var drawn=0;\nwindow.collsimCharts=[];\noptions.forEach(function(o,i){try{if(o.collsimGantt){o.series.forEach(function(s){"
                + "s.renderItem=gantt;});delete o.collsimGantt;}sizes(o);o.animation=false;var c=echarts.init(document.getElementById('chart'+i),"
                + "null,{renderer:'canvas'});c.setOption(o);window.collsimCharts.push(c);var opt=c.getOption();"
                + "var points=(opt.series||[]).reduce(function(n,s){return n+((s.data&&s.data.length)||0);},0);"
                + "if(points>0&&document.getElementById('chart'+i).querySelector('canvas')){drawn++;}look(opt,i);}"
                + "catch(e){window.collsimErrors.push(String(e));}});\n"
                + "function status(){var s=document.getElementById('collsim-status');s.setAttribute('data-charts',String(options.length));"
                + "s.setAttribute('data-drawn',String(drawn));s.setAttribute('data-errors',window.collsimErrors.join(' | '));"
                + "s.setAttribute('data-problems',problems.join(' | '));"
                + "s.textContent=window.collsimErrors.length?'this page could not draw everything: '+window.collsimErrors.join(' | '):'';}\n"
                // Again once the page's own load handlers (the step-through's) have run, with any error they raised.
                + "status();window.addEventListener('load',status);\n"
                + "})();\n</script>\n</body></html>\n");
        return sb.toString();
    }

    private static String echarts() {
        try (InputStream in = HtmlReport.class.getResourceAsStream(ECHARTS)) {
            if (in == null) {
                throw new IllegalStateException("ECharts is missing from the class path (" + ECHARTS + ")");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).replace("</script", "<\\/script");
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
