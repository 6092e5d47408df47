package dev.collsim.scenarios.views;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.collsim.reports.HtmlReport;
import dev.collsim.scenarios.decode.PrefillResult;
import java.util.Locale;

/**
 * A prefill in the HTML report: where the time to first token goes and what the KV cache's move
 * adds, the last forward's first layers on the GPU's streams, every layer's compute and
 * communication, and the table.
 */
public final class PrefillHtml {
    private PrefillHtml() {}

    /** {@code requestMs}: the server's time per request beyond the forwards, which a client's TTFT adds. */
    public static void add(HtmlReport report, PrefillResult r, double requestMs) {
        PrefillResult.Prompts p = r.prompts();
        PrefillResult.Time time = r.time();
        report.heading("prefill of " + r.setup().model() + " on " + r.setup().system());
        report.text(String.format(Locale.ROOT, "tp %d, pp %d, ep %d; %d request(s) of %d prompt tokens%s, %s: time to first token %.3f ms"
                        + " (compute %.3f, communication %.3f of which %.3f exposed, host %.3f; %d forward(s))", r.layout().tp(), r.layout().pp(), r.layout().ep(),
                p.requests(), p.isl(), p.chunk() > 0 ? " in chunks of " + p.chunk() : "", r.layout().dtype().label(), time.ttft().ms(),
                time.compute().ms(), time.comm().ms(), time.exposedComm().ms(), time.host().ms(), r.forwards().size()));
        report.text(String.format(Locale.ROOT, "KV cache %.1f KiB a token, %.2f GiB a request", r.kv().bytesPerToken() / 1024,
                r.kv().bytesPerRequest() / (1L << 30)));
        report.chart(ttft(r), 320);
        report.chart(DecodeHtml.timeline(r.lastForward()), 260);
        report.chart(DecodeHtml.layers(r.lastForward()), 360);
        report.table(PrefillReport.table(r, requestMs));
    }

    /** The time to first token as a stacked bar, and beside it the KV cache's move over each link: after the prefill, and layer by layer. */
    private static ObjectNode ttft(PrefillResult r) {
        ObjectNode o = HtmlReport.json().createObjectNode();
        o.putObject("title").put("text", "time to first token, then the KV cache's move to a decode instance (ms)").put("left", "center");
        o.putObject("tooltip").put("trigger", "axis");
        o.putObject("legend").put("top", 28);
        o.putObject("grid").put("containLabel", true).put("top", 70).put("left", 20).put("right", 40);
        o.putObject("xAxis").put("type", "value").put("name", "ms");
        ArrayNode rows = o.putObject("yAxis").put("type", "category").put("name", "what waits").putArray("data");
        rows.add("prefill");
        for (PrefillResult.KvTransfer x : r.kv().transfers()) {
            if (x.simulated()) {
                rows.add("KV over " + x.over() + ", after").add("KV over " + x.over() + ", layer by layer");
            }
        }
        ArrayNode series = o.putArray("series");
        PrefillResult.Time time = r.time();
        double gpu = time.ttft().ms() - time.host().ms();
        bar(series, "compute", rows.size(), 0, Math.min(time.compute().ms(), gpu - time.exposedComm().ms()));
        bar(series, "communication, exposed", rows.size(), 0, time.exposedComm().ms());
        bar(series, "host", rows.size(), 0, time.host().ms());
        ArrayNode prefillBase = series.addObject().put("name", "prefill (the move waits for it)").put("type", "bar").put("stack", "t").putArray("data");
        ArrayNode move = series.addObject().put("name", "KV move, exposed").put("type", "bar").put("stack", "t").putArray("data");
        prefillBase.add(0);
        move.add(0);
        for (PrefillResult.KvTransfer x : r.kv().transfers()) {
            if (x.simulated()) {
                prefillBase.add(time.ttft().ms()).add(time.ttft().ms());
                move.add(x.after().ms()).add(x.exposed().ms());
            }
        }
        return o;
    }

    /** A stacked bar with {@code value} in row {@code at} and nothing in the others. */
    private static void bar(ArrayNode series, String name, int rows, int at, double value) {
        ArrayNode data = series.addObject().put("name", name).put("type", "bar").put("stack", "t").putArray("data");
        for (int i = 0; i < rows; i++) {
            data.add(i == at ? value : 0);
        }
    }
}
