package dev.collsim.topologies.systems;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.core.collective.CollectiveOp;
import dev.collsim.core.collective.Protocol;
import dev.collsim.core.collective.RunResult;
import dev.collsim.core.fabric.LinkEdit;
import dev.collsim.core.nccl.AlgorithmId;
import dev.collsim.core.nccl.Communicator;
import dev.collsim.core.nccl.NcclPlanner;
import dev.collsim.core.nccl.Plan;
import dev.collsim.core.units.Rate;
import dev.collsim.core.units.TimeSpan;
import dev.collsim.topologies.catalog.NetworkPreset;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A ring run folded to one orbit of ranks gives the whole run's duration to the picosecond and every
 * link's bytes to the byte, where the fold is taken; where the fabric or the sizes are not the same
 * for every rank, the whole schedule runs.
 */
class FoldedRunTest {
    private static final List<CollectiveOp> OPS = List.of(CollectiveOp.ALL_REDUCE, CollectiveOp.ALL_GATHER, CollectiveOp.REDUCE_SCATTER);

    private static Communicator flat(int gpus, double gbps, double latencyMicros) {
        return new FlatSwitch(gpus, Rate.gigabytesPerSecond(gbps), TimeSpan.ofMicros(latencyMicros)).system().communicator();
    }

    /** The folded run (no observer: the fold may be taken) against the whole schedule run as it is; whether it folded. */
    private static boolean foldedMatchesWhole(Communicator c, CollectiveOp op, long bytes, Protocol proto) {
        return foldedMatchesWhole(c, op, bytes, proto, AlgorithmId.RING);
    }

    private static boolean foldedMatchesWhole(Communicator c, CollectiveOp op, long bytes, Protocol proto, AlgorithmId algo) {
        Plan plan = NcclPlanner.plan(c, op, bytes, 0, EnumSet.of(algo), EnumSet.of(proto), 0);
        RunResult folded = c.simulate(plan, null, false);
        RunResult whole = c.simulate(plan, c.schedule(plan), null, false);
        String what = op.ncclName() + " of " + bytes + " B under " + proto + " on " + c.nRanks() + " ranks";
        assertEquals(whole.durationPicos(), folded.durationPicos(), what);
        assertArrayEquals(whole.linkBytes(), folded.linkBytes(), what);
        return folded.schedule().transferCount() < whole.schedule().transferCount();
    }

    @Test
    void aFoldedRingOnAFlatSwitchIsTheWholeRunToThePicosecond() {
        int foldedRuns = 0;
        for (int gpus : new int[] {2, 3, 4, 8, 12}) {
            Communicator c = flat(gpus, 25 + gpus, 0.5 + gpus / 10.0);
            for (CollectiveOp op : OPS) {
                for (long perRank : new long[] {1, 1 << 10, 96 << 10, 1 << 20, 9 << 20}) {
                    for (Protocol proto : Protocol.values()) {
                        if (foldedMatchesWhole(c, op, perRank * gpus * 16, proto)) {
                            foldedRuns++;
                        }
                    }
                }
            }
        }
        // Most of these sizes cut into blocks of one length, so most runs must have folded.
        assertTrue(foldedRuns > 100, foldedRuns + " runs folded");
    }

    @Test
    void aRingInsideAnNvSwitchNodeFoldsToo() {
        Communicator c = SystemPreset.HGX_H100.build(1, 8, null, WhatIf.NONE);
        for (CollectiveOp op : OPS) {
            assertTrue(foldedMatchesWhole(c, op, 64L << 20, Protocol.SIMPLE), op.ncclName());
            assertTrue(foldedMatchesWhole(c, op, 8L << 10, Protocol.LL), op.ncclName());
        }
    }

    /** NVLS-Tree across HGX nodes, folded to one head's orbit: every node's GPU j does what its GPU j - 1 does, for the next chunk. */
    @Test
    void nvlsTreeAcrossNodesFoldsByLocalIndex() {
        for (int nodes : new int[] {2, 3, 5}) {
            Communicator c = SystemPreset.HGX_H100.build(nodes, 8, NetworkPreset.IB_NDR, WhatIf.NONE);
            for (long bytes : new long[] {1L << 20, 96L << 20}) {
                assertTrue(foldedMatchesWhole(c, CollectiveOp.ALL_REDUCE, bytes, Protocol.SIMPLE, AlgorithmId.NVLS_TREE),
                        nodes + " nodes, " + bytes + " B");
            }
            // A size whose last step leaves some heads' chunks shorter than others' runs whole.
            assertEquals(false, foldedMatchesWhole(c, CollectiveOp.ALL_REDUCE, 1_000_000, Protocol.SIMPLE, AlgorithmId.NVLS_TREE));
        }
    }

    @Test
    void unevenSizesAndUnevenFabricsRunWhole() {
        Communicator c = flat(8, 50, 1);
        // 8 B on 8 ranks: blocks of 16 B for some ranks and none for others.
        assertEquals(false, foldedMatchesWhole(c, CollectiveOp.ALL_REDUCE, 8, Protocol.SIMPLE));
        // One GPU's NIC at half its rate: no turn maps the fabric onto itself.
        Communicator degraded = c.withLinkEdits(List.of(new LinkEdit("n3.nic0", "switch", 0.5)));
        assertEquals(false, foldedMatchesWhole(degraded, CollectiveOp.ALL_REDUCE, 64L << 20, Protocol.SIMPLE));
        // Across HGX nodes the rings leave each node through different NICs.
        Communicator twoNodes = SystemPreset.HGX_H100.build(2, 8, NetworkPreset.IB_NDR, WhatIf.NONE);
        foldedMatchesWhole(twoNodes, CollectiveOp.ALL_REDUCE, 64L << 20, Protocol.SIMPLE);
    }
}
