package dev.collsim.core.collective;

import dev.collsim.core.units.Rate;
import dev.collsim.core.units.TimeSpan;

/**
 * What the inference engines' all-reduce kernels cost: they work on pre-registered buffers and
 * synchronise with one flag per peer instead of NCCL's per-step protocol.
 *
 * @param peerRate      what one block writes to one peer per second
 * @param flagLatency   from a block's last write until the peer sees its flag
 * @param launchLatency from the call until the kernel works (a small kernel; under CUDA graphs)
 */
public record CustomKernelCosts(Rate peerRate, TimeSpan flagLatency, TimeSpan launchLatency) {

    /** The costs of one block's transfers, in the runner's terms. */
    public ProtocolCosts perBlock() {
        return new ProtocolCosts(peerRate, TimeSpan.ZERO, flagLatency);
    }

    /** A multimem kernel's switch step: NVLS's efficiency and rate, but one flag instead of NCCL's pipeline. */
    public NvlsCosts multimem(NvlsCosts nvls) {
        return new NvlsCosts(nvls.efficiency(), nvls.channelRate(), TimeSpan.ZERO, flagLatency, launchLatency, nvls.copyRate());
    }
}
