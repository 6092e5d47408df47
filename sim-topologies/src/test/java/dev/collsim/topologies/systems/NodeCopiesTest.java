package dev.collsim.topologies.systems;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.core.collective.CollectiveOp;
import dev.collsim.core.collective.Protocol;
import dev.collsim.core.input.InputException;
import dev.collsim.core.nccl.AlgorithmId;
import dev.collsim.core.nccl.Communicator;
import dev.collsim.core.nccl.NcclPlanner;
import dev.collsim.core.nccl.Plan;
import dev.collsim.topologies.catalog.NetworkPreset;
import dev.collsim.topologies.file.TopologyFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Copies of a topology file's node joined by a rail-optimised network, its NICs where the file puts them. */
class NodeCopiesTest {
    /** An HGX-like node: 8 GPUs on an NVSwitch, each on a PCIe switch of its own or shared by two, with {@code nics} NICs. */
    private static Path node(Path dir, int nics) throws Exception {
        StringBuilder y = new StringBuilder("version: 1\nname: node" + nics + "\ngpu: h100\ndevices:\n  - {name: nvs, kind: nvswitch,"
                + " capabilities: [nvls]}\n");
        int perSwitch = 8 / nics;
        for (int g = 0; g < 8; g++) {
            y.append("  - {name: gpu").append(g).append(", kind: gpu}\n");
        }
        for (int i = 0; i < nics; i++) {
            y.append("  - {name: pcie").append(i).append(", kind: pcie-switch}\n  - {name: nic").append(i).append(", kind: nic}\n");
        }
        y.append("links:\n");
        for (int g = 0; g < 8; g++) {
            y.append("  - {from: gpu").append(g).append(", to: nvs, rate: 370.8GB/s, latency: 250ns, class: NVLink4 x18}\n");
            y.append("  - {from: gpu").append(g).append(", to: pcie").append(g / perSwitch).append(", rate: 54.4GB/s, latency: 200ns, class: PCIe}\n");
        }
        for (int i = 0; i < nics; i++) {
            y.append("  - {from: nic").append(i).append(", to: pcie").append(i).append(", rate: 54.4GB/s, latency: 200ns, class: PCIe}\n");
        }
        Path file = dir.resolve("node" + nics + ".yaml");
        Files.writeString(file, y.toString());
        return file;
    }

    private static double ringMicros(Communicator c, long bytes) {
        Plan plan = NcclPlanner.plan(c, CollectiveOp.ALL_REDUCE, bytes, 0, EnumSet.of(AlgorithmId.RING), EnumSet.of(Protocol.SIMPLE), 0);
        return c.simulate(plan, null, false).durationMicros();
    }

    @Test
    void fourNodesOfAFileRunAndTheirNicPlacementCounts(@TempDir Path dir) throws Exception {
        FabricSystem eight = NodeCopies.join(TopologyFile.loadSystem(node(dir, 8)), 4, NetworkPreset.IB_NDR, WhatIf.NONE);
        FabricSystem four = NodeCopies.join(TopologyFile.loadSystem(node(dir, 4)), 4, NetworkPreset.IB_NDR, WhatIf.NONE);
        assertEquals(4, eight.nodes());
        assertEquals(32, eight.ranks().length);
        java.util.Set<String> names = eight.fabric().devices().stream().map(dev.collsim.core.fabric.Device::name)
                .collect(java.util.stream.Collectors.toSet());
        assertTrue(names.containsAll(java.util.List.of("n3.gpu7", "n0.nic0", "leaf7", "spine")), names.toString());
        double withEight = ringMicros(eight.communicator(), 256L << 20);
        double withFour = ringMicros(four.communicator(), 256L << 20);
        // Half the NICs: each carries two GPUs' rings across nodes, so the ring takes longer.
        assertTrue(withFour > 1.3 * withEight, withFour + " us with 4 NICs a node, " + withEight + " us with 8");
        // A NIC twice as fast makes the 4-NIC node faster.
        WhatIf fast = new WhatIf(dev.collsim.core.units.Rate.parse("800Gb/s"), 0, 1, 1, true, java.util.Map.of(), java.util.Map.of(),
                java.util.List.of());
        double fastFour = ringMicros(NodeCopies.join(TopologyFile.loadSystem(node(dir, 4)), 4, NetworkPreset.IB_NDR, fast).communicator(),
                256L << 20);
        assertTrue(fastFour < withFour, fastFour + " against " + withFour);
    }

    /**
     * The HGX H100 node written out with its NICs (topologies/hgx-h100-nics.yaml), joined as 2 and 4
     * nodes, is the preset's cluster without in-network reduction (off by default, as in NCCL): NCCL's choice and its
     * time are the same to the picosecond.
     */
    @Test
    void theHgxNodeFileJoinedIsThePresetCluster() {
        FabricSystem node = TopologyFile.loadSystem(Path.of("../topologies/hgx-h100-nics.yaml"));
        for (int nodes : new int[] {2, 4}) {
            Communicator file = NodeCopies.join(node, nodes, NetworkPreset.IB_NDR, WhatIf.NONE).communicator();
            Communicator preset = SystemPreset.HGX_H100.build(nodes, 8, NetworkPreset.IB_NDR, WhatIf.NONE).withoutCollNet();
            for (CollectiveOp op : java.util.List.of(CollectiveOp.ALL_REDUCE, CollectiveOp.ALL_GATHER, CollectiveOp.ALL_TO_ALL)) {
                for (long bytes : new long[] {1L << 16, 1L << 26}) {
                    Plan a = NcclPlanner.plan(file, op, bytes, 0, EnumSet.allOf(AlgorithmId.class), EnumSet.allOf(Protocol.class), 0);
                    Plan b = NcclPlanner.plan(preset, op, bytes, 0, EnumSet.allOf(AlgorithmId.class), EnumSet.allOf(Protocol.class), 0);
                    String what = op.ncclName() + " of " + bytes + " B on " + nodes + " nodes";
                    assertEquals(b.algo(), a.algo(), what);
                    assertEquals(preset.simulate(b, null, false).durationPicos(), file.simulate(a, null, false).durationPicos(), what);
                }
            }
        }
    }

    @Test
    void aFileWithoutNicsOrAlreadyJoinedIsAnError(@TempDir Path dir) throws Exception {
        FabricSystem noNics = TopologyFile.loadSystem(Path.of("../topologies/nvlink-pairs-4gpu.yaml"));
        InputException x = assertThrows(InputException.class, () -> NodeCopies.join(noNics, 2, NetworkPreset.IB_NDR, WhatIf.NONE));
        assertTrue(x.getMessage().contains("the file has none"), x.getMessage());
        FabricSystem joined = NodeCopies.join(TopologyFile.loadSystem(node(dir, 8)), 2, NetworkPreset.IB_NDR, WhatIf.NONE);
        assertThrows(InputException.class, () -> NodeCopies.join(joined, 2, NetworkPreset.IB_NDR, WhatIf.NONE));
        InputException tcp = assertThrows(InputException.class,
                () -> NodeCopies.join(TopologyFile.loadSystem(node(dir, 8)), 2, NetworkPreset.TCP, WhatIf.NONE));
        assertTrue(tcp.getMessage().startsWith("--network tcp"), tcp.getMessage());
    }
}
