package dev.collsim.core.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.core.fabric.RoutingPolicy.EqualCost;
import dev.collsim.core.fabric.RoutingPolicy.GpuRelay;
import dev.collsim.core.units.Rate;
import dev.collsim.core.units.TimeSpan;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The router's two policies, each shown against the other on a fabric where they differ. */
class RouterTest {
    private static final Rate R = Rate.gigabytesPerSecond(50);
    private static final TimeSpan L = TimeSpan.ofNanos(100);

    /** Two leaves, four spines, eight GPUs behind each leaf: cross-leaf pairs have four equal routes. */
    private static Fabric leafSpine(int[] leftGpus, int[] rightGpus, int[] spines) {
        FabricBuilder b = new FabricBuilder();
        int left = b.addDevice("left", DeviceKind.NETWORK_SWITCH);
        int right = b.addDevice("right", DeviceKind.NETWORK_SWITCH);
        for (int s = 0; s < spines.length; s++) {
            spines[s] = b.addDevice("spine" + s, DeviceKind.NETWORK_SWITCH);
            b.addDuplex(left, spines[s], R, L, "uplink");
            b.addDuplex(right, spines[s], R, L, "uplink");
        }
        for (int g = 0; g < leftGpus.length; g++) {
            leftGpus[g] = b.addDevice("l" + g, DeviceKind.GPU);
            b.addDuplex(leftGpus[g], left, R, L, "nic");
            rightGpus[g] = b.addDevice("r" + g, DeviceKind.GPU);
            b.addDuplex(rightGpus[g], right, R, L, "nic");
        }
        return b.build();
    }

    /** The spine a route crosses. */
    private static int spineOf(Fabric f, Route r, int[] spines) {
        for (int l : r.links()) {
            for (int s : spines) {
                if (f.link(l).to() == s) {
                    return s;
                }
            }
        }
        throw new AssertionError("no spine on " + Arrays.toString(r.links()));
    }

    @Test
    void ecmpSpreadsPairsOverTheSpinesWhereFirstFoundTakesOneSpine() {
        int[] left = new int[8];
        int[] right = new int[8];
        int[] spines = new int[4];
        Fabric f = leafSpine(left, right, spines);
        Router ecmp = f.router(new RoutingPolicy(EqualCost.ECMP, GpuRelay.PXN));
        Router first = f.router(new RoutingPolicy(EqualCost.FIRST_FOUND, GpuRelay.PXN));
        Set<Integer> byEcmp = new HashSet<>();
        Set<Integer> byFirst = new HashSet<>();
        for (int a : left) {
            for (int b : right) {
                Route e = ecmp.route(a, b);
                Route g = first.route(a, b);
                assertEquals(e.links().length, g.links().length, "equal cost: same hops");
                byEcmp.add(spineOf(f, e, spines));
                byFirst.add(spineOf(f, g, spines));
            }
        }
        assertEquals(Set.of(spines[0]), byFirst, "first found: the lowest link ids, spine 0");
        assertEquals(4, byEcmp.size(), "ECMP: 64 pairs hashed over all four spines");
        assertSame(f.router(), f.router(RoutingPolicy.NCCL), "NCCL's policy is the fabric's shared router");
        assertEquals(ecmp.route(left[3], right[5]).links().length, f.router().route(left[3], right[5]).links().length);
    }

    /**
     * Two GPUs on one NVSwitch, each with a NIC on one network switch; GPU 0's NIC link is down. PXN
     * lets GPU 0 reach the network through GPU 1 and its NIC; with no relay it reaches only GPU 1.
     */
    @Test
    void pxnRelaysThroughAPeersNicWhereNoRelayLeavesTheGpuCutOff() {
        FabricBuilder b = new FabricBuilder();
        int nvs = b.addDevice("nvs", DeviceKind.NVSWITCH);
        int net = b.addDevice("net", DeviceKind.NETWORK_SWITCH);
        int g0 = b.addDevice("g0", DeviceKind.GPU);
        int g1 = b.addDevice("g1", DeviceKind.GPU);
        int nic1 = b.addDevice("nic1", DeviceKind.NIC);
        int g2 = b.addDevice("g2", DeviceKind.GPU);
        int nic2 = b.addDevice("nic2", DeviceKind.NIC);
        int nvs2 = b.addDevice("nvs2", DeviceKind.NVSWITCH);
        int g3 = b.addDevice("g3", DeviceKind.GPU);
        b.addDuplex(g0, nvs, R, L, "nvlink");
        b.addDuplex(g1, nvs, R, L, "nvlink");
        b.addDuplex(g1, nic1, R, L, "pcie");
        b.addDuplex(nic1, net, R, L, "ib");
        b.addDuplex(g2, nvs2, R, L, "nvlink");
        b.addDuplex(g3, nvs2, R, L, "nvlink");
        b.addDuplex(g2, nic2, R, L, "pcie");
        b.addDuplex(g3, nic2, R, L, "pcie");
        b.addDuplex(nic2, net, R, L, "ib");
        Fabric f = b.build(); // accepted: the fabric's own router relays as PXN does
        Route relayed = f.router().route(g0, g2);
        assertTrue(Arrays.stream(relayed.links()).anyMatch(l -> f.link(l).to() == g1), "g0 -> nvs -> g1 -> nic1 -> net -> nic2 -> g2");
        assertTrue(relayed.viaNic());

        Router noRelay = f.router(new RoutingPolicy(EqualCost.ECMP, GpuRelay.NONE));
        assertThrows(IllegalStateException.class, () -> noRelay.route(g0, g2));
        boolean[] reached = noRelay.reachableFrom(g0);
        assertTrue(reached[g1] && reached[nvs]);
        assertFalse(reached[g2] || reached[net], "nothing beyond the NVSwitch without a relay");
        assertTrue(f.router().reachableFrom(g0)[g2]);
        assertEquals(noRelay.route(g0, g1).links().length, f.router().route(g0, g1).links().length,
                "a route that needs no relay is the same under both");
    }
}
