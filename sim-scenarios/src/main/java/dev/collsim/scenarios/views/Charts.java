package dev.collsim.scenarios.views;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.collsim.reports.HtmlReport;

/** The frame the reports' charts on two value axes share: a centred title, the tooltip, the grid and the axes' names. */
final class Charts {
    private Charts() {}

    /** ECharts' own palette, for a chart that colours its series itself (a series keeping its colour across charts). */
    static final String[] COLOURS = {"#5470c6", "#91cc75", "#fac858", "#ee6666", "#73c0de", "#3ba272", "#fc8452", "#9a60b4", "#ea7ccc"};

    /**
     * A chart with value axes named {@code x} and {@code y}; {@code trigger} the tooltip's ("axis" for lines over
     * time, "item" for points), and with a legend under the title where {@code legend}.
     */
    static ObjectNode xy(String title, String x, String y, String trigger, boolean legend) {
        ObjectNode o = HtmlReport.json().createObjectNode();
        o.putObject("title").put("text", title).put("left", "center");
        o.putObject("tooltip").put("trigger", trigger);
        if (legend) {
            o.putObject("legend").put("top", 28);
        }
        o.putObject("grid").put("top", 70).put("left", 70).put("right", 40);
        o.putObject("xAxis").put("type", "value").put("name", x).put("nameLocation", "middle").put("nameGap", 28);
        o.putObject("yAxis").put("type", "value").put("name", y);
        return o;
    }
}
