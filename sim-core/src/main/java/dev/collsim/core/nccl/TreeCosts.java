package dev.collsim.core.nccl;

import dev.collsim.core.collective.Protocol;
import dev.collsim.core.collective.ProtocolCosts;
import dev.collsim.core.units.Rate;
import dev.collsim.core.units.TimeSpan;

/**
 * What a channel of NCCL's tree costs, from what a ring's costs. The step costs are calibrated on
 * rings, where they sum to NCCL's ring latencies ({@code hwLat[..][Ring]}); a tree step costs NCCL's
 * tree latencies instead ({@code hwLat[NVLINK][Tree]}: LL 0.6, LL128 1.25, Simple 4 us; {@code
 * hwLat[NET][Tree]}: LL 5, LL128 8.5, Simple 14 us), which take in what the tree does at each hop
 * (up to three peers a step, across nodes the proxy serving three connections). Under LL128 a tree
 * channel moves what NCCL's {@code perChMaxTreeLL128Bws} allows for the node count, against the
 * ring's {@code perChMaxRingLL128Bws} that sets the ring channel's rate (on Hopper 29 against 36.7
 * GB/s from four nodes; on Blackwell 31.67 on two nodes and 20 from four, against 40).
 */
final class TreeCosts {
    private TreeCosts() {}

    static ProtocolCosts of(ProtocolCosts ring, Protocol p, NcclArch arch, int nNodes) {
        double nvlinkExtra = NcclTuner.hwLatencyMicros(arch, LinkType.NVLINK, NcclAlgo.TREE, p)
                - NcclTuner.hwLatencyMicros(arch, LinkType.NVLINK, NcclAlgo.RING, p);
        // Network steps as NCCL's table has them on every GPU (RCCL's tuner prices its Simple ring step at 320 us, a price).
        double netExtra = NcclTuner.hwLatencyMicros(LinkType.NET, NcclAlgo.TREE, p)
                - NcclTuner.hwLatencyMicros(LinkType.NET, NcclAlgo.RING, p) - nvlinkExtra;
        Rate rate = ring.channelRate();
        if (p == Protocol.LL128 && !arch.rccl()) {
            rate = rate.times(arch.perChannelMaxTreeLL128Bw(nNodes) / arch.perChannelMaxRingLL128Bw(1));
        }
        return new ProtocolCosts(rate, ring.sendOverhead(), plus(ring.notifyLatency(), nvlinkExtra),
                plus(ring.netLatency(), netExtra), ring.proxyPost(), ring.proxyReceive(), ring.localCopyRate());
    }

    private static TimeSpan plus(TimeSpan t, double micros) {
        return new TimeSpan(Math.max(0, t.picos() + Math.round(micros * TimeSpan.PICOS_PER_MICRO)));
    }
}
