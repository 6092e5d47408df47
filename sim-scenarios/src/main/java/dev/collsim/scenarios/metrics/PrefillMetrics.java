package dev.collsim.scenarios.metrics;

import dev.collsim.scenarios.decode.PrefillResult;
import dev.collsim.scenarios.metrics.Metric.Unit;
import java.util.List;

/** What a prefill reports, in the order {@code prefill --format json} writes it. */
public final class PrefillMetrics {
    private PrefillMetrics() {}

    public static final Metric<PrefillResult> TTFT = new Metric<>("ttft_ms", "TTFT", Unit.MILLISECONDS, r -> r.ttft().ms());
    public static final Metric<PrefillResult> COMPUTE = new Metric<>("compute_ms", "compute", Unit.MILLISECONDS, r -> r.time().compute().ms());
    public static final Metric<PrefillResult> COMM = new Metric<>("comm_ms", "communication", Unit.MILLISECONDS, r -> r.time().comm().ms());
    public static final Metric<PrefillResult> EXPOSED_COMM = new Metric<>("exposed_comm_ms", "exposed communication", Unit.MILLISECONDS,
            r -> r.time().exposedComm().ms());
    public static final Metric<PrefillResult> HOST = new Metric<>("host_ms", "host", Unit.MILLISECONDS, r -> r.time().host().ms());
    public static final Metric<PrefillResult> KV_PER_TOKEN = new Metric<>("kv_bytes_per_token", "KV a token", Unit.BYTES,
            r -> r.kv().bytesPerToken());
    public static final Metric<PrefillResult> KV_PER_REQUEST = new Metric<>("kv_bytes_per_request", "KV a request", Unit.BYTES,
            r -> r.kv().bytesPerRequest());
    public static final Metric<PrefillResult> KV_PER_GPU = new Metric<>("kv_bytes_per_gpu", "KV per GPU", Unit.BYTES, r -> r.kv().bytesPerGpu());

    /** Every prefill metric, in the JSON's order. */
    public static final List<Metric<PrefillResult>> ALL = List.of(TTFT, COMPUTE, COMM, EXPOSED_COMM, HOST, KV_PER_TOKEN, KV_PER_REQUEST,
            KV_PER_GPU);
}
