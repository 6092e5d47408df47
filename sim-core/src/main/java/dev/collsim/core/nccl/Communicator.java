package dev.collsim.core.nccl;

import dev.collsim.core.collective.CollectiveSimulator;
import dev.collsim.core.collective.HostLaunch;
import dev.collsim.core.collective.Protocol;
import dev.collsim.core.collective.ProtocolCosts;
import dev.collsim.core.collective.RingAlgorithm;
import dev.collsim.core.collective.RunResult;
import dev.collsim.core.collective.Schedule;
import dev.collsim.core.collective.TransferObserver;
import dev.collsim.core.fabric.Fabric;
import dev.collsim.core.units.TimeSpan;
import java.util.EnumMap;
import java.util.Map;

/**
 * A set of ranks on a fabric, with what NCCL would know of them: the GPU generation, the link type
 * inside the node, the ring graph its search finds, and what each protocol costs on these GPUs.
 *
 * @param name          the system's name, for reports
 * @param rankDevices   fabric device id of each rank's GPU, in rank order
 * @param protocolCosts per protocol, what one channel costs
 * @param hostLaunch    host-side cost of issuing a collective
 */
public record Communicator(String name, Fabric fabric, int[] rankDevices, int nNodes, NcclArch arch,
                           LinkType intraLink, RingGraph ring, Map<Protocol, ProtocolCosts> protocolCosts,
                           HostLaunch hostLaunch) {

    public Communicator {
        rankDevices = rankDevices.clone();
        protocolCosts = new EnumMap<>(protocolCosts);
        for (Protocol p : Protocol.values()) {
            if (!protocolCosts.containsKey(p)) {
                throw new IllegalArgumentException("no costs for protocol " + p.label());
            }
        }
    }

    public int nRanks() {
        return rankDevices.length;
    }

    public TunerInputs tunerInputs() {
        return new TunerInputs(nRanks(), nNodes, arch, intraLink, ring);
    }

    /** Builds the schedule a plan describes. */
    public Schedule schedule(Plan plan) {
        return RingAlgorithm.inRankOrder(nRanks()).schedule(plan.request());
    }

    /**
     * Simulates a planned collective chunk by chunk; the kernels start after NCCL's base latency
     * for the algorithm and protocol (launch and set-up).
     */
    public RunResult simulate(Plan plan, TransferObserver observer, boolean checkCapacity) {
        Protocol proto = plan.request().protocol();
        TimeSpan launch = TimeSpan.ofMicros(NcclTuner.baseLatencyMicros(plan.algo(), proto));
        return CollectiveSimulator.run(fabric, rankDevices, schedule(plan), protocolCosts.get(proto), launch,
                observer, checkCapacity);
    }
}
