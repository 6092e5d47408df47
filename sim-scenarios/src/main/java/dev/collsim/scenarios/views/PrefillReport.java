package dev.collsim.scenarios.views;

import dev.collsim.reports.Column;
import dev.collsim.reports.Table;
import dev.collsim.scenarios.decode.DecodeResult;
import dev.collsim.scenarios.decode.PrefillResult;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** A prefill as a table: one row per layer, the time to first token and the KV cache's move around it. */
public final class PrefillReport {
    private PrefillReport() {}

    /** {@code requestMs}: the server's time per request beyond the forwards, which a client's TTFT adds. */
    public static Table table(PrefillResult r, double requestMs) {
        DecodeResult.Setup s = r.setup();
        DecodeResult.Layout l = r.layout();
        PrefillResult.Prompts p = r.prompts();
        PrefillResult.Time time = r.time();
        PrefillResult.KvCache kv = r.kv();
        Table t = new Table("prefill of " + s.model(), List.of(Column.number("layer", "layer", "", 6, 0), Column.text("kind", "kind", 6),
                Column.number("ms", "time", "(ms)", 10, 4)),
                s.whatIfs().isEmpty() ? Map.of("command", "prefill", "model", s.model(), "system", s.system())
                        : Map.of("command", "prefill", "model", s.model(), "system", s.system(), "what_ifs", s.whatIfs()));
        t.note(String.format(Locale.ROOT, "%s on %s (%s): tp %d, pp %d, ep %d; %d request(s) of %d prompt tokens%s, %s, KV cache %s; engine %s",
                s.model(), s.system(), s.gpu(), l.tp(), l.pp(), l.ep(), p.requests(), p.isl(),
                p.chunk() > 0 ? " in chunks of " + p.chunk() : "", l.dtype().label(), l.kvDtype().label(), s.engine().label()));
        if (!s.whatIfs().isEmpty()) {
            t.note("what-ifs: " + s.whatIfs());
        }
        if (l.speculation().speculates()) {
            t.note("speculative decoding (" + l.speculation().describe() + "): each forward ends with the draft layer over the prompt's"
                    + " tokens (draft_* kernels), its KV cache and the first draft token");
        }
        if (!l.experts().evenLoad()) {
            t.note(DecodeReport.expertLoad(l));
        }
        for (String w : r.warnings()) {
            t.note("warning: " + w);
        }
        for (PrefillResult.LayerTime layer : r.layers()) {
            t.row(layer.index(), layer.moe() ? "moe" : "dense", layer.time().ms());
        }
        t.footnote(String.format(Locale.ROOT, "time to first token %.3f ms: compute %.3f ms, communication %.3f ms (%.3f ms of it exposed),"
                + " host %.3f ms (%d forward(s))", time.ttft().ms(), time.compute().ms(), time.comm().ms(), time.exposedComm().ms(), time.host().ms(),
                r.forwards().size()));
        t.footnote(String.format(Locale.ROOT, "at a client %.3f ms, with the server's %.1f ms a request before the forwards (HTTP,"
                + " tokenisation, the engine's IPC; --request-overhead)", time.ttft().ms() + requestMs, requestMs));
        t.footnote(String.format(Locale.ROOT, "KV cache: %.1f KiB a token, %.2f GiB a request, %.2f GiB on each GPU for the batch",
                kv.bytesPerToken() / 1024, kv.bytesPerRequest() / (1L << 30), kv.bytesPerGpu() / (double) (1L << 30)));
        for (PrefillResult.KvTransfer x : kv.transfers()) {
            t.footnote(x.why().isEmpty()
                    ? String.format(Locale.ROOT, "to a decode instance over %s, every GPU to its peer: %.3f ms after the prefill; layer by"
                            + " layer as the layers end, %.3f ms exposed", x.over(), x.after().ms(), x.exposed().ms())
                    : "to a decode instance over " + x.over() + ": not simulated (" + x.why() + ")");
        }
        return t;
    }
}
