package dev.collsim.core.collective;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.core.fabric.Capability;
import dev.collsim.core.fabric.DeviceKind;
import dev.collsim.core.fabric.Fabric;
import dev.collsim.core.fabric.FabricBuilder;
import dev.collsim.core.units.Rate;
import dev.collsim.core.units.TimeSpan;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** NVLS-Tree on several nodes: each node's switch reduces its part, trees join the nodes, every rank ends with the sum. */
class NvlsTreeTest {
    /** NCCL's NVLS-Tree chunk (enqueue.cc) for 16 channels of 8 heads: 128 x 128 KiB = 16 MiB is one chunk each. */
    @ParameterizedTest(name = "{0} B on {3} nodes: {4} B")
    @CsvSource({"67108864, 16, 8, 2, 131072", "33554432, 16, 8, 2, 65536", "8388608, 16, 8, 2, 65536", "4194304, 16, 8, 2, 32768",
        "1073741824, 16, 8, 4, 65536", "8388608, 16, 8, 4, 65536", "4194304, 16, 8, 2048, 32768"})
    void chunksFollowNcclsOwnThresholds(long bytes, int channels, int ranksPerNode, int nodes, long chunk) {
        assertEquals(chunk, NvlsTreeAlgorithm.chunkFor(bytes, channels, ranksPerNode, nodes));
    }

    private static final ProtocolCosts NET = new ProtocolCosts(Rate.gigabytesPerSecond(30), TimeSpan.ofNanos(500),
            TimeSpan.ofNanos(700), TimeSpan.ofMicros(3));
    private static final NvlsCosts NVLS = new NvlsCosts(0.85, Rate.gigabytesPerSecond(30), TimeSpan.ofNanos(500),
            TimeSpan.ofMicros(1), TimeSpan.ofMicros(2), Rate.gigabytesPerSecond(25));

    @ParameterizedTest(name = "nodes={0} ppn={1} {2}B ch={3}")
    @CsvSource({"2, 4, 1048576, 2", "3, 2, 777777, 3", "5, 4, 4000000, 4", "4, 1, 100000, 1"})
    void everyRankEndsWithTheSum(int nNodes, int ppn, long bytes, int channels) {
        FabricBuilder b = new FabricBuilder();
        int n = nNodes * ppn;
        int[] ranks = new int[n];
        int[] switches = new int[n];
        int[][] nodes = new int[nNodes][ppn];
        int net = b.addDevice("net", DeviceKind.NETWORK_SWITCH);
        for (int k = 0; k < nNodes; k++) {
            int sw = b.addDevice("nvs" + k, DeviceKind.NVSWITCH, Set.of(Capability.NVLS));
            for (int j = 0; j < ppn; j++) {
                int r = k * ppn + j;
                ranks[r] = b.addDevice("gpu" + r, DeviceKind.GPU);
                switches[r] = sw;
                nodes[k][j] = r;
                b.addDuplex(ranks[r], sw, Rate.gigabytesPerSecond(370.8), TimeSpan.ofNanos(250), "nvlink");
                int nic = b.addDevice("nic" + r, DeviceKind.NIC);
                b.addDuplex(ranks[r], nic, Rate.gigabytesPerSecond(50), TimeSpan.ofNanos(500), "pcie");
                b.addDuplex(nic, net, Rate.gigabytesPerSecond(48.5), TimeSpan.ofNanos(300), "ib");
            }
        }
        Fabric fabric = b.build();
        CollectiveRequest req = new CollectiveRequest(CollectiveOp.ALL_REDUCE, n, bytes, 0, Protocol.SIMPLE, channels);
        Schedule s = new NvlsTreeAlgorithm(nodes, 64 * 1024).schedule(req);
        TestFabrics.Tracked run = TestFabrics.run(fabric, ranks, switches, null, s, NET, NVLS, null, TimeSpan.ofMicros(2));
        assertEquals(List.of(), run.tracker().verify());
    }

    /**
     * Every dependency is counted once from each end: the successors of all transfers, the
     * predecessors counted per transfer and the schedule's total agree, and every dependency points
     * forward (transfers are numbered in an order they can run in).
     */
    @ParameterizedTest(name = "nodes={0} ppn={1} {2}B ch={3}")
    @CsvSource({"1, 8, 1048576, 2", "2, 4, 1048576, 2", "3, 2, 777777, 3", "5, 4, 4000000, 4", "4, 1, 100000, 1",
            "7, 8, 33554432, 16", "12, 3, 9999999, 5", "6, 2, 100, 16"})
    void everyDependencyIsCountedFromBothEnds(int nNodes, int ppn, long bytes, int channels) {
        int[][] nodes = new int[nNodes][ppn];
        for (int k = 0; k < nNodes; k++) {
            for (int j = 0; j < ppn; j++) {
                nodes[k][j] = k * ppn + j;
            }
        }
        CollectiveRequest req = new CollectiveRequest(CollectiveOp.ALL_REDUCE, nNodes * ppn, bytes, 0, Protocol.SIMPLE, channels);
        Schedule s = new NvlsTreeAlgorithm(nodes, 64 * 1024).schedule(req);
        int[] counted = new int[s.transferCount()];
        s.countPredecessors(counted);
        int[] found = new int[s.transferCount()];
        int[] successors = new int[s.maxSuccessors()];
        long total = 0;
        for (int t = 0; t < s.transferCount(); t++) {
            int count = s.successors(t, successors);
            for (int i = 0; i < count; i++) {
                assertTrue(successors[i] >>> 1 > t, "transfer " + t + " before its successor");
                found[successors[i] >>> 1]++;
            }
            total += count;
        }
        assertEquals(s.dependencyCount(), total);
        assertArrayEquals(found, counted);
    }
}
