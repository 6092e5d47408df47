package dev.collsim.topologies.systems;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.core.collective.CollectiveOp;
import dev.collsim.core.collective.LinkLoads;
import dev.collsim.core.collective.Protocol;
import dev.collsim.core.collective.RunResult;
import dev.collsim.core.nccl.AlgorithmId;
import dev.collsim.core.nccl.Communicator;
import dev.collsim.core.nccl.NcclPlanner;
import dev.collsim.core.nccl.Plan;
import dev.collsim.topologies.catalog.NetworkPreset;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;

/**
 * Each link's load over a run, as the flow network rated it, never exceeds the link's rate, and its
 * integral over time is what crossed the link: where flows hand over on a link (one ending as the
 * next speeds up), the load is the sum of what each gets at that moment, not of their averages.
 */
class LinkLoadsTest {
    private static void addsUp(Communicator c, AlgorithmId algo, long bytes) {
        Plan plan = NcclPlanner.plan(c, CollectiveOp.ALL_REDUCE, bytes, 0, EnumSet.of(algo), EnumSet.of(Protocol.SIMPLE), 0);
        LinkLoads loads = new LinkLoads(c.fabric().links().size());
        RunResult r = c.simulate(plan, c.schedule(plan), loads, false);
        int crossed = 0;
        for (int l = 0; l < r.linkBytes().length; l++) {
            double rate = c.fabric().link(l).rate().bytesPerSecond();
            for (int i = 0; i < loads.steps(l); i++) {
                assertTrue(loads.load(l, i) <= rate * (1 + 1e-9), "link " + l + " at " + loads.stepPicos(l, i) + " ps: "
                        + loads.load(l, i) / rate * 100 + " %");
            }
            assertEquals(r.linkBytes()[l], loads.bytes(l), 1e-6 * r.linkBytes()[l] + 1, "bytes over link " + l);
            crossed += r.linkBytes()[l] > 0 ? 1 : 0;
        }
        assertTrue(crossed > 0);
        // The load ends at zero on every link, as every flow has ended.
        for (int l = 0; l < r.linkBytes().length; l++) {
            if (loads.steps(l) > 0) {
                assertEquals(0, loads.load(l, loads.steps(l) - 1), 1e-3 * c.fabric().link(l).rate().bytesPerSecond());
            }
        }
    }

    @Test
    void aRingInsideANodeAddsUp() {
        addsUp(SystemPreset.HGX_H100.build(1, 8, null, WhatIf.NONE), AlgorithmId.RING, 64L << 20);
    }

    @Test
    void nvlsSwitchOperationsAddUp() {
        addsUp(SystemPreset.HGX_H100.build(1, 8, null, WhatIf.NONE), AlgorithmId.NVLS, 64L << 20);
    }

    @Test
    void aRingAcrossNodesAddsUpOnTheNetworkToo() {
        addsUp(SystemPreset.HGX_H100.build(2, 8, NetworkPreset.IB_NDR, WhatIf.NONE), AlgorithmId.RING, 16L << 20);
    }
}
