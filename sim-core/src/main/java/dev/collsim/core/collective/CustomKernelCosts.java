package dev.collsim.core.collective;

import dev.collsim.core.units.Rate;
import dev.collsim.core.units.TimeSpan;

/**
 * What the inference engines' all-reduce kernels cost: they work on pre-registered buffers and
 * synchronise with one flag per peer instead of NCCL's per-step protocol.
 *
 * @param peerRate      what one block writes to one peer per second
 * @param flagLatency   from a block's last write until the peer sees its flag
 * @param phaseBarrier  what a two-shot kernel's block spends at the end of each phase before its
 *                      flags go out: a fence that makes its writes visible to the peers, and the
 *                      arrival count of all the rank's blocks (vLLM's fenced barrier between the
 *                      phases and its end barrier; TensorRT-LLM's two barriers). The one-shot kernel
 *                      has one unfenced end barrier, which the flag latency covers.
 * @param launchLatency from the call until the kernel works (a small kernel; under CUDA graphs)
 */
public record CustomKernelCosts(Rate peerRate, TimeSpan flagLatency, TimeSpan phaseBarrier, TimeSpan launchLatency) {

    /** The costs of one block's transfers in a kernel, in the runner's terms. */
    public ProtocolCosts perBlock(CustomAllReduceAlgorithm.Variant kernel) {
        return new ProtocolCosts(peerRate, kernel == CustomAllReduceAlgorithm.Variant.TWO_SHOT ? phaseBarrier : TimeSpan.ZERO,
                flagLatency);
    }

    /** A multimem kernel's switch step: NVLS's efficiency and rate, but one flag instead of NCCL's pipeline. */
    public NvlsCosts multimem(NvlsCosts nvls) {
        return new NvlsCosts(nvls.efficiency(), nvls.channelRate(), TimeSpan.ZERO, flagLatency, launchLatency, nvls.copyRate());
    }
}
