package dev.collsim.scenarios.decode;

import dev.collsim.core.units.Duration;
import java.util.List;

/**
 * A prefill's time to first token and what it is made of, per layer and per forward, with the KV
 * cache it leaves and what moving it to a decode instance costs.
 *
 * @param setup       what it ran on and how it was modelled (its first forward's)
 * @param layout      the layout (its first forward's: the batch there is that forward's prompt rows)
 * @param lastForward the forward that ends with the first token, kernel by kernel (for the report and the trace)
 */
public record PrefillResult(DecodeResult.Setup setup, DecodeResult.Layout layout, Prompts prompts, Time time, KvCache kv,
                            List<Forward> forwards, List<LayerTime> layers, List<String> warnings, DecodeResult lastForward) {

    /**
     * The prompts prefilled together.
     *
     * @param isl      prompt tokens per request
     * @param requests prompts prefilled together
     * @param chunk    tokens per forward, or 0 for the whole prompt at once
     */
    public record Prompts(int isl, int requests, int chunk) {}

    /** The time to first token and what it is made of, summed over the forwards. */
    public record Time(Duration ttft, Duration compute, Duration comm, Duration exposedComm, Duration host) {}

    /**
     * The KV cache the prefill leaves.
     *
     * @param bytesPerToken   the whole model's KV cache per token (every layer, every KV head)
     * @param bytesPerRequest that times the prompt
     * @param bytesPerGpu     what each GPU holds of the batch's cache, and sends to its peer
     * @param transfers       moving it to a decode instance, over each kind of link
     */
    public record KvCache(double bytesPerToken, double bytesPerRequest, long bytesPerGpu, List<KvTransfer> transfers) {}

    /**
     * Moving the KV cache to a decode instance over one kind of link.
     *
     * @param after    all of it sent after the last layer: all of it waits; null where not simulated
     * @param exposed  sent layer by layer as each layer ends: what it adds after the prefill; null where not simulated
     * @param why      why it was not simulated, else empty
     */
    public record KvTransfer(String over, Duration after, Duration exposed, String why) {
        /** {@link #over} of a move inside an NVLink domain. */
        public static final String NVLINK = "NVLink";
        /** {@link #over} of a move between two GPUs of a PCIe server. */
        public static final String PCIE = "PCIe";
        /** {@link #over} of a move between nodes. */
        public static final String NETWORK = "the network";

        /** Whether the move stays inside one node (NVLink or PCIe), where it shares the node's links with the step. */
        public boolean insideNode() {
            return !NETWORK.equals(over);
        }

        static KvTransfer notSimulated(String over, String why) {
            return new KvTransfer(over, null, null, why);
        }

        public boolean simulated() {
            return after != null;
        }
    }

    /** One forward: the tokens of each request cached before it, its own, and its GPU time. */
    public record Forward(int cachedTokens, int tokens, Duration gpu, Duration compute, Duration comm, Duration exposedComm) {}

    /** A layer's time, summed over the forwards. */
    public record LayerTime(int index, boolean moe, Duration time) {}

    public Duration ttft() {
        return time.ttft();
    }
}
