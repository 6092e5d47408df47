package dev.collsim.core.nccl;

import dev.collsim.core.collective.CustomKernelCosts;
import dev.collsim.core.collective.HostLaunch;
import dev.collsim.core.collective.NvlsCosts;
import dev.collsim.core.collective.Protocol;
import dev.collsim.core.collective.ProtocolCosts;
import dev.collsim.core.units.Rate;
import dev.collsim.core.units.TimeSpan;
import java.util.EnumMap;
import java.util.Map;

/**
 * What the steps of every kind of collective cost on these GPUs and this network.
 *
 * @param protocols per protocol, what one channel of a ring costs
 * @param nvls      what an NVLS step costs, or null where NVLS cannot run
 * @param sharp     what an in-network (SHARP) all-reduce costs, or null where the network cannot reduce
 * @param custom    what the inference engines' all-reduce kernels cost
 * @param hostLaunch host-side cost of issuing a collective
 * @param deviceCopy what the GPU's copy engine moves from one of its buffers to another (cudaMemcpyAsync,
 *                   device to device): a one-rank collective's copy
 * @param kernelStart what a ring, tree or PAT kernel of this GPU generation takes before its first step
 */
public record CostBook(Map<Protocol, ProtocolCosts> protocols, NvlsCosts nvls, NvlsCosts sharp, CustomKernelCosts custom,
                       HostLaunch hostLaunch, DeviceCopy deviceCopy, KernelStart kernelStart) {
    /**
     * What a ring, tree or PAT kernel takes before its first step, in a stream of back-to-back collectives.
     *
     * @param ringLl         a ring LL kernel's, where NCCL's tuner takes its ring LL base latency; other protocols and
     *                       algorithms add what NCCL's base latencies add to it
     * @param simpleMeasured what a Simple kernel takes beyond that: measured, where NCCL's base latencies give Simple only
     *                       1.8 us over LL
     */
    public record KernelStart(TimeSpan ringLl, TimeSpan simpleMeasured) {}

    /**
     * A copy inside one GPU's memory.
     *
     * @param rate  bytes copied per second (each byte read and written once)
     * @param fixed the copy's time beyond its bytes: the copy engine's start and the end of the operation on the stream
     */
    public record DeviceCopy(Rate rate, TimeSpan fixed) {}

    public CostBook {
        protocols = new EnumMap<>(protocols);
        for (Protocol p : Protocol.values()) {
            if (!protocols.containsKey(p)) {
                throw new IllegalArgumentException("no costs for protocol " + p.label());
            }
        }
    }

    CostBook withoutNvls() {
        return new CostBook(protocols, null, sharp, custom, hostLaunch, deviceCopy, kernelStart);
    }

    CostBook withoutSharp() {
        return new CostBook(protocols, nvls, null, custom, hostLaunch, deviceCopy, kernelStart);
    }
}
