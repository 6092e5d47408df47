package dev.collsim.core.nccl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.core.collective.CollectiveOp;
import dev.collsim.core.collective.HostLaunch;
import dev.collsim.core.collective.Protocol;
import dev.collsim.core.collective.ProtocolCosts;
import dev.collsim.core.collective.RankPlacement;
import dev.collsim.core.fabric.DeviceKind;
import dev.collsim.core.fabric.FabricBuilder;
import dev.collsim.core.input.InputException;
import dev.collsim.core.units.Rate;
import dev.collsim.core.units.TimeSpan;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class NcclPlannerTest {
    /** An 8-GPU node whose NCCL view is an H100's (18 x 20.6 GB/s to NVSwitch). */
    static Communicator h100Like() {
        FabricBuilder b = new FabricBuilder();
        int[] ranks = new int[8];
        for (int g = 0; g < 8; g++) {
            ranks[g] = b.addDevice("gpu" + g, DeviceKind.GPU);
        }
        int sw = b.addDevice("nvs", DeviceKind.NVSWITCH);
        for (int g = 0; g < 8; g++) {
            b.addDuplex(ranks[g], sw, Rate.gigabytesPerSecond(370.8), TimeSpan.ofNanos(250), "NVLink4 x18");
        }
        Map<Protocol, ProtocolCosts> costs = new EnumMap<>(Protocol.class);
        for (Protocol p : Protocol.values()) {
            costs.put(p, new ProtocolCosts(Rate.gigabytesPerSecond(30), TimeSpan.ZERO, TimeSpan.ofNanos(100)));
        }
        int[] switches = new int[8];
        java.util.Arrays.fill(switches, sw);
        NcclView view = new NcclView(NcclArch.HOPPER, LinkType.NVLINK, new int[8], new int[][] {{0, 1, 2, 3, 4, 5, 6, 7}},
                RingGraph.search(NcclArch.HOPPER, NcclVersion.NEWEST, 370.8), NvlsGraph.search(NcclArch.HOPPER, NcclVersion.NEWEST, 370.8, 8), 0,
                NcclVersion.NEWEST, new NcclView.SearchInputs(370.8, 370.8, 0, true));
        CostBook book = new CostBook(costs, new dev.collsim.core.collective.NvlsCosts(0.85, Rate.gigabytesPerSecond(30), TimeSpan.ZERO,
                TimeSpan.ofMicros(1), TimeSpan.ofMicros(5), Rate.gigabytesPerSecond(25)), null,
                new dev.collsim.core.collective.CustomKernelCosts(Rate.gigabytesPerSecond(4), TimeSpan.ofMicros(1.5), TimeSpan.ofMicros(2.5),
                        TimeSpan.ofMicros(4)),
                new HostLaunch(TimeSpan.ofMicros(4), TimeSpan.ZERO), new CostBook.DeviceCopy(Rate.gigabytesPerSecond(1500), TimeSpan.ofMicros(1)),
                new CostBook.KernelStart(TimeSpan.ofMicros(6.6), TimeSpan.ZERO));
        return new Communicator("test", new RankPlacement(b.build(), ranks, switches, null, null), view, book);
    }

    private static Plan plan(long bytes, Set<Protocol> protos) {
        return NcclPlanner.plan(h100Like(), CollectiveOp.ALL_REDUCE, bytes, 0, EnumSet.of(AlgorithmId.RING), protos, 0);
    }

    private static Plan auto(long bytes) {
        return NcclPlanner.plan(h100Like(), CollectiveOp.ALL_REDUCE, bytes, 0, EnumSet.allOf(AlgorithmId.class),
                EnumSet.allOf(Protocol.class), 0);
    }

    /** The reference's reconstruction of NCCL's 8 x H100 table: NVLS 25 us + bytes / 272 GB/s. */
    @Test
    void nvlsEstimateMatchesNcclsOwnTable() {
        NcclTuner.Estimate nvls = NcclTuner.nvls(CollectiveOp.ALL_REDUCE, Protocol.SIMPLE, 0, h100Like().tunerInputs());
        assertEquals(25.0, nvls.latencyMicros(), 1e-9);
        assertEquals(272.0, nvls.algBwGBps(), 0.1);
        assertEquals(40.0, h100Like().nccl().nvlsGraph().bwIntra());
        assertEquals(16, h100Like().nccl().nvlsGraph().channels());
    }

    /** NCCL on 8 x H100: LL ring for small all_reduces, NVLS from about 1.2 MB on. */
    @Test
    void autoChoosesRingLLThenNvls() {
        assertEquals(AlgorithmId.RING, auto(64 * 1024).algo());
        assertEquals(Protocol.LL, auto(64 * 1024).request().protocol());
        assertEquals(AlgorithmId.RING, auto(1 << 20).algo());
        assertEquals(AlgorithmId.NVLS, auto(2 << 20).algo());
        assertEquals(16, auto(2 << 20).request().channels());
        assertEquals(AlgorithmId.NVLS, auto(8L << 30).algo());
        Communicator off = h100Like().withoutNvls();
        assertEquals(AlgorithmId.RING, NcclPlanner.plan(off, CollectiveOp.ALL_REDUCE, 8L << 30, 0,
                EnumSet.allOf(AlgorithmId.class), EnumSet.allOf(Protocol.class), 0).algo());
        assertEquals(AlgorithmId.RING, NcclPlanner.plan(h100Like(), CollectiveOp.ALL_GATHER, 8L << 30, 0,
                EnumSet.allOf(AlgorithmId.class), EnumSet.allOf(Protocol.class), 0).algo());
    }

    @Test
    void ringSearchGivesNcclsChannelCounts() {
        RingGraph h100 = RingGraph.search(NcclArch.HOPPER, NcclVersion.NEWEST, 18 * 20.6);
        assertEquals(12, h100.searchChannels());
        assertEquals(30.0, h100.bwPerChannel());
        assertEquals(24, h100.channels());
        assertEquals(360.0, h100.busBw(), 1e-9);
        assertEquals(32, RingGraph.search(NcclArch.BLACKWELL, NcclVersion.NEWEST, 18 * 40.1).channels());
        assertEquals(24, RingGraph.search(NcclArch.AMPERE, NcclVersion.NEWEST, 12 * 20.0).channels());
    }

    /** The reference's worked example: a 64 KiB ring LL all_reduce on 8 ranks runs on 2 channels. */
    @Test
    void smallMessagesDropChannels() {
        Plan p = plan(64 * 1024, EnumSet.of(Protocol.LL));
        assertEquals(2, p.request().channels());
        assertEquals(24, plan(1 << 20, EnumSet.of(Protocol.LL)).request().channels());
        assertEquals(1, plan(8, EnumSet.allOf(Protocol.class)).request().channels());
    }

    /** NCCL's own predictions for 8 x H100 ring: LL up to ~3.6 MB, LL128 to ~35 MB, Simple above. */
    @Test
    void autoProtocolFollowsTheCostModel() {
        Set<Protocol> all = EnumSet.allOf(Protocol.class);
        assertEquals(Protocol.LL, plan(1 << 20, all).request().protocol());
        assertEquals(Protocol.LL128, plan(8 << 20, all).request().protocol());
        assertEquals(Protocol.SIMPLE, plan(64 << 20, all).request().protocol());
        NcclTuner.Estimate ll = plan(1 << 20, all).chosen();
        assertEquals(15.0, NcclTuner.ring(CollectiveOp.ALL_REDUCE, Protocol.LL, 0, h100Like().tunerInputs()).latencyMicros(), 1e-9);
        assertEquals(28.0, ll.timeMicros(), 0.1); // the reference's 28 us at 1 MiB
    }

    @Test
    void protocolListsWorkAsNcclProto() {
        assertEquals(EnumSet.of(Protocol.LL128, Protocol.SIMPLE),
                Selection.parse("^ll", Protocol.class, Protocol::label, "protocol"));
        assertEquals(EnumSet.of(Protocol.SIMPLE), Selection.parse("Simple", Protocol.class, Protocol::label, "protocol"));
        assertEquals(EnumSet.allOf(Protocol.class), Selection.parse("auto", Protocol.class, Protocol::label, "protocol"));
        assertEquals(Protocol.SIMPLE, plan(1 << 20, EnumSet.of(Protocol.SIMPLE)).request().protocol());
        InputException e = assertThrows(InputException.class,
                () -> Selection.parse("ll,fast", Protocol.class, Protocol::label, "protocol"));
        assertTrue(e.getMessage().contains("unknown protocol 'fast'"), e.getMessage());
    }

    @Test
    void impossibleAlgorithmIsAClearError() {
        InputException e = assertThrows(InputException.class, () -> NcclPlanner.plan(h100Like(), CollectiveOp.ALL_REDUCE,
                1 << 20, 0, EnumSet.of(AlgorithmId.NVLS_TREE), EnumSet.allOf(Protocol.class), 0));
        assertTrue(e.getMessage().contains("NVLSTree cannot run all_reduce here") && e.getMessage().contains("NCCL disables it on one node"),
                e.getMessage());
        // Several asked for, each with its reason.
        InputException both = assertThrows(InputException.class, () -> NcclPlanner.plan(h100Like(), CollectiveOp.ALL_GATHER,
                1 << 20, 0, EnumSet.of(AlgorithmId.TREE, AlgorithmId.PAT), EnumSet.allOf(Protocol.class), 0));
        assertTrue(both.getMessage().contains("Tree cannot run all_gather here: NCCL's tree runs all_reduce only")
                && both.getMessage().contains("PAT cannot run all_gather here: NCCL runs PAT only with one GPU per node"), both.getMessage());
    }

    @Test
    void hostLaunchIsAFloorInNcclTestsSteadyState() {
        HostLaunch h = new HostLaunch(TimeSpan.ofMicros(4.3), TimeSpan.ofNanos(40));
        assertEquals(34_720_000L, h.iterationPicos(15_000_000L, 8, 1)); // 8 x (4.3 + 0.04) us
        assertEquals(15_000_000L, h.iterationPicos(15_000_000L, 1, 1)); // one GPU per thread: the device bounds
        assertEquals(100_000_000L, h.iterationPicos(100_000_000L, 8, 24));
    }
}
