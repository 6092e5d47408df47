package dev.collsim.scenarios.decode;

import dev.collsim.core.input.InputException;
import dev.collsim.topologies.catalog.GpuModel;
import java.util.Locale;

/**
 * What one GPU must hold: its share of the weights (the busiest pipeline stage's), its share of the
 * KV cache and of the linear layers' states (a sequence's state of a fixed size, whatever its length), communication buffers
 * and a fixed reserve.
 *
 * <p>Communication buffers: NCCL keeps, per channel and peer, a buffer for each protocol (Simple 4
 * MiB, LL128 about 4.5 MiB, LL 256 KiB); the TP group's ring has two peers per channel, the EP
 * group's alltoall one per rank. The reserve (1 GiB) stands for the CUDA context, cuBLAS workspace and
 * activations: an assumption, not a measurement.
 */
public record MemoryPlan(double weightsBytes, double kvBytes, double stateBytes, double buffersBytes, double reserveBytes,
                         double capacityBytes) {
    static final double NCCL_BUFFERS_PER_CHANNEL_PEER = (4.0 + 4.5 + 0.25) * (1 << 20);
    static final double RESERVE = 1L << 30;

    static MemoryPlan of(DecodeSpec spec, GpuModel gpu, int tpChannels, int epPeers) {
        ModelConfig m = spec.model();
        double dense = spec.precision().denseBytesPerParam();
        double routed = spec.precision().bytesPerParam();
        double weights = 0;
        double kv = 0;
        double state = 0;
        // The first stage holds the embedding and the last the LM head: with one stage, both.
        for (int stage = 0; stage < spec.pp(); stage++) {
            double w = (stage == 0 ? 1 : 0) * (double) m.vocab() * m.hidden() / spec.tp()
                    + (stage == spec.pp() - 1 ? 1 : 0) * (double) m.vocab() * m.hidden() / spec.tp();
            double experts = 0;
            double cachedTokens = 0;
            double stageState = 0;
            for (int l = stage * m.layers() / spec.pp(); l < (stage + 1) * m.layers() / spec.pp(); l++) {
                cachedTokens += m.attendedTokens(l, spec.context());
                stageState += m.isLinear(l) ? m.linear().sequenceBytesPerRank(spec.tp()) : 0;
                w += m.attentionParamsPerRank(l, spec.tp()) + mlpParams(spec, m.isMoe(l), false);
                experts += mlpParams(spec, m.isMoe(l), true);
            }
            Speculation drafting = spec.speculation();
            if (stage == spec.pp() - 1 && drafting.speculates()) {
                // The draft layers, on the last stage: MTP's every module (MoE where the model is) with its eh_proj, or EAGLE-3's
                // dense layer, fc and draft-vocabulary LM head; each keeps a KV cache of the whole context.
                boolean mtp = drafting.method() == Speculation.Method.MTP;
                int layers = mtp ? m.mtpLayers() : 1;
                boolean moe = mtp && m.experts() > 0;
                w += layers * (m.qkvParamsPerRank(spec.tp()) + m.outParamsPerRank(spec.tp()) + mlpParams(spec, moe, false)
                        + (mtp ? 2.0 : 3.0) * m.hidden() * m.hidden()) + (mtp ? 0 : (double) m.hidden() * Speculation.EAGLE_DRAFT_VOCAB / spec.tp());
                experts += layers * mlpParams(spec, moe, true);
                cachedTokens += layers * (double) spec.context();
            }
            weights = Math.max(weights, w * dense + experts * routed);
            kv = Math.max(kv, (double) spec.batch() * cachedTokens * m.kvElementsPerTokenPerRank(spec.tp()) * spec.kvBytes()
                    + (double) spec.batch() * cachedTokens * m.indexCacheBytesPerToken());
            state = Math.max(state, spec.batch() * stageState);
        }
        double buffers = spec.tp() > 1 ? tpChannels * 2 * NCCL_BUFFERS_PER_CHANNEL_PEER : 0;
        buffers += spec.expertsAllToAll() ? epPeers * NCCL_BUFFERS_PER_CHANNEL_PEER : 0;
        return new MemoryPlan(weights, kv, state, buffers, RESERVE, gpu.roofline().hbmBytes());
    }

    /**
     * A layer's MLP weights on the busiest GPU: its routed experts' ({@code routed}) or the rest (a dense MLP's 1/tp, a MoE
     * layer's shared experts and router). Under EP the busiest GPU holds ceil(E / ep) experts (256 on 72 GPUs: 4 on some),
     * or EPLB's (E + redundant) / ep slots, each a 1/moeTp slice.
     */
    private static double mlpParams(DecodeSpec spec, boolean moe, boolean routed) {
        ModelConfig m = spec.model();
        if (!moe) {
            return routed ? 0 : m.mlpParams(m.intermediate()) / spec.tp();
        }
        double expert = m.mlpParams(m.moeIntermediate());
        if (routed) {
            return spec.ep() > 1 ? spec.experts().slotsPerRank(m.experts(), spec.ep()) * expert / spec.moeTp() : m.experts() * expert / spec.tp();
        }
        return m.sharedExperts() * expert / (spec.expertsAllToAll() ? 1 : spec.tp()) + (double) m.hidden() * m.experts();
    }

    public double total() {
        return weightsBytes + kvBytes + stateBytes + buffersBytes + reserveBytes;
    }

    boolean fits() {
        return total() <= capacityBytes;
    }

    /** The one-line error when it does not fit, with a layout that would. */
    InputException error(DecodeSpec spec, String gpuName, String suggestion) {
        return new InputException(String.format(Locale.ROOT,
                "%s in %s with tp %d, pp %d, batch %d, context %d needs %.1f GiB per GPU (weights %.1f, KV cache %.1f,%s"
                        + " buffers %.1f, reserve %.1f) but a %s has %.1f GiB; %s",
                spec.model().name(), spec.precision().label(), spec.tp(), spec.pp(), spec.batch(), spec.context(), gib(total()),
                gib(weightsBytes), gib(kvBytes), stateBytes > 0 ? String.format(Locale.ROOT, " linear state %.1f,", gib(stateBytes)) : "",
                gib(buffersBytes), gib(reserveBytes), gpuName, gib(capacityBytes), suggestion));
    }

    static double gib(double bytes) {
        return bytes / (1L << 30);
    }
}
