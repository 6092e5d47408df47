package dev.collsim.scenarios.bench;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.core.collective.CollectiveOp;
import dev.collsim.core.collective.Protocol;
import dev.collsim.core.input.InputException;
import dev.collsim.core.nccl.AlgorithmId;
import dev.collsim.core.nccl.NcclVersion;
import dev.collsim.core.nccl.Selection;
import dev.collsim.topologies.systems.WhatIf;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;

/** Bench's estimate of a run's transfers, time and memory, and the runs it refuses without --force. */
class BenchEstimateTest {
    private static BenchSpec allReduce(int nodes, long bytes) {
        return allReduce(nodes, bytes, "auto");
    }

    private static BenchSpec allReduce(int nodes, long bytes, String algo) {
        return new BenchSpec(CollectiveOp.ALL_REDUCE, "hgx-h100", null, nodes, 8, null, WhatIf.NONE, 1, DataType.FLOAT,
                ReduceOp.SUM, 0, new SizeSweep(bytes, bytes, 2, 1),
                Selection.parse(algo, AlgorithmId.class, AlgorithmId::label, "algorithm"),
                EnumSet.allOf(Protocol.class), 0, true, false, NcclVersion.NEWEST);
    }

    /** A ring's transfers cost less here than a tree's counted ones: each is weighted by what it was measured to take. */
    @Test
    void ringAndTreeRunsAreWeightedByWhatTheirTransfersCostHere() {
        BenchSpec ring = allReduce(16, 1L << 30, "ring");
        Bench.Estimate r = Bench.estimate(ring, Bench.communicator(ring));
        assertEquals(r.transfers() * Bench.RING_WEIGHT / Bench.TRANSFERS_PER_SECOND, r.seconds(), 1e-9);
        assertEquals(r.transfers() * Bench.BYTES_PER_WORKED_OUT_TRANSFER, r.bytes(), 1e-3);
        BenchSpec tree = allReduce(16, 1L << 30, "tree");
        Bench.Estimate t = Bench.estimate(tree, Bench.communicator(tree));
        assertEquals(t.transfers() * Bench.TREE_WEIGHT / Bench.TRANSFERS_PER_SECOND, t.seconds(), 1e-9);
        assertTrue(Bench.RING_WEIGHT < 1 && Bench.TREE_WEIGHT > 1);
    }

    /**
     * 8 nodes at 1 GiB run NVLS-Tree in 512 KiB steps: 64 ranks x 2 x 2,048 steps, each at the
     * in-switch weight and NVLS-Tree's memory; folded to one head's orbit (every node's 8 GPUs alike),
     * an eighth of them are simulated, and all of them when the run is stochastic.
     */
    @Test
    void anNvlsTreeRunIsCountedInProtocolStepsAtTheInSwitchWeight() {
        BenchSpec spec = allReduce(8, 1L << 30);
        Bench.Estimate whole = Bench.estimate(spec, Bench.communicator(spec), false);
        assertEquals(64 * 4096, whole.transfers());
        assertEquals(64 * 4096 * Bench.IN_SWITCH_WEIGHT / Bench.TRANSFERS_PER_SECOND, whole.seconds(), 1e-9);
        assertEquals(64 * 4096 * Bench.BYTES_PER_NVLS_TREE_TRANSFER, whole.bytes(), 1e-3);
        assertEquals(64 * 4096 / 8, Bench.estimate(spec, Bench.communicator(spec)).transfers());
    }

    @Test
    void aRunLongerThanFiveMinutesAsksForForce() {
        InputException x = assertThrows(InputException.class,
                () -> Bench.checkNotTooLarge(new Bench.Estimate(1e8, 301, 1e9), 1L << 40));
        assertTrue(x.getMessage().startsWith("this run would simulate about 100 million transfers: roughly 5 minutes and 1 GB"),
                x.getMessage());
        assertTrue(x.getMessage().endsWith("1 GB of memory on a machine like this one; add --force to run it, or try fewer"
                + " --channels, a smaller size or fewer nodes"), x.getMessage());
    }

    @Test
    void aRunTooLongAndTooLargeAsksForBoth() {
        InputException x = assertThrows(InputException.class,
                () -> Bench.checkNotTooLarge(new Bench.Estimate(17e6, 1560, 12e9), 8L << 30));
        assertTrue(x.getMessage().contains("roughly 26 minutes and 12 GB of memory on a machine like this one, more than this"
                + " Java heap's 8.6 GB; give it more heap (COLLSIM_JAVA_OPTS=-Xmx14g) and add --force to run it"), x.getMessage());
    }

    @Test
    void aRunNeedingMoreThanTheHeapSaysHowMuchToGive() {
        Bench.Estimate e = new Bench.Estimate(4e6, 60, 3e9);
        InputException x = assertThrows(InputException.class, () -> Bench.checkNotTooLarge(e, 2_000_000_000L));
        assertTrue(x.getMessage().endsWith("roughly 60 seconds and 3 GB of memory on a machine like this one, more than this Java heap's 2.0 GB;"
                + " give it more heap (COLLSIM_JAVA_OPTS=-Xmx4g) or add --force to try, or try fewer --channels, a smaller size"
                + " or fewer nodes"), x.getMessage());
        assertDoesNotThrow(() -> Bench.checkNotTooLarge(e, 3_000_000_000L));
        assertDoesNotThrow(() -> Bench.checkNotTooLarge(new Bench.Estimate(4e6, 300, 3e9), 4_000_000_000L));
    }
}
