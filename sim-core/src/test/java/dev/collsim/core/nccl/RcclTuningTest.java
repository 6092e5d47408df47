package dev.collsim.core.nccl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.collsim.core.collective.CollectiveOp;
import dev.collsim.core.collective.Protocol;
import org.junit.jupiter.api.Test;

class RcclTuningTest {
    /**
     * Across two gfx950 nodes RCCL runs all_reduce under LL up to 256 KiB, LL128 up to 70,640,910 bytes where the platform's
     * model enables it, Simple beyond; beyond two nodes LL128's range is 3.8 times as long.
     */
    @Test
    void acrossNodesTheProtocolFollowsTheModelsRanges() {
        RcclTuning m = RcclTuning.MODEL_6;
        assertEquals(Protocol.LL, m.protocolOverride(CollectiveOp.ALL_REDUCE, 262_144, 16, 2, true));
        assertEquals(Protocol.LL128, m.protocolOverride(CollectiveOp.ALL_REDUCE, 262_145, 16, 2, true));
        assertEquals(Protocol.LL128, m.protocolOverride(CollectiveOp.ALL_REDUCE, 70_640_910, 16, 2, true));
        assertEquals(Protocol.SIMPLE, m.protocolOverride(CollectiveOp.ALL_REDUCE, 70_640_911, 16, 2, true));
        assertEquals(Protocol.SIMPLE, m.protocolOverride(CollectiveOp.ALL_REDUCE, 1 << 20, 16, 2, false));
        assertEquals(Protocol.LL128, m.protocolOverride(CollectiveOp.ALL_REDUCE, 200_000_000, 32, 4, true));
        // all_gather's ranges are per rank: 16 ranks of 64 KiB each is LL, of 64 KiB and one byte LL128.
        assertEquals(Protocol.LL, m.protocolOverride(CollectiveOp.ALL_GATHER, 16L * 65_536, 16, 2, true));
        assertEquals(Protocol.LL128, m.protocolOverride(CollectiveOp.ALL_GATHER, 16L * 65_537, 16, 2, true));
        // gfx942's all_reduce: LL to 512 KiB, LL128 to 4,415,057 bytes.
        assertEquals(Protocol.LL, RcclTuning.MODEL_5.protocolOverride(CollectiveOp.ALL_REDUCE, 524_288, 16, 2, true));
        assertEquals(Protocol.SIMPLE, RcclTuning.MODEL_5.protocolOverride(CollectiveOp.ALL_REDUCE, 4_415_058, 16, 2, true));
    }

    /** On one node all_reduce keeps the tuner's protocol; small reduce_scatters and all_gathers run LL. */
    @Test
    void onOneNodeOnlySmallGathersAndScattersAreReplaced() {
        assertNull(RcclTuning.MODEL_6.protocolOverride(CollectiveOp.ALL_REDUCE, 1024, 8, 1, false));
        assertNull(RcclTuning.MODEL_6.protocolOverride(CollectiveOp.BROADCAST, 1024, 8, 1, false));
        assertEquals(Protocol.LL, RcclTuning.MODEL_6.protocolOverride(CollectiveOp.ALL_GATHER, 8L * 88_448, 8, 1, false));
        assertNull(RcclTuning.MODEL_6.protocolOverride(CollectiveOp.ALL_GATHER, 8L * 88_449, 8, 1, false));
        assertNull(RcclTuning.MODEL_5.protocolOverride(CollectiveOp.ALL_GATHER, 8, 8, 1, false));
        assertEquals(Protocol.LL, RcclTuning.MODEL_5.protocolOverride(CollectiveOp.REDUCE_SCATTER, 8L * 352_128, 8, 1, false));
    }

    /** The correction tables are indexed by log2(bytes / 64), capped at 26; the ring's applies only across nodes. */
    @Test
    void correctionsAreIndexedByTheSizesLogarithm() {
        RcclTuning m = RcclTuning.MODEL_6;
        assertEquals(1.0, m.correction(NcclAlgo.RING, Protocol.SIMPLE, 1 << 20, 1));
        assertEquals(0.1, m.correction(NcclAlgo.RING, Protocol.SIMPLE, 1 << 20, 2));
        assertEquals(0.9, m.correction(NcclAlgo.RING, Protocol.SIMPLE, 64L << 20, 2), "index 20: 64 MiB");
        assertEquals(5.5, m.correction(NcclAlgo.RING, Protocol.LL128, 256L << 20, 2), "index 22: 256 MiB");
        assertEquals(1.0, m.correction(NcclAlgo.RING, Protocol.SIMPLE, 1L << 40, 2), "beyond the table: its last entry");
        assertEquals(0.1, m.correction(NcclAlgo.TREE, Protocol.LL, 8, 1), "under 64 B: the first entry");
        assertEquals(0.6, m.correction(NcclAlgo.TREE, Protocol.LL, 128 * 1024, 1), "index 11: 128 KiB");
    }
}
