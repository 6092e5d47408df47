package dev.collsim.scenarios.views;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.collsim.scenarios.decode.DecodeResult;
import dev.collsim.scenarios.decode.Speculation;
import dev.collsim.scenarios.metrics.DecodeMetrics;
import java.util.List;

/** A decode step as {@code decode --format json} writes it: its keys are a contract with users' scripts. */
public final class DecodeJson {
    private DecodeJson() {}

    public static ObjectNode of(DecodeResult r) {
        DecodeResult.Setup s = r.setup();
        ObjectNode j = head(s);
        j.set("layout", layout(r.layout()));
        j.put("tp_path", s.tpPath());
        Json.putIfNotEmpty(j, "contention", s.contention());
        j.put("engine", s.engine().label());
        j.put("efficiency_set", s.efficiencySet());
        Json.put(j, DecodeMetrics.ALL, r);
        if (r.layout().speculation().speculates()) {
            j.put("step_ms", r.step().ms());
            j.put("draft_ms", r.draftTime().ms());
        }
        j.set("warnings", Json.strings(r.warnings()));
        j.set("before_layers", spans(r.timeline().beforeLayers()));
        ArrayNode layers = j.putArray("layers");
        for (DecodeResult.Layer l : r.layers()) {
            ObjectNode o = layers.addObject();
            o.put("index", l.index());
            o.put("moe", l.moe());
            o.put("start_ms", l.start().ms());
            o.put("end_ms", l.end().ms());
            o.put("compute_ms", l.compute().ms());
            o.put("comm_ms", l.comm().ms());
            o.set("spans", spans(l.spans()));
        }
        j.set("after_layers", spans(r.timeline().afterLayers()));
        return j;
    }

    /** What every step's and prefill's JSON opens with: the model, the system, its GPU and the what-ifs in force (when any). */
    static ObjectNode head(DecodeResult.Setup s) {
        ObjectNode j = Json.object();
        j.put("model", s.model());
        j.put("system", s.system());
        j.put("gpu", s.gpu());
        Json.putIfNotEmpty(j, "what_ifs", s.whatIfs());
        return j;
    }

    static ObjectNode layout(DecodeResult.Layout l) {
        ObjectNode o = Json.object();
        o.put("tp", l.tp());
        o.put("pp", l.pp());
        o.put("ep", l.ep());
        o.put("dp", l.dp());
        o.put("gpus", l.gpus());
        o.put("batch", l.batch());
        o.put("micro_batch", l.microBatch());
        o.put("context", l.context());
        o.put("dtype", l.dtype().label());
        o.put("kv_dtype", l.kvDtype().label());
        o.put("allreduce", l.allreduce().label());
        o.put("overlap", l.overlap().label());
        o.put("cuda_graphs", l.cudaGraphs());
        putSpeculation(o, l.speculation());
        if (l.moeExchange() != null) {
            o.put("moe_exchange", l.moeExchange().label());
        }
        if (!l.experts().evenLoad()) {
            ObjectNode load = o.putObject("expert_load");
            load.put("skew", l.experts().skew());
            load.put("eplb_redundant_experts", l.experts().eplb() ? l.experts().redundant() : null);
            load.put("busiest_rank_imbalance", l.expertImbalance());
        }
        return o;
    }

    /** Speculative decoding's method, drafts and tokens a step, under speculative_decoding; nothing without it. */
    static void putSpeculation(ObjectNode o, Speculation s) {
        if (s.speculates()) {
            ObjectNode spec = o.putObject("speculative_decoding");
            spec.put("method", s.method().label());
            spec.put("draft_tokens", s.drafts());
            spec.put("tokens_per_step", s.acceptance());
        }
    }

    private static ArrayNode spans(List<DecodeResult.Span> spans) {
        ArrayNode a = Json.array();
        for (DecodeResult.Span s : spans) {
            ObjectNode o = a.addObject();
            o.put("name", s.name());
            o.put("kind", s.kind().label());
            o.put("stream", s.stream());
            o.put("micro_batch", s.microBatch());
            o.put("start_ms", s.start().ms());
            o.put("end_ms", s.end().ms());
            o.put("bytes", s.bytes());
            o.put("flops", s.flops());
        }
        return a;
    }
}
