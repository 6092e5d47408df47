package dev.collsim.scenarios.views;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.collsim.scenarios.decode.PrefillResult;
import dev.collsim.scenarios.metrics.PrefillMetrics;

/** A prefill as {@code prefill --format json} writes it: its keys are a contract with users' scripts. */
public final class PrefillJson {
    private PrefillJson() {}

    /** {@code requestMs}: the server's time per request beyond the forwards, which a client's TTFT adds. */
    public static ObjectNode of(PrefillResult r, double requestMs) {
        ObjectNode j = DecodeJson.head(r.setup());
        j.put("tp", r.layout().tp());
        j.put("pp", r.layout().pp());
        j.put("ep", r.layout().ep());
        j.put("isl", r.prompts().isl());
        j.put("batch", r.prompts().requests());
        j.put("chunk", r.prompts().chunk());
        j.put("dtype", r.layout().dtype().label());
        j.put("kv_dtype", r.layout().kvDtype().label());
        j.put("engine", r.setup().engine().label());
        Json.put(j, PrefillMetrics.ALL, r);
        j.put("request_overhead_ms", requestMs);
        j.put("client_ttft_ms", r.time().ttft().ms() + requestMs);
        ArrayNode moves = j.putArray("kv_transfer");
        for (PrefillResult.KvTransfer x : r.kv().transfers()) {
            ObjectNode o = moves.addObject();
            o.put("over", x.over());
            if (x.simulated()) {
                o.put("after_prefill_ms", x.after().ms());
                o.put("layer_by_layer_exposed_ms", x.exposed().ms());
            }
            Json.putIfNotEmpty(o, "why", x.why());
        }
        ArrayNode forwards = j.putArray("forwards");
        for (PrefillResult.Forward f : r.forwards()) {
            ObjectNode o = forwards.addObject();
            o.put("cached_tokens", f.cachedTokens());
            o.put("tokens", f.tokens());
            o.put("gpu_ms", f.gpu().ms());
            o.put("compute_ms", f.compute().ms());
            o.put("comm_ms", f.comm().ms());
            o.put("exposed_comm_ms", f.exposedComm().ms());
        }
        ArrayNode layers = j.putArray("layers");
        for (PrefillResult.LayerTime l : r.layers()) {
            layers.addObject().put("index", l.index()).put("moe", l.moe()).put("ms", l.time().ms());
        }
        j.set("warnings", Json.strings(r.warnings()));
        return j;
    }
}
