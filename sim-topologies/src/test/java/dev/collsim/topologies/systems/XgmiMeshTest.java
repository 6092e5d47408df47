package dev.collsim.topologies.systems;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.core.fabric.Fabric;
import dev.collsim.core.fabric.Link;
import dev.collsim.core.input.InputException;
import dev.collsim.core.nccl.Communicator;
import dev.collsim.core.nccl.LinkType;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class XgmiMeshTest {
    /** The seven rings share no direction of any link, and together use every direction of every link once. */
    @Test
    void theRingsCoverEveryLinkDirectionOnce() {
        Set<Integer> arcs = new HashSet<>();
        for (int[] ring : XgmiMesh.RINGS) {
            assertEquals(8, ring.length);
            assertEquals(8, java.util.Arrays.stream(ring).distinct().count(), "a ring visits every GPU once");
            for (int i = 0; i < 8; i++) {
                int arc = ring[i] * 8 + ring[(i + 1) % 8];
                assertTrue(arcs.add(arc), "a link direction used twice: " + ring[i] + "->" + ring[(i + 1) % 8]);
            }
        }
        assertEquals(56, arcs.size());
    }

    /**
     * An MI300X platform is 8 GPUs and 28 links, one per pair, each 48 GB/s each way (AMD's usable share of
     * 64), no switch; RCCL sees them as NVLink and runs its 28 rings twice over on gfx942 (56 channels; 112 on gfx950's
     * MI355X) over the seven rings that share no link direction.
     */
    @Test
    void mi300xIsAFullMeshOfXgmiLinks() {
        Communicator c = SystemPreset.MI300X_8X.build(1, 8, null, WhatIf.NONE);
        Fabric f = c.fabric();
        assertEquals(8, f.devices().size());
        assertEquals(56, f.links().size());
        for (Link l : f.links()) {
            assertEquals(48.0, l.rate().gigabytesPerSecond(), 1e-9);
            assertTrue(l.nvlink());
        }
        assertEquals(LinkType.NVLINK, c.nccl().intraLink());
        assertEquals(56, c.nccl().ring().channels());
        assertEquals(112, SystemPreset.MI355X_8X.build(1, 8, null, WhatIf.NONE).nccl().ring().channels());
        assertEquals(7, c.nccl().ringOrders().length);
        assertEquals(null, c.nccl().nvlsGraph());
        // Point-to-point keeps the ring search's channels (32, from 28).
        assertEquals(32, c.p2pChannels());
    }

    /**
     * Four GPUs of a platform: no three rings share no link direction, so all six, each direction in two; RCCL runs them
     * on 24 channels (its "NCCL_MIN_NCHANNELS=24"), four a ring. Two GPUs: one ring on 32 channels.
     */
    @Test
    void partOfAPlatformRingsOverEveryLinkAlike() {
        Communicator c = SystemPreset.MI300X_8X.build(1, 4, null, WhatIf.NONE);
        int[][] rings = c.nccl().ringOrders();
        assertEquals(6, rings.length);
        Map<Integer, Integer> arcs = new HashMap<>();
        for (int[] ring : rings) {
            assertEquals(4, java.util.Arrays.stream(ring).distinct().count());
            for (int i = 0; i < 4; i++) {
                arcs.merge(ring[i] * 4 + ring[(i + 1) % 4], 1, Integer::sum);
            }
        }
        assertEquals(12, arcs.size());
        assertTrue(arcs.values().stream().allMatch(k -> k == 2), arcs.toString());
        assertEquals(24, c.nccl().ring().channels());
        assertEquals(32, SystemPreset.MI300X_8X.build(1, 2, null, WhatIf.NONE).nccl().ring().channels());
    }

    /**
     * The ways through a node for rings across nodes: on any even GPU count they start at every GPU once, end at every GPU
     * once (so every NIC sends and receives for one of them) and together take every link direction once.
     */
    @Test
    void thePathsThroughANodeTakeEveryLinkDirectionOnce() {
        for (int n : new int[] {2, 4, 6, 8, 16}) {
            int[][] paths = XgmiMesh.paths(n);
            assertEquals(n, paths.length);
            Set<Integer> arcs = new HashSet<>();
            Set<Integer> starts = new HashSet<>();
            Set<Integer> ends = new HashSet<>();
            for (int[] path : paths) {
                assertEquals(n, java.util.Arrays.stream(path).distinct().count(), "a path visits every GPU once");
                starts.add(path[0]);
                ends.add(path[n - 1]);
                for (int i = 0; i + 1 < n; i++) {
                    assertTrue(arcs.add(path[i] * n + path[i + 1]), n + " GPUs: a link direction used twice");
                }
            }
            assertEquals(n * (n - 1), arcs.size());
            assertEquals(n, starts.size());
            assertEquals(n, ends.size());
        }
    }

    /**
     * Two MI355X platforms over RoCE: every GPU has its own NIC on its own rail; every hop between nodes stays on one rail
     * (the same GPU number on both sides); RCCL runs 48 channels across gfx950 nodes (64 on gfx942).
     */
    @Test
    void twoPlatformsJoinRailByRail() {
        Communicator c = SystemPreset.MI355X_8X.build(2, 8, null, WhatIf.NONE);
        assertEquals(2, c.nNodes());
        assertEquals(48, c.nccl().ring().channels());
        assertEquals(64, SystemPreset.MI300X_8X.build(2, 8, null, WhatIf.NONE).nccl().ring().channels());
        int[][] orders = c.nccl().ringOrders();
        assertEquals(8, orders.length);
        for (int[] order : orders) {
            for (int i = 0; i < order.length; i++) {
                int a = order[i];
                int z = order[(i + 1) % order.length];
                if (a / 8 != z / 8) {
                    assertEquals(a % 8, z % 8, "a hop between nodes changes rails: " + a + "->" + z);
                }
            }
        }
        assertEquals(8, c.fabric().devicesOfKind(dev.collsim.core.fabric.DeviceKind.NIC).size() / 2);
    }

    @Test
    void instinctNodesJoinOnlyOverRdmaWithOneNicAGpu() {
        InputException tcp = assertThrows(InputException.class,
                () -> SystemPreset.MI355X_8X.build(2, 8, dev.collsim.topologies.catalog.NetworkPreset.TCP, WhatIf.NONE));
        assertTrue(tcp.getMessage().startsWith("--network tcp: staging through host memory is built for the HGX presets"), tcp.getMessage());
        WhatIf twoNics = new WhatIf(null, 2, 1, 1, true, java.util.Map.of(), java.util.Map.of(), java.util.List.of());
        InputException nics = assertThrows(InputException.class, () -> SystemPreset.MI300X_8X.build(2, 8, null, twoNics));
        assertTrue(nics.getMessage().startsWith("--nics-per-gpu: mi300x-8x places the NICs (8 per node)"), nics.getMessage());
    }
}
