package dev.collsim.core.collective;

import dev.collsim.core.units.Rate;
import dev.collsim.core.units.TimeSpan;

/**
 * What an NVLS step costs on one GPU generation and its NVSwitch.
 *
 * @param efficiency    payload per wire byte of multimem traffic (NCCL's {@code nvlsEfficiency}:
 *                      Hopper 0.85, Blackwell 0.74)
 * @param channelRate   the most data one channel moves up (or down) its GPU's links per second
 * @param stepOverhead  time a channel is busy after each step (flag exchange between its warp groups)
 * @param notifyLatency from the end of that overhead until the result is in every rank's output
 *                      (gather copy and flags), on top of the route's latency
 * @param launchLatency from the collective's start until its kernels begin work (launch, set-up of
 *                      the multicast buffers' flags)
 * @param copyRate      what one channel's scatter (or gather) warps copy per second between the user
 *                      buffer and the NVLS buffers, in the GPU's own memory
 */
public record NvlsCosts(double efficiency, Rate channelRate, TimeSpan stepOverhead, TimeSpan notifyLatency,
                        TimeSpan launchLatency, Rate copyRate) {
    public NvlsCosts {
        if (!(efficiency > 0 && efficiency <= 1)) {
            throw new IllegalArgumentException("NVLS efficiency must be in (0, 1], got " + efficiency);
        }
    }
}
