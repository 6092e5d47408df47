package dev.collsim.scenarios.metrics;

import dev.collsim.scenarios.metrics.Metric.Unit;
import dev.collsim.scenarios.serve.ServingPlan.Deployment;
import java.util.List;

/** What a serving deployment reports, in the order {@code serve --format json} writes it. */
public final class ServeMetrics {
    private ServeMetrics() {}

    public static final Metric<Deployment> TTFT = new Metric<>("ttft_ms", "TTFT", Unit.MILLISECONDS, d -> d.ttft().ms());
    public static final Metric<Deployment> ITL = new Metric<>("itl_ms", "ITL", Unit.MILLISECONDS, d -> d.itl().ms());
    public static final Metric<Deployment> TOKENS_PER_S_PER_GPU = new Metric<>("tokens_per_s_per_gpu", "tok/s/GPU", Unit.TOKENS_PER_SECOND,
            Deployment::tokensPerSPerGpu);
    public static final Metric<Deployment> REQUESTS_PER_S = new Metric<>("requests_per_s", "req/s", Unit.REQUESTS_PER_SECOND,
            d -> d.load().requestsPerS());
    public static final Metric<Deployment> PREFILL = new Metric<>("prefill_ms", "prefill", Unit.MILLISECONDS, d -> d.parts().prefill().ms());
    public static final Metric<Deployment> QUEUE = new Metric<>("queue_ms", "queue", Unit.MILLISECONDS, d -> d.parts().queue().ms());
    public static final Metric<Deployment> KV_MOVE = new Metric<>("kv_ms", "KV move", Unit.MILLISECONDS, d -> d.parts().kv().ms());
    public static final Metric<Deployment> DECODE_STEP = new Metric<>("decode_step_ms", "decode step", Unit.MILLISECONDS,
            d -> d.parts().decodeStep().ms());
    public static final Metric<Deployment> STEP_WITH_CHUNK = new Metric<>("step_with_chunk_ms", "with a chunk", Unit.MILLISECONDS,
            d -> d.parts().stepWithChunk().ms());

    /** What a deployment gives at its load. */
    public static final List<Metric<Deployment>> LOAD = List.of(TTFT, ITL, TOKENS_PER_S_PER_GPU, REQUESTS_PER_S);

    /** What its time to first token is made of, up to the KV move (then what the KV crosses, then the steps). */
    public static final List<Metric<Deployment>> TO_FIRST_TOKEN = List.of(PREFILL, QUEUE, KV_MOVE);

    /** Its decode steps. */
    public static final List<Metric<Deployment>> STEPS = List.of(DECODE_STEP, STEP_WITH_CHUNK);
}
