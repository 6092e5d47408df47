package dev.collsim.core.nccl;

import dev.collsim.core.collective.CustomKernelCosts;
import dev.collsim.core.collective.HostLaunch;
import dev.collsim.core.collective.NvlsCosts;
import dev.collsim.core.collective.Protocol;
import dev.collsim.core.collective.ProtocolCosts;
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
 */
public record CostBook(Map<Protocol, ProtocolCosts> protocols, NvlsCosts nvls, NvlsCosts sharp, CustomKernelCosts custom,
                       HostLaunch hostLaunch) {
    public CostBook {
        protocols = new EnumMap<>(protocols);
        for (Protocol p : Protocol.values()) {
            if (!protocols.containsKey(p)) {
                throw new IllegalArgumentException("no costs for protocol " + p.label());
            }
        }
    }

    CostBook withoutNvls() {
        return new CostBook(protocols, null, sharp, custom, hostLaunch);
    }

    CostBook withoutSharp() {
        return new CostBook(protocols, nvls, null, custom, hostLaunch);
    }
}
