package dev.collsim.core.fabric;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.core.input.InputException;
import dev.collsim.core.units.Rate;
import dev.collsim.core.units.TimeSpan;
import java.util.List;
import org.junit.jupiter.api.Test;

class FabricTest {
    private static final Rate R = Rate.gigabytesPerSecond(10);
    private static final TimeSpan L = TimeSpan.ofNanos(100);

    @Test
    void routesGoThroughSwitchesNeverThroughGpus() {
        FabricBuilder b = new FabricBuilder();
        int g0 = b.addDevice("g0", DeviceKind.GPU);
        int g1 = b.addDevice("g1", DeviceKind.GPU);
        int g2 = b.addDevice("g2", DeviceKind.GPU);
        int sw = b.addDevice("sw", DeviceKind.PCIE_SWITCH);
        b.addDuplex(g0, g1, R, L, "direct");   // links 0, 1
        b.addDuplex(g1, sw, R, L, "pcie");     // links 2, 3
        b.addDuplex(g2, sw, R, L, "pcie");     // links 4, 5
        // g0 reaches g2 only through g1, a GPU: no route, so the fabric is rejected.
        InputException e = assertThrows(InputException.class, b::build);
        assertTrue(e.getMessage().contains("no route"), e.getMessage());
        b.addDuplex(g0, sw, R, L, "pcie");     // links 6, 7
        Fabric f = b.build();
        assertArrayEquals(new int[] {0}, f.route(g0, g1).links());
        assertArrayEquals(new int[] {2, 5}, f.route(g1, g2).links());
        assertArrayEquals(new int[] {6, 5}, f.route(g0, g2).links());
        assertEquals(200_000, f.route(g1, g2).latencyPicos());
    }

    @Test
    void disconnectedAndDuplicateDevicesAreRejected() {
        FabricBuilder b = new FabricBuilder();
        int g0 = b.addDevice("g0", DeviceKind.GPU);
        b.addDevice("lonely", DeviceKind.NIC);
        assertThrows(InputException.class, () -> b.addDevice("g0", DeviceKind.GPU));
        assertThrows(InputException.class, () -> b.addLink(g0, g0, R, L, "loop"));
        InputException e = assertThrows(InputException.class, b::build);
        assertTrue(e.getMessage().contains("'lonely' is not connected"), e.getMessage());
    }

    @Test
    void editsScaleOrRemoveBothDirectionsAndKeepDeviceIds() {
        FabricBuilder b = new FabricBuilder();
        int g0 = b.addDevice("g0", DeviceKind.GPU);
        int g1 = b.addDevice("g1", DeviceKind.GPU);
        int sw = b.addDevice("sw", DeviceKind.PCIE_SWITCH);
        b.addDuplex(g0, g1, R, L, "direct");
        b.addDuplex(g0, sw, R, L, "pcie");
        b.addDuplex(g1, sw, R, L, "pcie");
        Fabric f = b.build();
        assertEquals(1, f.route(g0, g1).links().length);

        Fabric slow = f.withEdits(List.of(new LinkEdit("g1", "g0", 0.5)));
        assertEquals(5, slow.links().get(0).rate().gigabytesPerSecond(), 1e-9);
        assertEquals(5, slow.links().get(1).rate().gigabytesPerSecond(), 1e-9);
        assertEquals(10, slow.links().get(2).rate().gigabytesPerSecond(), 1e-9);

        Fabric down = f.withEdits(List.of(LinkEdit.down("g0", "g1")));
        assertEquals(4, down.links().size());
        assertArrayEquals(new int[] {0, 3}, down.route(g0, g1).links(), "g0 -> sw -> g1, links renumbered");
        assertEquals(sw, down.link(0).to());

        InputException stranded = assertThrows(InputException.class,
                () -> down.withEdits(List.of(LinkEdit.down("g1", "sw"))));
        assertEquals("with g1:sw down: device 'g1' is not connected to 'g0'", stranded.getMessage());
        assertThrows(InputException.class, () -> f.withEdits(List.of(new LinkEdit("g0", "nope", 2))));
        assertThrows(InputException.class, () -> f.withEdits(List.of(new LinkEdit("g0", "g0", 2))));
        assertThrows(InputException.class, () -> new LinkEdit("g0", "g1", -1));
    }

    /**
     * Random fabrics with one-way and two-way links: the builder accepts exactly those in which the
     * search from every GPU reaches every other GPU (its shortcut through one strongly connected
     * group of switches must never accept a fabric the searches reject, nor reject one they accept).
     */
    @Test
    void acceptsExactlyTheFabricsWhoseGpusAllReachEachOther() {
        DeviceKind[] kinds = {DeviceKind.GPU, DeviceKind.GPU, DeviceKind.NVSWITCH, DeviceKind.PCIE_SWITCH, DeviceKind.NIC, DeviceKind.CPU};
        int accepted = 0;
        int rejected = 0;
        for (long seed = 1; seed <= 400; seed++) {
            java.util.Random rnd = new java.util.Random(seed);
            int n = 3 + rnd.nextInt(8);
            List<Device> devices = new java.util.ArrayList<>();
            FabricBuilder b = new FabricBuilder();
            for (int d = 0; d < n; d++) {
                DeviceKind k = d < 2 ? DeviceKind.GPU : kinds[rnd.nextInt(kinds.length)];
                b.addDevice("d" + d, k);
                devices.add(new Device(d, "d" + d, k, java.util.Set.of()));
            }
            List<Link> links = new java.util.ArrayList<>();
            int wanted = n + rnd.nextInt(2 * n);
            for (int i = 0; i < wanted; i++) {
                int from = rnd.nextInt(n);
                int to = rnd.nextInt(n);
                if (from == to) {
                    continue;
                }
                boolean duplex = rnd.nextInt(3) > 0;
                for (int[] ends : duplex ? new int[][] {{from, to}, {to, from}} : new int[][] {{from, to}}) {
                    b.addLink(ends[0], ends[1], R, L, "x");
                    links.add(new Link(links.size(), ends[0], ends[1], R, L, "x"));
                }
            }
            Fabric unchecked = new Fabric(devices, links);
            boolean allReach = true;
            boolean connected = true;
            for (Device g : unchecked.devicesOfKind(DeviceKind.GPU)) {
                boolean[] reached = unchecked.reachableFrom(g.id());
                for (Device h : unchecked.devicesOfKind(DeviceKind.GPU)) {
                    allReach &= h == g || reached[h.id()];
                }
            }
            try {
                b.build();
                assertTrue(allReach, "seed " + seed + ": accepted, but some GPU does not reach another");
                accepted++;
            } catch (InputException e) {
                connected = !e.getMessage().contains("not connected");
                if (connected) {
                    assertTrue(!allReach && e.getMessage().contains("no route"), "seed " + seed + ": " + e.getMessage());
                    rejected++;
                }
            }
        }
        assertTrue(accepted > 20 && rejected > 20, accepted + " accepted, " + rejected + " rejected");
    }
}
