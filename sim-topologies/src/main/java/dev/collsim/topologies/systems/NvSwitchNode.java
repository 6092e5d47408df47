package dev.collsim.topologies.systems;

import dev.collsim.core.fabric.Capability;
import dev.collsim.core.fabric.DeviceKind;
import dev.collsim.core.fabric.Fabric;
import dev.collsim.core.fabric.FabricBuilder;
import dev.collsim.core.nccl.Communicator;
import dev.collsim.core.nccl.LinkType;
import dev.collsim.core.nccl.NvlsGraph;
import dev.collsim.core.nccl.RingGraph;
import dev.collsim.core.units.Rate;
import dev.collsim.topologies.catalog.GpuModel;
import dev.collsim.topologies.catalog.NvLinkGeneration;
import dev.collsim.topologies.catalog.ProtocolCostCatalog;
import java.util.Arrays;
import java.util.Set;

/**
 * One HGX/DGX node: G GPUs joined by NVSwitch.
 *
 * <p>On Hopper and Blackwell the switch can reduce and multicast (NVLS). The board's NVSwitch chips
 * are modelled as one crossbar device, and each GPU's NVLinks to them
 * as one bundle per direction carrying the sum of its links. That is exact for traffic that
 * stripes over all links, which is what NVLink address interleaving does; the chips as they are
 * wired come with the fabrics issue.
 */
public final class NvSwitchNode {
    private NvSwitchNode() {}

    /** Builds a node of {@code gpus} GPUs of a preset (1 to the preset's GPUs per node). */
    public static Communicator build(SystemPreset preset, int gpus) {
        preset.gpusPerNode(gpus);
        GpuModel gpu = preset.gpu();
        NvLinkGeneration nvlink = gpu.nvlink();
        Rate bundle = nvlink.effectiveRate().times(gpu.nvlinks());
        String linkClass = nvlink.label() + " x" + gpu.nvlinks();
        FabricBuilder b = new FabricBuilder();
        int[] ranks = new int[gpus];
        for (int g = 0; g < gpus; g++) {
            ranks[g] = b.addDevice("gpu" + g, DeviceKind.GPU);
        }
        boolean nvls = gpu.arch().nvlsEfficiency() > 0;
        int nvs = b.addDevice("nvswitch", DeviceKind.NVSWITCH, nvls ? Set.of(Capability.NVLS) : Set.of());
        for (int g = 0; g < gpus; g++) {
            b.addDuplex(ranks[g], nvs, bundle, NvLinkGeneration.HOP_LATENCY, linkClass);
        }
        Fabric fabric = b.build();
        RingGraph ring = RingGraph.search(gpu.arch(), bundle.gigabytesPerSecond());
        int[] switches = new int[gpus];
        Arrays.fill(switches, nvls ? nvs : -1);
        NvlsGraph nvlsGraph = nvls ? NvlsGraph.search(gpu.arch(), bundle.gigabytesPerSecond(), gpus) : null;
        return new Communicator(preset.id(), fabric, ranks, switches, new int[gpus], gpu.arch(), LinkType.NVLINK, ring, nvlsGraph,
                ProtocolCostCatalog.nvlink(gpu.arch()), nvls ? ProtocolCostCatalog.nvls(gpu.arch()) : null,
                ProtocolCostCatalog.CUSTOM_KERNELS, ProtocolCostCatalog.HOST_LAUNCH);
    }
}
