package dev.collsim.scenarios.views;

import dev.collsim.reports.Column;
import dev.collsim.reports.Table;
import dev.collsim.scenarios.decode.PrefillResult;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** A prefill as a table: one row per layer, the time to first token and the KV cache's move around it. */
public final class PrefillReport {
    private PrefillReport() {}

    public static Table table(PrefillResult r) {
        Table t = new Table("prefill of " + r.model(), List.of(Column.number("layer", "layer", "", 6, 0), Column.text("kind", "kind", 6),
                Column.number("ms", "time", "(ms)", 10, 4)),
                r.whatIfs().isEmpty() ? Map.of("command", "prefill", "model", r.model(), "system", r.system())
                        : Map.of("command", "prefill", "model", r.model(), "system", r.system(), "what_ifs", r.whatIfs()));
        t.note(String.format(Locale.ROOT, "%s on %s (%s): tp %d, pp %d, ep %d; %d request(s) of %d prompt tokens%s, %s, KV cache %s; engine %s",
                r.model(), r.system(), r.gpu(), r.tp(), r.pp(), r.ep(), r.batch(), r.isl(),
                r.chunk() > 0 ? " in chunks of " + r.chunk() : "", r.dtype(), r.kvDtype(), r.engine()));
        if (!r.whatIfs().isEmpty()) {
            t.note("what-ifs: " + r.whatIfs());
        }
        for (String w : r.warnings()) {
            t.note("warning: " + w);
        }
        for (PrefillResult.LayerTime l : r.layers()) {
            t.row(l.index(), l.moe() ? "moe" : "dense", l.ms());
        }
        t.footnote(String.format(Locale.ROOT, "time to first token %.3f ms: compute %.3f ms, communication %.3f ms (%.3f ms of it exposed),"
                + " host %.3f ms (%d forward(s))", r.ttftMs(), r.computeMs(), r.commMs(), r.exposedCommMs(), r.hostMs(), r.forwards().size()));
        t.footnote(String.format(Locale.ROOT, "KV cache: %.1f KiB a token, %.2f GiB a request, %.2f GiB on each GPU for the batch",
                r.kvBytesPerToken() / 1024, r.kvBytesPerRequest() / (1L << 30), r.kvBytesPerGpu() / (double) (1L << 30)));
        for (PrefillResult.KvTransfer x : r.kvTransfer()) {
            t.footnote(x.why().isEmpty()
                    ? String.format(Locale.ROOT, "to a decode instance over %s, every GPU to its peer: %.3f ms after the prefill; layer by"
                            + " layer as the layers end, %.3f ms exposed", x.over(), x.afterMs(), x.exposedMs())
                    : "to a decode instance over " + x.over() + ": not simulated (" + x.why() + ")");
        }
        return t;
    }
}
