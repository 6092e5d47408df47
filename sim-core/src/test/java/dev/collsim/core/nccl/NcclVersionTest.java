package dev.collsim.core.nccl;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.core.collective.CollectiveOp;
import dev.collsim.core.collective.Protocol;
import dev.collsim.core.input.InputException;
import org.junit.jupiter.api.Test;

class NcclVersionTest {

    @Test
    void aVersionIsReadByItsMinorAsUsersAndNcclTestsWriteIt() {
        assertEquals(NcclVersion.V2_27, NcclVersion.find("2.27.3"));
        assertEquals(NcclVersion.V2_28, NcclVersion.find("v2.28.9-1"));
        assertEquals(NcclVersion.V2_30, NcclVersion.find(" 2.30 "));
        assertNull(NcclVersion.find("2.31"));
        assertNull(NcclVersion.find("2.27.x"));
        assertNull(NcclVersion.find("latest"));
        assertEquals("2.27.7", NcclVersion.V2_27.release());
    }

    @Test
    void blackwellIsRefusedBeforeTheFirstReleaseThatKnowsIt() {
        assertTrue(NcclVersion.V2_24.supports(NcclArch.HOPPER));
        InputException e = assertThrows(InputException.class, () -> NcclVersion.V2_24.requireSupports(NcclArch.BLACKWELL, "--nccl"));
        assertEquals("--nccl 2.24: NCCL 2.24.3 predates Blackwell GPUs, which NCCL runs from 2.25", e.getMessage());
        NcclVersion.V2_25.requireSupports(NcclArch.BLACKWELL, "--nccl");
    }

    @Test
    void blackwellsSearchSpeedsGrowReleaseByRelease() {
        assertEquals(10, NcclVersion.V2_26.speedArrayIntra(NcclArch.BLACKWELL).length);
        double[] v227 = NcclVersion.V2_27.speedArrayIntra(NcclArch.BLACKWELL);
        assertEquals(18, v227[v227.length - 1]);
        assertArrayEquals(NcclArch.BLACKWELL.speedArrayIntra(), NcclVersion.V2_29.speedArrayIntra(NcclArch.BLACKWELL));
        assertArrayEquals(NcclArch.HOPPER.speedArrayIntra(), NcclVersion.V2_22.speedArrayIntra(NcclArch.HOPPER));
        // An 800 Gb/s NIC (100 GB/s in NCCL's units) is searched at 96 GB/s from 2.27.7 on Blackwell, at 48 before and on Hopper.
        assertEquals(48, RingGraph.interSpeed(NcclArch.BLACKWELL, NcclVersion.V2_26, 100));
        assertEquals(96, RingGraph.interSpeed(NcclArch.BLACKWELL, NcclVersion.V2_27, 100));
        assertEquals(86, RingGraph.interSpeed(NcclArch.BLACKWELL, NcclVersion.V2_30, 90));
        assertEquals(80, RingGraph.interSpeed(NcclArch.BLACKWELL, NcclVersion.V2_29, 90));
        assertEquals(48, RingGraph.interSpeed(NcclArch.HOPPER, NcclVersion.V2_30, 100));
    }

    @Test
    void blackwellRunsTwentyFourNvlsChannelsInOneDomainFrom2_27And32Otherwise() {
        assertEquals(16, NcclVersion.V2_23.nvlsChannels(NcclArch.HOPPER, false));
        assertEquals(16, NcclVersion.V2_30.nvlsChannels(NcclArch.HOPPER, true));
        assertEquals(32, NcclVersion.V2_26.nvlsChannels(NcclArch.BLACKWELL, false));
        assertEquals(24, NcclVersion.V2_27.nvlsChannels(NcclArch.BLACKWELL, false));
        assertEquals(32, NcclVersion.V2_27.nvlsChannels(NcclArch.BLACKWELL, true));
        assertEquals(24, NvlsGraph.search(NcclArch.BLACKWELL, NcclVersion.NEWEST, 720, 8).channels());
        assertEquals(32, NvlsGraph.searchAcrossNodes(NcclArch.BLACKWELL, NcclVersion.NEWEST, 720, 8, 50).channels());
    }

    @Test
    void blackwellsTunerCapsWereHoppersDoubledUntil2_28() {
        assertEquals(73.4, NcclVersion.V2_27.perChannelMaxRingLL128Bw(NcclArch.BLACKWELL, 1), 1e-9);
        assertEquals(34.6, NcclVersion.V2_28.perChannelMaxRingLL128Bw(NcclArch.BLACKWELL, 2), 1e-9);
        assertEquals(40.0, NcclVersion.V2_29.perChannelMaxRingLL128Bw(NcclArch.BLACKWELL, 2), 1e-9);
        assertEquals(77.4, NcclVersion.V2_27.perChannelMaxTreeBw(NcclArch.BLACKWELL, 1), 1e-9);
        assertEquals(70.0, NcclVersion.V2_28.perChannelMaxTreeBw(NcclArch.BLACKWELL, 1), 1e-9);
        assertEquals(36.7, NcclVersion.V2_27.perChannelMaxRingLL128Bw(NcclArch.HOPPER, 1), 1e-9);
        assertEquals(43.8, NcclVersion.V2_29.perChannelMaxNvlsTreeBw(NcclArch.BLACKWELL, 4), 1e-9);
        assertEquals(80.0, NcclVersion.V2_30.perChannelMaxNvlsTreeBw(NcclArch.BLACKWELL, 4), 1e-9);
        assertEquals(Double.MAX_VALUE, NcclVersion.V2_27.perChannelMaxNvlsTreeBw(NcclArch.BLACKWELL, 4));
    }

    /** Eight H100s: NVLS search channels 8 at bwIntra 40 (9 x 40 fits 370.8 GB/s), bwInter 60. */
    private static TunerInputs h100(NcclVersion v) {
        return new TunerInputs(8, 1, NcclArch.HOPPER, LinkType.NVLINK, RingGraph.search(NcclArch.HOPPER, v, 370.8),
                NvlsGraph.search(NcclArch.HOPPER, v, 370.8, 8), 0, false, v);
    }

    @Test
    void nvlsIsPricedAsEachReleasesTunerPricesIt() {
        // Before 2.28: min(bwIntra, bwInter) a channel, times 5/6.
        assertEquals(8 * 40 * 5.0 / 6, NcclTuner.nvls(CollectiveOp.ALL_REDUCE, Protocol.SIMPLE, 1 << 20, h100(NcclVersion.V2_26)).algBwGBps(),
                1e-9);
        // From 2.28: bwIntra x 0.85 x 7/8 x 2 a channel (59.5, under bwInter 60), converted like a ring's 8/14.
        assertEquals(8 * 59.5 * 8 / 14.0, NcclTuner.nvls(CollectiveOp.ALL_REDUCE, Protocol.SIMPLE, 1 << 20, h100(NcclVersion.V2_28))
                .algBwGBps(), 1e-9);
    }

    @Test
    void patRunsFrom2_23AtItsReleasesShareOfTheRing() {
        RingGraph ring = RingGraph.searchInter(NcclArch.HOPPER, NcclVersion.V2_23, 50, 1);
        TunerInputs v222 = new TunerInputs(4, 4, NcclArch.HOPPER, LinkType.NVLINK, ring, null, 0, false, NcclVersion.V2_22);
        assertNull(NcclTuner.pat(CollectiveOp.ALL_GATHER, Protocol.SIMPLE, 1 << 20, v222));
        TunerInputs v223 = new TunerInputs(4, 4, NcclArch.HOPPER, LinkType.NVLINK, ring, null, 0, false, NcclVersion.V2_23);
        TunerInputs v224 = new TunerInputs(4, 4, NcclArch.HOPPER, LinkType.NVLINK, ring, null, 0, false, NcclVersion.V2_24);
        double ratio = NcclTuner.pat(CollectiveOp.ALL_GATHER, Protocol.SIMPLE, 1 << 20, v223).algBwGBps()
                / NcclTuner.pat(CollectiveOp.ALL_GATHER, Protocol.SIMPLE, 1 << 20, v224).algBwGBps();
        assertEquals(0.85 / 0.75, ratio, 1e-9);
    }
}
