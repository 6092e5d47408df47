package dev.collsim.topologies.systems;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.core.collective.CollectiveOp;
import dev.collsim.core.collective.Protocol;
import dev.collsim.core.input.InputException;
import dev.collsim.core.nccl.AlgorithmId;
import dev.collsim.core.nccl.Communicator;
import dev.collsim.core.nccl.LinkType;
import dev.collsim.core.nccl.NcclPlanner;
import dev.collsim.core.nccl.Plan;
import dev.collsim.topologies.view.TopoMatrix;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;

class PcieServerTest {
    private static Communicator box(SystemPreset preset) {
        return preset.build(1, preset.gpusPerNode(), null, WhatIf.NONE);
    }

    private static String label(Communicator c, int a, int b) {
        return TopoMatrix.label(c.fabric(), c.placement().devices()[a], c.placement().devices()[b]);
    }

    @Test
    void eightGpusUnderFourSwitchesOnTwoSockets() {
        Communicator c = box(SystemPreset.PCIE_L40S_8X);
        assertEquals(8, c.nRanks());
        assertEquals("PIX", label(c, 0, 1));
        assertEquals("PHB", label(c, 0, 2));
        assertEquals("SYS", label(c, 0, 4));
        assertEquals(LinkType.PCI, c.nccl().intraLink());
        assertNull(c.placement().host(), "L40S reaches its peers over PCIe");
        assertNull(c.nccl().nvlsGraph());
    }

    @Test
    void geforceCardsStageThroughTheNearestSocketsMemory() {
        Communicator c = box(SystemPreset.PCIE_4090_8X);
        assertNotNull(c.placement().host());
        assertEquals("cpu0", c.fabric().device(c.placement().host().shm()[0]).name());
        assertEquals("cpu1", c.fabric().device(c.placement().host().shm()[7]).name());
    }

    /** The same 8-GPU tree: without peer access the ring's bytes climb to host memory and back, far slower. */
    @Test
    void withoutPeerToPeerAnAllReduceIsFarSlower() {
        double p2p = busBw(box(SystemPreset.PCIE_L40S_8X));
        double shm = busBw(box(SystemPreset.PCIE_4090_8X));
        assertTrue(shm < p2p / 2, "SHM " + shm + " GB/s against P2P " + p2p + " GB/s");
    }

    /**
     * Inside one socket Gen5 doubles what Gen4 gives the same H100 PCIe cards; across both sockets the
     * ring crosses the 40 GB/s socket link, which caps Gen5 and not Gen4 (27.2 GB/s per link).
     */
    @Test
    void pcieGenerationSetsTheRingsBandwidthUntilTheSocketLinkCapsIt() {
        double gen5 = busBw(SystemPreset.PCIE_H100_8X.build(1, 4, null, WhatIf.NONE));
        double gen4 = busBw(SystemPreset.PCIE_H100_8X_GEN4.build(1, 4, null, WhatIf.NONE));
        assertEquals(2, gen5 / gen4, 0.1);
        double gen5Both = busBw(box(SystemPreset.PCIE_H100_8X));
        double gen4Both = busBw(box(SystemPreset.PCIE_H100_8X_GEN4));
        assertEquals(40 / 27.2, gen5Both / gen4Both, 0.1);
    }

    @Test
    void aPcieServerIsOneNode() {
        InputException e = assertThrows(InputException.class,
                () -> SystemPreset.PCIE_L40S_8X.build(2, 8, null, WhatIf.NONE));
        assertTrue(e.getMessage().contains("--topology"), e.getMessage());
    }

    private static double busBw(Communicator c) {
        long bytes = 256L << 20;
        Plan plan = NcclPlanner.plan(c, CollectiveOp.ALL_REDUCE, bytes, 0, EnumSet.of(AlgorithmId.RING), EnumSet.allOf(Protocol.class), 0);
        double seconds = c.simulate(plan, null, false).durationPicos() / 1e12;
        return bytes / seconds / 1e9 * CollectiveOp.ALL_REDUCE.busBandwidthFactor(c.nRanks());
    }

    /** Staged transfers keep the collectives correct: through host memory inside a node and, without GPUDirect, across nodes. */
    @Test
    void stagedCollectivesStayCorrect() {
        WhatIf noGdr = new WhatIf(null, 0, 1, 1, false, java.util.Map.of(), java.util.Map.of(), java.util.List.of());
        for (Communicator c : java.util.List.of(box(SystemPreset.PCIE_4090_8X),
                SystemPreset.HGX_H100.build(2, 2, null, noGdr))) {
            for (AlgorithmId algo : java.util.List.of(AlgorithmId.RING, AlgorithmId.TREE)) {
                Plan plan = NcclPlanner.plan(c, CollectiveOp.ALL_REDUCE, 8L << 20, 0, EnumSet.of(algo), EnumSet.of(Protocol.SIMPLE), 0);
                var schedule = c.schedule(plan);
                var tracker = new dev.collsim.core.collective.ContributionTracker(schedule);
                c.simulate(plan, tracker, true);
                assertEquals(java.util.List.of(), tracker.verify(), c.name() + " " + algo);
            }
        }
    }
}
