package dev.collsim.core.nccl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.core.collective.CollectiveOp;
import dev.collsim.core.collective.Protocol;
import org.junit.jupiter.api.Test;

/** RCCL's tuner on an 8-GPU Instinct mesh (ROCm/rccl tuning.cc, tuning_model_5): its latencies and bandwidth shares. */
class RcclTunerTest {
    /** RCCL counts each of the 7 xGMI links at 48 GB/s: 14 search rings at 24 GB/s, 28 channels. */
    private static TunerInputs mi300x() {
        RingGraph ring = RingGraph.search(NcclArch.CDNA3, NcclVersion.NEWEST, 7 * 48.0);
        return new TunerInputs(8, 1, NcclArch.CDNA3, LinkType.NVLINK, ring, null, 0, false, NcclVersion.NEWEST);
    }

    @Test
    void theMeshSearchGivesRcclsTwentyEightRings() {
        RingGraph ring = mi300x().ring();
        assertEquals(14, ring.searchChannels());
        assertEquals(24.0, ring.bwPerChannel(), 1e-9);
        assertEquals(28, ring.channels());
    }

    @Test
    void ringLatenciesAndSharesAreRccls() {
        TunerInputs in = mi300x();
        NcclTuner.Estimate ll = NcclTuner.ring(CollectiveOp.ALL_REDUCE, Protocol.LL, 1 << 20, in);
        NcclTuner.Estimate simple = NcclTuner.ring(CollectiveOp.ALL_REDUCE, Protocol.SIMPLE, 1 << 20, in);
        assertEquals(12 + 14 * 0.8, ll.latencyMicros(), 1e-9);
        assertEquals(17 + 14 * 2.1, simple.latencyMicros(), 1e-9);
        assertEquals(0.08 * 336 * 8 / 14, ll.algBwGBps(), 1e-9);
        assertEquals(336.0 * 8 / 14, simple.algBwGBps(), 1e-9);
        assertFalse(NcclTuner.ring(CollectiveOp.ALL_REDUCE, Protocol.LL128, 1 << 20, in).enabled(), "priced as LL, LL128 never wins");
    }

    @Test
    void noSimpleTreeInsideOneNode() {
        TunerInputs in = mi300x();
        assertFalse(NcclTuner.tree(CollectiveOp.ALL_REDUCE, Protocol.SIMPLE, 1 << 30, in).enabled());
        assertTrue(NcclTuner.tree(CollectiveOp.ALL_REDUCE, Protocol.LL, 1 << 10, in).enabled());
        assertEquals(12 + 2 * 7 * 0.9, NcclTuner.tree(CollectiveOp.ALL_REDUCE, Protocol.LL, 1 << 10, in).latencyMicros(), 1e-9);
    }

    @Test
    void nvidiasTablesStayNvidias() {
        assertEquals(6.6, NcclTuner.baseLatencyMicros(NcclArch.HOPPER, NcclAlgo.RING, Protocol.LL), 1e-9);
        assertEquals(12.0, NcclTuner.baseLatencyMicros(NcclArch.CDNA4, NcclAlgo.RING, Protocol.LL), 1e-9);
        assertEquals(3.4, NcclTuner.hwLatencyMicros(NcclArch.BLACKWELL, LinkType.NVLINK, NcclAlgo.RING, Protocol.SIMPLE), 1e-9);
        assertEquals(2.1, NcclTuner.hwLatencyMicros(NcclArch.CDNA4, LinkType.NVLINK, NcclAlgo.RING, Protocol.SIMPLE), 1e-9);
    }
}
