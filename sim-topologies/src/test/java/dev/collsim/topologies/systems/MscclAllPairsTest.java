package dev.collsim.topologies.systems;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.core.collective.CollectiveOp;
import dev.collsim.core.collective.ContributionTracker;
import dev.collsim.core.collective.Protocol;
import dev.collsim.core.collective.RunResult;
import dev.collsim.core.collective.Schedule;
import dev.collsim.core.fabric.Link;
import dev.collsim.core.fabric.LinkTechnology;
import dev.collsim.core.input.InputException;
import dev.collsim.core.nccl.AlgorithmId;
import dev.collsim.core.nccl.Communicator;
import dev.collsim.core.nccl.MscclAllPairs;
import dev.collsim.core.nccl.NcclPlanner;
import dev.collsim.core.nccl.Payload;
import dev.collsim.core.nccl.Plan;
import dev.collsim.topologies.catalog.NetworkPreset;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * RCCL's MSCCL all-pairs all-reduce: taken where RCCL's scheduler takes it (one node of eight Instinct GPUs on their
 * xGMI mesh, its three algorithms' size ranges, whole passes of elements, no FP8 or averaging), left to the tuner
 * elsewhere, and its schedule sums every rank's input into every rank's output with each link direction carrying the
 * same bytes.
 */
class MscclAllPairsTest {
    private static final Communicator MI300X = SystemPreset.MI300X_8X.build(1, 8, null, WhatIf.NONE);

    private static Plan plan(Communicator comm, long bytes, Payload payload, Set<AlgorithmId> algos, Set<Protocol> protos) {
        return NcclPlanner.plan(comm, CollectiveOp.ALL_REDUCE, bytes, 0, algos, protos, 0, payload);
    }

    private static Plan auto(Communicator comm, long bytes, Payload payload) {
        return plan(comm, bytes, payload, EnumSet.allOf(AlgorithmId.class), EnumSet.allOf(Protocol.class));
    }

    @Test
    void theAlgorithmsSizeRangesPickProtocolAndChannels() {
        assertEquals(new MscclAllPairs.Choice(Protocol.LL, 4), MscclAllPairs.choose(MI300X, CollectiveOp.ALL_REDUCE, 1024, Payload.FLOAT_SUM));
        assertEquals(new MscclAllPairs.Choice(Protocol.LL, 4), MscclAllPairs.choose(MI300X, CollectiveOp.ALL_REDUCE, 64 << 10, Payload.FLOAT_SUM));
        assertEquals(new MscclAllPairs.Choice(Protocol.LL, 8), MscclAllPairs.choose(MI300X, CollectiveOp.ALL_REDUCE, 128 << 10, Payload.FLOAT_SUM));
        assertEquals(new MscclAllPairs.Choice(Protocol.SIMPLE, 8), MscclAllPairs.choose(MI300X, CollectiveOp.ALL_REDUCE, 512 << 10, Payload.FLOAT_SUM));
        assertEquals(new MscclAllPairs.Choice(Protocol.SIMPLE, 8), MscclAllPairs.choose(MI300X, CollectiveOp.ALL_REDUCE, 20 << 20, Payload.FLOAT_SUM));
        // Beyond 20 MiB, and below one pass of 256 floats, the tuner's ring runs.
        assertNull(MscclAllPairs.choose(MI300X, CollectiveOp.ALL_REDUCE, 32 << 20, Payload.FLOAT_SUM));
        assertNull(MscclAllPairs.choose(MI300X, CollectiveOp.ALL_REDUCE, 512, Payload.FLOAT_SUM));
        assertEquals(AlgorithmId.RING, auto(MI300X, 512, Payload.FLOAT_SUM).algo());
        assertEquals(AlgorithmId.RING, auto(MI300X, 32 << 20, Payload.FLOAT_SUM).algo());
        Plan msccl = auto(MI300X, 1 << 20, Payload.FLOAT_SUM);
        assertEquals(AlgorithmId.ALL_PAIRS, msccl.algo());
        assertEquals(Protocol.SIMPLE, msccl.request().protocol());
        assertEquals(8, msccl.request().channels());
    }

    @Test
    void payloadsRcclKeepsFromMscclGoToTheTuner() {
        assertNull(MscclAllPairs.choose(MI300X, CollectiveOp.ALL_REDUCE, 1 << 20, new Payload(1, false, true, false)));
        assertNull(MscclAllPairs.choose(MI300X, CollectiveOp.ALL_REDUCE, 1 << 20, new Payload(4, false, false, true)));
        assertEquals(Protocol.SIMPLE, MscclAllPairs.choose(MI300X, CollectiveOp.ALL_REDUCE, 8 << 20, Payload.BF16_SUM).protocol());
        assertNull(MscclAllPairs.choose(MI300X, CollectiveOp.ALL_REDUCE, 16 << 20, Payload.BF16_SUM));
        // 6 KiB is six passes of 256 floats; 128 KiB and 1 KiB more is no whole number of passes of 512.
        assertEquals(Protocol.LL, MscclAllPairs.choose(MI300X, CollectiveOp.ALL_REDUCE, 6 << 10, Payload.FLOAT_SUM).protocol());
        assertNull(MscclAllPairs.choose(MI300X, CollectiveOp.ALL_REDUCE, (128 << 10) + 1024, Payload.FLOAT_SUM));
        assertNull(MscclAllPairs.choose(MI300X, CollectiveOp.ALL_GATHER, 1 << 20, Payload.FLOAT_SUM));
    }

    @Test
    void onlyOneEightGpuInstinctMeshTurnsMscclOn() {
        Communicator h100 = SystemPreset.HGX_H100.build(1, 8, null, WhatIf.NONE);
        Communicator fourGpus = SystemPreset.MI300X_8X.build(1, 4, null, WhatIf.NONE);
        Communicator twoNodes = SystemPreset.MI355X_8X.build(2, 8, NetworkPreset.ROCE, WhatIf.NONE);
        for (Communicator c : new Communicator[] {h100, fourGpus, twoNodes}) {
            assertNull(MscclAllPairs.choose(c, CollectiveOp.ALL_REDUCE, 1 << 20, Payload.FLOAT_SUM), c.name());
            assertTrue(auto(c, 1 << 20, Payload.FLOAT_SUM).algo() != AlgorithmId.ALL_PAIRS, c.name());
        }
        InputException e = assertThrows(InputException.class, () -> plan(h100, 1 << 20, Payload.FLOAT_SUM,
                EnumSet.of(AlgorithmId.ALL_PAIRS), EnumSet.allOf(Protocol.class)));
        assertTrue(e.getMessage().contains("one node of 8 Instinct GPUs"), e.getMessage());
    }

    @Test
    void namingAlgorithmsOrProtocolsThatLeaveMscclOutRunsTheTuners() {
        assertEquals(AlgorithmId.RING, plan(MI300X, 1 << 20, Payload.FLOAT_SUM, EnumSet.of(AlgorithmId.RING),
                EnumSet.allOf(Protocol.class)).algo());
        Plan ll = plan(MI300X, 1 << 20, Payload.FLOAT_SUM, EnumSet.allOf(AlgorithmId.class), EnumSet.of(Protocol.LL));
        assertTrue(ll.algo() != AlgorithmId.ALL_PAIRS);
        assertEquals(Protocol.LL, ll.request().protocol());
    }

    @Test
    void everyRankEndsWithTheSumAndEveryLinkDirectionCarriesTwoEighthsOfTheData() {
        for (long bytes : new long[] {1024, 256 << 10, 16 << 20}) {
            Plan plan = plan(MI300X, bytes, Payload.FLOAT_SUM, EnumSet.of(AlgorithmId.ALL_PAIRS), EnumSet.allOf(Protocol.class));
            Schedule s = MI300X.schedule(plan);
            ContributionTracker tracker = new ContributionTracker(s);
            RunResult r = MI300X.simulate(plan, s, tracker, true);
            assertTrue(tracker.verify().isEmpty(), bytes + " B: " + tracker.verify());
            for (Link l : MI300X.fabric().links()) {
                if (l.technology() == LinkTechnology.XGMI) {
                    // Wire bytes: LL sends each 8 bytes of data in a 16-byte line.
                    assertEquals(2 * bytes / 8 / plan.request().protocol().wireEfficiency(), r.linkBytes()[l.id()], 64,
                            bytes + " B on " + l.id());
                }
            }
        }
    }

    @Test
    void twoStepsBeatTheRingsFourteenWhereRcclTakesThem() {
        for (long bytes : new long[] {1 << 20, 8 << 20}) {
            double allPairs = MI300X.simulate(auto(MI300X, bytes, Payload.FLOAT_SUM), null, false).durationMicros();
            double ring = MI300X.simulate(plan(MI300X, bytes, Payload.FLOAT_SUM, EnumSet.of(AlgorithmId.RING),
                    EnumSet.of(Protocol.SIMPLE)), null, false).durationMicros();
            assertTrue(allPairs < ring, bytes + " B: all-pairs " + allPairs + " us, ring " + ring + " us");
        }
    }
}
