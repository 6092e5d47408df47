package dev.collsim.topologies.systems;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.core.collective.CollectiveOp;
import dev.collsim.core.collective.CollectiveRun;
import dev.collsim.core.collective.CollectiveSimulator;
import dev.collsim.core.collective.Protocol;
import dev.collsim.core.collective.RunResult;
import dev.collsim.core.collective.SharedFabric;
import dev.collsim.core.engine.Engine;
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

    /**
     * Started by events on a shared engine: one that starts as the other ends takes what it takes
     * alone, ending at twice that; one that starts halfway through the other's run slows it, but less
     * than starting together does.
     */
    @Test
    void runsStartedLaterContendOnlyWhileTheyOverlap() throws Exception {
        FabricSystem system = twoNodes();
        Communicator gpu0s = system.of(0, 8);
        Communicator gpu1s = system.of(1, 9);
        long alone = CollectiveSimulator.runTogether(List.of(allReduce(gpu0s))).get(0).durationPicos();
        long together = CollectiveSimulator.runTogether(List.of(allReduce(gpu0s), allReduce(gpu1s))).get(0).durationPicos();
        long[] ends = staggered(gpu0s, gpu1s, alone);
        assertEquals(alone, ends[0]);
        assertEquals(2 * alone, ends[1], "started as the first ended");
        long[] overlapping = staggered(gpu0s, gpu1s, alone / 2);
        assertTrue(overlapping[0] > alone && overlapping[0] < together, overlapping[0] + " ps, alone " + alone + ", together " + together);
        assertTrue(overlapping[1] > alone / 2 + alone, "the second slowed too: ends at " + overlapping[1]);
    }

    /** The first run starts at 0, the second at {@code later}; when each ended. */
    private static long[] staggered(Communicator first, Communicator second, long later) {
        Engine engine = new Engine();
        SharedFabric shared = new SharedFabric(engine, first.fabric());
        int a = shared.add(allReduce(first));
        int b = shared.add(allReduce(second));
        long[] ends = new long[2];
        shared.start(a, () -> ends[0] = engine.now());
        engine.schedule(later, () -> shared.start(b, () -> ends[1] = engine.now()));
        engine.run();
        assertEquals(ends[0], shared.result(a).durationPicos());
        assertEquals(ends[1] - later, shared.result(b).durationPicos());
        return ends;
    }
}
