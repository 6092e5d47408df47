package dev.collsim.topologies.systems;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.core.fabric.Fabric;
import dev.collsim.core.fabric.Link;
import dev.collsim.core.input.InputException;
import dev.collsim.core.nccl.Communicator;
import dev.collsim.core.nccl.LinkType;
import java.util.HashSet;
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
     * 64), no switch; RCCL sees them as NVLink and runs 28 ring channels over the seven rings.
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
        assertEquals(28, c.nccl().ring().channels());
        assertEquals(7, c.nccl().ringOrders().length);
        assertEquals(null, c.nccl().nvlsGraph());
    }

    /** Four GPUs of a platform: the rings of strides 1 and 3, which share no link direction, so the ring takes two links' worth. */
    @Test
    void partOfAPlatformRingsOverDisjointLinks() {
        Communicator c = SystemPreset.MI300X_8X.build(1, 4, null, WhatIf.NONE);
        int[][] rings = c.nccl().ringOrders();
        assertEquals(2, rings.length);
        assertEquals(java.util.List.of(0, 3, 2, 1), java.util.Arrays.stream(rings[1]).boxed().toList());
        Set<Integer> arcs = new HashSet<>();
        for (int[] ring : rings) {
            for (int i = 0; i < 4; i++) {
                assertTrue(arcs.add(ring[i] * 4 + ring[(i + 1) % 4]));
            }
        }
    }

    @Test
    void instinctPlatformsAreOneNodeForNow() {
        InputException e = assertThrows(InputException.class, () -> SystemPreset.MI355X_8X.build(2, 8, null, WhatIf.NONE));
        assertTrue(e.getMessage().startsWith("--nodes 2: mi355x-8x is one Instinct platform"), e.getMessage());
    }
}
