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
        assertArrayEquals(new int[] {0}, f.router().route(g0, g1).links());
        assertArrayEquals(new int[] {2, 5}, f.router().route(g1, g2).links());
        assertArrayEquals(new int[] {6, 5}, f.router().route(g0, g2).links());
        assertEquals(200_000, f.router().route(g1, g2).latencyPicos());
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
        assertEquals(1, f.router().route(g0, g1).links().length);

        Fabric slow = f.withEdits(List.of(new LinkEdit("g1", "g0", 0.5)));
        assertEquals(5, slow.links().get(0).rate().gigabytesPerSecond(), 1e-9);
        assertEquals(5, slow.links().get(1).rate().gigabytesPerSecond(), 1e-9);
        assertEquals(10, slow.links().get(2).rate().gigabytesPerSecond(), 1e-9);

        Fabric down = f.withEdits(List.of(LinkEdit.down("g0", "g1")));
        assertEquals(4, down.links().size());
        assertArrayEquals(new int[] {0, 3}, down.router().route(g0, g1).links(), "g0 -> sw -> g1, links renumbered");
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
                    links.add(new Link(links.size(), ends[0], ends[1], R, L, "x", LinkTechnology.OTHER, 1));
                }
            }
            Fabric unchecked = new Fabric(devices, links);
            boolean allReach = true;
            boolean connected = true;
            for (Device g : unchecked.devicesOfKind(DeviceKind.GPU)) {
                boolean[] reached = unchecked.router().reachableFrom(g.id());
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

    /**
     * The search from both ends must find exactly the route the search from one end alone finds,
     * widths, ECMP hashes and first-found ties included: random fabrics of every kind of device, with
     * two link rates so that widths tie, and network switches so that ECMP chooses.
     */
    @Test
    void searchFromBothEndsFindsTheRoutesOfTheWholeSearch() {
        DeviceKind[] kinds = DeviceKind.values();
        Rate[] rates = {R, Rate.gigabytesPerSecond(20)};
        int pairs = 0;
        int routed = 0;
        for (long seed = 1; seed <= 300; seed++) {
            java.util.Random rnd = new java.util.Random(seed);
            int n = 4 + rnd.nextInt(30);
            List<Device> devices = new java.util.ArrayList<>();
            for (int d = 0; d < n; d++) {
                DeviceKind k = d < 2 ? DeviceKind.GPU : kinds[rnd.nextInt(kinds.length)];
                devices.add(new Device(d, "d" + d, k, java.util.Set.of()));
            }
            List<Link> links = new java.util.ArrayList<>();
            for (int i = 0, wanted = n + rnd.nextInt(3 * n); i < wanted; i++) {
                int from = rnd.nextInt(n);
                int to = rnd.nextInt(n);
                if (from != to) {
                    Rate rate = rates[rnd.nextInt(rates.length)];
                    links.add(new Link(links.size(), from, to, rate, L, "x", LinkTechnology.OTHER, 1));
                    if (rnd.nextInt(3) > 0) {
                        links.add(new Link(links.size(), to, from, rate, L, "x", LinkTechnology.OTHER, 1));
                    }
                }
            }
            Fabric f = new Fabric(devices, links);
            for (int from = 0; from < n; from++) {
                for (int to = 0; to < n; to++) {
                    if (from != to) {
                        Route whole = f.router().routeByWholeSearch(from, to);
                        int[] found = routeOrNull(f, from, to);
                        assertArrayEquals(whole == null ? null : whole.links(), found, "seed " + seed + ": " + from + " -> " + to);
                        pairs++;
                        routed += whole == null ? 0 : 1;
                    }
                }
            }
        }
        assertTrue(routed > 10_000 && pairs - routed > 10_000, routed + " of " + pairs + " pairs routed");
    }

    /** The same on rail-optimised clusters, where ECMP spreads pairs over the spines and most routes cross them. */
    @Test
    void searchFromBothEndsFindsTheWholeSearchsRoutesOnAFatTree() {
        for (int spines : new int[] {1, 3}) {
            FabricBuilder b = new FabricBuilder();
            int nodes = 6;
            int gpusPerNode = 4;
            int[] leaves = new int[gpusPerNode];
            for (int r = 0; r < gpusPerNode; r++) {
                leaves[r] = b.addDevice("leaf" + r, DeviceKind.NETWORK_SWITCH);
            }
            for (int s = 0; s < spines; s++) {
                int spine = b.addDevice("spine" + s, DeviceKind.NETWORK_SWITCH);
                for (int leaf : leaves) {
                    b.addDuplex(leaf, spine, R, L, "uplink");
                }
            }
            List<Integer> gpus = new java.util.ArrayList<>();
            for (int node = 0; node < nodes; node++) {
                int nvswitch = b.addDevice("n" + node + "/nvs", DeviceKind.NVSWITCH);
                int cpu = b.addDevice("n" + node + "/cpu", DeviceKind.CPU);
                for (int g = 0; g < gpusPerNode; g++) {
                    int gpu = b.addDevice("n" + node + "/gpu" + g, DeviceKind.GPU);
                    int pcie = b.addDevice("n" + node + "/pcie" + g, DeviceKind.PCIE_SWITCH);
                    int nic = b.addDevice("n" + node + "/nic" + g, DeviceKind.NIC);
                    b.addDuplex(gpu, nvswitch, Rate.gigabytesPerSecond(450), L, "nvlink");
                    b.addDuplex(gpu, pcie, Rate.gigabytesPerSecond(50), L, "pcie");
                    b.addDuplex(pcie, nic, Rate.gigabytesPerSecond(50), L, "pcie");
                    b.addDuplex(pcie, cpu, Rate.gigabytesPerSecond(50), L, "pcie");
                    b.addDuplex(nic, leaves[g], Rate.gigabytesPerSecond(50), L, "ib");
                    gpus.add(gpu);
                }
            }
            Fabric f = b.build();
            int crossingSpines = 0;
            for (int from : gpus) {
                for (int to = 0; to < f.devices().size(); to++) {
                    if (from != to) {
                        Route whole = f.router().routeByWholeSearch(from, to);
                        assertArrayEquals(whole.links(), f.router().route(from, to).links(), spines + " spines: " + from + " -> " + to);
                        crossingSpines += whole.links().length >= 7 ? 1 : 0;
                    }
                }
            }
            assertTrue(crossingSpines > 100, crossingSpines + " routes across a spine");
        }
    }

    private static int[] routeOrNull(Fabric f, int from, int to) {
        try {
            return f.router().route(from, to).links();
        } catch (IllegalStateException e) {
            return null;
        }
    }
}
