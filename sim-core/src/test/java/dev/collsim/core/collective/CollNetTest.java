package dev.collsim.core.collective;

import static org.junit.jupiter.api.Assertions.assertEquals;

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

/** CollNet Direct and Chain: nodes reduce to their heads, SHARP switches sum across nodes per rail, every rank ends with the sum. */
class CollNetTest {
    private static final ProtocolCosts COSTS = new ProtocolCosts(Rate.gigabytesPerSecond(30), TimeSpan.ofNanos(500),
            TimeSpan.ofNanos(700), TimeSpan.ofMicros(3));
    private static final NvlsCosts SHARP = new NvlsCosts(0.9, Rate.gigabytesPerSecond(30), TimeSpan.ofNanos(500),
            TimeSpan.ofMicros(5), TimeSpan.ZERO, Rate.gigabytesPerSecond(30));

    @ParameterizedTest(name = "{4} nodes={0} ppn={1} {2}B ch={3}")
    @CsvSource({"2, 4, 1048576, 2, true", "3, 2, 777777, 3, true", "4, 8, 8388608, 2, true", "5, 1, 100000, 1, true",
        "2, 4, 1048576, 2, false", "3, 2, 777777, 3, false", "4, 8, 8388608, 3, false", "5, 1, 100000, 1, false"})
    void everyRankEndsWithTheSum(int nNodes, int ppn, long bytes, int channels, boolean direct) {
        FabricBuilder b = new FabricBuilder();
        int n = nNodes * ppn;
        int[] ranks = new int[n];
        int[] sharp = new int[n];
        int[][] nodes = new int[nNodes][ppn];
        int[] leaves = new int[ppn];
        int spine = b.addDevice("spine", DeviceKind.NETWORK_SWITCH);
        for (int j = 0; j < ppn; j++) {
            leaves[j] = b.addDevice("leaf" + j, DeviceKind.NETWORK_SWITCH, Set.of(Capability.SHARP));
            b.addDuplex(leaves[j], spine, Rate.gigabytesPerSecond(400), TimeSpan.ofNanos(300), "spine");
        }
        for (int k = 0; k < nNodes; k++) {
            int nvs = b.addDevice("nvs" + k, DeviceKind.NVSWITCH);
            for (int j = 0; j < ppn; j++) {
                int r = k * ppn + j;
                ranks[r] = b.addDevice("gpu" + r, DeviceKind.GPU);
                nodes[k][j] = r;
                sharp[r] = leaves[j];
                b.addDuplex(ranks[r], nvs, Rate.gigabytesPerSecond(370.8), TimeSpan.ofNanos(250), "nvlink");
                int nic = b.addDevice("nic" + r, DeviceKind.NIC);
                b.addDuplex(ranks[r], nic, Rate.gigabytesPerSecond(50), TimeSpan.ofNanos(500), "pcie");
                b.addDuplex(nic, leaves[j], Rate.gigabytesPerSecond(48.5), TimeSpan.ofNanos(300), "ib");
            }
        }
        Fabric fabric = b.build();
        CollectiveRequest req = new CollectiveRequest(CollectiveOp.ALL_REDUCE, n, bytes, 0, Protocol.SIMPLE, channels);
        Schedule s = (direct ? (CollectiveAlgorithm) new CollNetDirectAlgorithm(nodes, 128 * 1024)
                : new CollNetChainAlgorithm(nodes, 128 * 1024)).schedule(req);
        int[] noNvls = new int[n];
        java.util.Arrays.fill(noNvls, -1);
        TestFabrics.Tracked run = TestFabrics.run(fabric, ranks, noNvls, sharp, s, COSTS, null, SHARP, TimeSpan.ofMicros(2));
        assertEquals(List.of(), run.tracker().verify());
    }
}
