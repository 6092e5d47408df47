package dev.collsim.core.collective;

import dev.collsim.core.units.TimeSpan;

/**
 * Host-side cost of issuing a collective, and what nccl-tests measures because of it.
 *
 * <p>nccl-tests times many back-to-back iterations and reports the average. Each iteration, each
 * host thread enqueues the collective on each GPU it drives ({@code -g G}): per GPU, one kernel
 * launch plus the work descriptors of every channel. The GPUs run iterations back to back while
 * the host enqueues the next ones, so in steady state an iteration takes the longer of the GPU's
 * time and the host thread's issue time. With {@code -g 8} the issue time of eight launches is a
 * floor of about 35 us that no NCCL constant explains.
 *
 * @param perLaunch  host time to enqueue one collective on one GPU
 * @param perChannel extra host time per channel of that collective
 */
public record HostLaunch(TimeSpan perLaunch, TimeSpan perChannel) {

    /** Steady-state time per iteration: the slower of the device and the host thread's issue time. */
    public long iterationPicos(long devicePicos, int gpusPerThread, int channels) {
        return Math.max(devicePicos, gpusPerThread * (perLaunch.picos() + channels * perChannel.picos()));
    }
}
