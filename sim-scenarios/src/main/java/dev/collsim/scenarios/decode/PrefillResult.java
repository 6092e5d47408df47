package dev.collsim.scenarios.decode;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * A prefill's time to first token and what it is made of, per layer and per forward, with the KV
 * cache it leaves and what moving it to a decode instance costs.
 *
 * @param kvBytesPerToken   the whole model's KV cache per token (every layer, every KV head)
 * @param kvBytesPerRequest that times the prompt
 * @param kvBytesPerGpu     what each GPU holds of the batch's cache, and sends to its peer
 * @param lastForward       the forward that ends with the first token, kernel by kernel (for the report and the trace)
 */
public record PrefillResult(
        String model, String system, String gpu,
        @JsonProperty("what_ifs") @JsonInclude(JsonInclude.Include.NON_EMPTY) String whatIfs,
        int tp, int pp, int ep, int isl, int batch,
        @JsonProperty("chunk") int chunk,
        String dtype,
        @JsonProperty("kv_dtype") String kvDtype,
        String engine,
        @JsonProperty("ttft_ms") double ttftMs,
        @JsonProperty("compute_ms") double computeMs,
        @JsonProperty("comm_ms") double commMs,
        @JsonProperty("exposed_comm_ms") double exposedCommMs,
        @JsonProperty("host_ms") double hostMs,
        @JsonProperty("kv_bytes_per_token") double kvBytesPerToken,
        @JsonProperty("kv_bytes_per_request") double kvBytesPerRequest,
        @JsonProperty("kv_bytes_per_gpu") long kvBytesPerGpu,
        @JsonProperty("kv_transfer") List<KvTransfer> kvTransfer,
        List<Forward> forwards,
        List<LayerTime> layers,
        List<String> warnings,
        @JsonIgnore DecodeResult lastForward) {

    /**
     * Moving the KV cache to a decode instance over one kind of link.
     *
     * @param afterMs    all of it sent after the last layer: all of it waits; null where not simulated
     * @param exposedMs  sent layer by layer as each layer ends: what it adds after the prefill; null where not simulated
     * @param why        why it was not simulated, else empty
     */
    public record KvTransfer(String over, @JsonProperty("after_prefill_ms") @JsonInclude(JsonInclude.Include.NON_NULL) Double afterMs,
                             @JsonProperty("layer_by_layer_exposed_ms") @JsonInclude(JsonInclude.Include.NON_NULL) Double exposedMs,
                             @JsonInclude(JsonInclude.Include.NON_EMPTY) String why) {
        static KvTransfer notSimulated(String over, String why) {
            return new KvTransfer(over, null, null, why);
        }
    }

    /** One forward: the tokens of each request cached before it, its own, and its GPU time. */
    public record Forward(@JsonProperty("cached_tokens") int cachedTokens, int tokens, @JsonProperty("gpu_ms") double gpuMs,
                          @JsonProperty("compute_ms") double computeMs, @JsonProperty("comm_ms") double commMs,
                          @JsonProperty("exposed_comm_ms") double exposedCommMs) {}

    /** A layer's time, summed over the forwards. */
    public record LayerTime(int index, boolean moe, @JsonProperty("ms") double ms) {}
}
