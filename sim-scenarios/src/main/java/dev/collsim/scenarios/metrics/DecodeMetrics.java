package dev.collsim.scenarios.metrics;

import dev.collsim.scenarios.decode.DecodeResult;
import dev.collsim.scenarios.metrics.Metric.Unit;
import java.util.List;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

/** What a decode step reports, in the order {@code decode --format json} writes it. Bytes are per GPU. */
public final class DecodeMetrics {
    private DecodeMetrics() {}

    public static final Metric<DecodeResult> ITL = ms("itl_ms", "ITL", r -> r.itl().ms());
    public static final Metric<DecodeResult> TOKENS_PER_S = rate("tokens_per_s", "tokens/s", DecodeResult::tokensPerS);
    public static final Metric<DecodeResult> TOKENS_PER_S_PER_GPU = rate("tokens_per_s_per_gpu", "tokens/s per GPU",
            DecodeResult::tokensPerSPerGpu);
    public static final Metric<DecodeResult> TOKENS_PER_S_PER_USER = rate("tokens_per_s_per_user", "tokens/s per user",
            DecodeResult::tokensPerSPerUser);
    public static final Metric<DecodeResult> COMPUTE = ms("compute_ms", "compute", r -> r.timing().compute().ms());
    public static final Metric<DecodeResult> COMM = ms("comm_ms", "communication", r -> r.comm().busy().ms());
    public static final Metric<DecodeResult> EXPOSED_COMM = ms("exposed_comm_ms", "exposed communication", r -> r.comm().exposed().ms());
    public static final Metric<DecodeResult> COMM_BYTES = bytes("comm_bytes_per_gpu", "sent per GPU", r -> r.comm().bytesPerGpu());
    public static final Metric<DecodeResult> COMM_BANDWIDTH_TERM = ms("comm_bandwidth_term_ms", "bandwidth term",
            r -> r.comm().bandwidthTerm().ms());
    public static final Metric<DecodeResult> COMM_LATENCY_TERM = ms("comm_latency_term_ms", "latency term", r -> r.comm().latencyTerm().ms());
    public static final Metric<DecodeResult> WEIGHTS_BYTES = bytes("weights_bytes_per_gpu", "weights", r -> r.memory().weightsBytes());
    public static final Metric<DecodeResult> WEIGHTS_READ = ms("weights_read_ms", "weights at HBM peak", r -> r.timing().weightsRead().ms());
    public static final Metric<DecodeResult> KV_BYTES = bytes("kv_bytes_per_gpu", "KV cache", r -> r.memory().kvBytes());
    public static final Metric<DecodeResult> BUFFERS_BYTES = bytes("buffers_bytes_per_gpu", "buffers", r -> r.memory().buffersBytes());
    public static final Metric<DecodeResult> MEMORY_BYTES = bytes("memory_bytes_per_gpu", "memory", r -> r.memory().total());
    public static final Metric<DecodeResult> HBM_BYTES = bytes("hbm_bytes_per_gpu", "HBM", r -> r.memory().capacityBytes());
    public static final Metric<DecodeResult> GPU_PATH = ms("gpu_path_ms", "GPU path", r -> r.timing().gpuPath().ms());
    public static final Metric<DecodeResult> PIPELINE_BUBBLE = ms("pipeline_bubble_ms", "pipeline bubble", r -> r.timing().bubble().ms());
    public static final Metric<DecodeResult> HOST = ms("host_ms", "host", r -> r.timing().host().ms());
    public static final Metric<DecodeResult> HOST_EXPOSED = ms("host_exposed_ms", "exposed host", r -> r.timing().hostExposed().ms());
    public static final Metric<DecodeResult> KERNELS = new Metric<>("kernels_per_step", "kernels", Unit.COUNT, r -> r.timing().kernels());
    public static final Metric<DecodeResult> KERNEL_FLOOR = ms("kernel_floor_ms", "kernel floors", r -> r.timing().kernelFloor().ms());
    public static final Metric<DecodeResult> ROOFLINE = ms("roofline_ms", "roofline", r -> r.timing().roofline().ms());

    /** Every decode metric, in the JSON's order. */
    public static final List<Metric<DecodeResult>> ALL = List.of(ITL, TOKENS_PER_S, TOKENS_PER_S_PER_GPU, TOKENS_PER_S_PER_USER, COMPUTE,
            COMM, EXPOSED_COMM, COMM_BYTES, COMM_BANDWIDTH_TERM, COMM_LATENCY_TERM, WEIGHTS_BYTES, WEIGHTS_READ, KV_BYTES, BUFFERS_BYTES,
            MEMORY_BYTES, HBM_BYTES, GPU_PATH, PIPELINE_BUBBLE, HOST, HOST_EXPOSED, KERNELS, KERNEL_FLOOR, ROOFLINE);

    /** A sweep's row of a decode point, after its axes. */
    public static final List<Metric<DecodeResult>> SWEPT = List.of(ITL, TOKENS_PER_S, TOKENS_PER_S_PER_GPU, TOKENS_PER_S_PER_USER, COMPUTE,
            COMM, EXPOSED_COMM, COMM_BYTES);

    /** A compared layout's numbers, in the order compare's tables and JSON give them. */
    public static final List<Metric<DecodeResult>> COMPARED = List.of(ITL, TOKENS_PER_S_PER_USER, TOKENS_PER_S_PER_GPU, COMPUTE, COMM,
            EXPOSED_COMM, COMM_BANDWIDTH_TERM, COMM_LATENCY_TERM);

    /** What replications of a stochastic step summarise; the first is the main one (a sweep gives its P99 and interval). */
    public static final List<Metric<DecodeResult>> REPLICATED = List.of(ITL, TOKENS_PER_S_PER_USER, EXPOSED_COMM);

    private static Metric<DecodeResult> ms(String key, String title, ToDoubleFunction<DecodeResult> read) {
        return new Metric<>(key, title, Unit.MILLISECONDS, r -> read.applyAsDouble(r));
    }

    private static Metric<DecodeResult> rate(String key, String title, ToDoubleFunction<DecodeResult> read) {
        return new Metric<>(key, title, Unit.TOKENS_PER_SECOND, r -> read.applyAsDouble(r));
    }

    private static Metric<DecodeResult> bytes(String key, String title, Function<DecodeResult, Number> read) {
        return new Metric<>(key, title, Unit.BYTES, read);
    }
}
