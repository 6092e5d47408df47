package dev.collsim.topologies.systems;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.core.collective.CollectiveOp;
import dev.collsim.core.collective.CollectiveRun;
import dev.collsim.core.collective.CollectiveSimulator;
import dev.collsim.core.collective.Protocol;
import dev.collsim.core.collective.RunResult;
import dev.collsim.core.nccl.AlgorithmId;
import dev.collsim.core.nccl.Communicator;
import dev.collsim.core.nccl.NcclPlanner;
import dev.collsim.core.units.Rate;
import dev.collsim.topologies.catalog.GpuModel;
import dev.collsim.topologies.catalog.NetworkPreset;
import dev.collsim.topologies.file.TopoMatrixImport;
import dev.collsim.topologies.file.TopologyFile;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Collectives run together on one engine and flow network contend where they share links and
 * nowhere else: on two HGX H100 nodes whose GPU pairs share a NIC
 * (topologies/hgx-h100-4nic.topo-m.txt), an all_reduce between the nodes' GPU 0s slows beside one
 * between their GPU 1s, which share GPU 0's NIC, and takes exactly what it takes alone beside one
 * between their GPU 2s, which leave through another NIC.
 */
class CollectivesTogetherTest {
    private static FabricSystem twoNodes() throws Exception {
        String yaml = TopoMatrixImport.toYaml(Files.readAllLines(Path.of("../topologies/hgx-h100-4nic.topo-m.txt")), "4nic",
                GpuModel.H100_SXM, new TopoMatrixImport.Rates(Rate.gigabytesPerSecond(20.6), Rate.gigabytesPerSecond(54.4),
                        Rate.gigabytesPerSecond(40)));
        return NodeCopies.join(TopologyFile.readSystem(new StringReader(yaml), "4nic.yaml"), 2, NetworkPreset.IB_NDR, WhatIf.NONE);
    }

    private static CollectiveRun allReduce(Communicator c) {
        return c.collectiveRun(NcclPlanner.plan(c, CollectiveOp.ALL_REDUCE, 64L << 20, 0, EnumSet.of(AlgorithmId.RING),
                EnumSet.of(Protocol.SIMPLE), 0));
    }

    @Test
    void theyContendWhereTheyShareALinkAndNowhereElse() throws Exception {
        FabricSystem system = twoNodes();
        Communicator gpu0s = system.of(0, 8);
        Communicator gpu1s = system.of(1, 9);
        Communicator gpu2s = system.of(2, 10);
        long alone = CollectiveSimulator.runTogether(List.of(allReduce(gpu0s))).get(0).durationPicos();
        assertEquals(gpu0s.simulate(NcclPlanner.plan(gpu0s, CollectiveOp.ALL_REDUCE, 64L << 20, 0, EnumSet.of(AlgorithmId.RING),
                EnumSet.of(Protocol.SIMPLE), 0), null, false).durationPicos(), alone, "alone, together is the plain run");
        List<RunResult> sharing = CollectiveSimulator.runTogether(List.of(allReduce(gpu0s), allReduce(gpu1s)));
        assertTrue(sharing.get(0).durationPicos() > 1.5 * alone, sharing.get(0).durationPicos() + " ps beside GPU 1s, " + alone + " alone");
        assertEquals(sharing.get(0).durationPicos(), sharing.get(1).durationPicos(), "the two share the NIC alike");
        List<RunResult> apart = CollectiveSimulator.runTogether(List.of(allReduce(gpu0s), allReduce(gpu2s)));
        assertEquals(alone, apart.get(0).durationPicos(), "beside GPU 2s, which leave through another NIC");
    }
}
