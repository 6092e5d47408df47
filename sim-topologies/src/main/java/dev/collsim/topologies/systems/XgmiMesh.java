package dev.collsim.topologies.systems;

import dev.collsim.core.fabric.DeviceKind;
import dev.collsim.core.fabric.Fabric;
import dev.collsim.core.fabric.FabricBuilder;
import dev.collsim.core.fabric.LinkTechnology;
import dev.collsim.core.input.InputException;
import dev.collsim.core.nccl.Communicator;
import dev.collsim.core.units.Rate;
import dev.collsim.core.units.TimeSpan;
import dev.collsim.topologies.catalog.GpuModel;
import dev.collsim.topologies.catalog.NetworkPreset;
import dev.collsim.topologies.catalog.NvLinkGeneration;
import dev.collsim.topologies.catalog.PcieGeneration;
import java.util.Arrays;
import java.util.stream.IntStream;

/**
 * An AMD Instinct platform of eight OAM GPUs with no switch between them: every pair is joined by its
 * own Infinity Fabric (xGMI) link, seven a GPU (AMD ROCm docs, {@code gpu-arch/mi300}). A ring uses one
 * link to its next GPU, so RCCL runs rings over different links (its MI300X topology models list
 * Hamiltonian rings); all eight GPUs' 56 link directions fall into seven rings of their own
 * ({@link #RINGS}), each of a GPU's seven links carrying one ring's traffic out. A link carries its usable
 * share of its raw rate ({@link GpuModel.Xgmi#usableRate}).
 *
 * <p>One node for now: joining Instinct nodes over RoCE is not built yet. A topology file of such a node
 * (xGMI links between every pair, {@code topo import} of {@code rocm-smi --showtopo}) gets the same rings.
 *
 * @param gpusPerNode GPUs of the platform (8)
 * @param pcie        the GPUs' host links
 */
public record XgmiMesh(int gpusPerNode, PcieGeneration pcie) implements SystemFamily {
    /**
     * What RCCL's topology counts an xGMI link at, on MI300X and MI355X alike ({@code GFX94X_XGMI_WIDTH},
     * {@code GFX95X_XGMI_WIDTH}, ROCm/rccl {@code src/graph/topo.h} @ 08814b0): its ring search and tuner
     * see 7 x 48 GB/s, whatever the links carry.
     */
    static final double RCCL_XGMI_WIDTH = 48;

    /**
     * Seven rings over eight GPUs that share no link direction: a decomposition of the complete directed
     * graph on eight vertices into Hamiltonian cycles (one exists for every size but 4 and 6, Tillson 1980),
     * found by a search over rings that start at GPU 0. XgmiMeshTest checks that they cover every
     * direction of every link once.
     */
    static final int[][] RINGS = {
        {0, 1, 2, 3, 4, 5, 6, 7}, {0, 2, 1, 3, 5, 4, 7, 6}, {0, 3, 1, 4, 6, 2, 7, 5}, {0, 4, 1, 5, 7, 2, 6, 3},
        {0, 5, 3, 6, 1, 7, 4, 2}, {0, 6, 5, 2, 4, 3, 7, 1}, {0, 7, 3, 2, 5, 1, 6, 4}};

    /**
     * One platform, its first {@code gpus} GPUs in use. On all eight the rings are {@link #RINGS}; on fewer,
     * rank order (RCCL's models for fewer GPUs of the mesh are not reproduced), and RCCL's search sees the
     * links among them.
     */
    @Override
    public Communicator build(SystemPreset preset, int nodes, int gpus, NetworkPreset network, WhatIf whatIf) {
        if (nodes != 1) {
            throw new InputException("--nodes " + nodes + ": " + preset.id() + " is one Instinct platform; joining them over a network is"
                    + " not built yet");
        }
        preset.gpusPerNode(gpus);
        GpuModel gpu = preset.gpu();
        Rate link = gpu.xgmi().usableRate().times(whatIf.rate(WhatIf.LinkClass.NVLINK));
        // A step's route is one xGMI hop where NVLink's crosses the switch: its latency is taken as NVLink's two hops, so a
        // step costs RCCL's step latency either way.
        TimeSpan hop = NvLinkGeneration.HOP_LATENCY.times(2 * whatIf.latency(WhatIf.LinkClass.NVLINK));
        FabricBuilder b = new FabricBuilder();
        int[] devices = new int[gpusPerNode];
        for (int g = 0; g < gpusPerNode; g++) {
            devices[g] = b.addDevice("gpu" + g, DeviceKind.GPU);
            for (int other = 0; other < g; other++) {
                b.addDuplex(devices[other], devices[g], link, hop, "xGMI", LinkTechnology.XGMI, 1);
            }
        }
        return FabricCommunicator.build(preset.id(), gpu, b.build(), Arrays.copyOf(devices, gpus), new int[gpus], true);
    }

    /**
     * The rings of a node whose GPUs are every pair joined directly by its own GPU-to-GPU link (an Instinct
     * platform, a preset's or a file's), none sharing a link direction: on eight GPUs {@link #RINGS}, which use
     * every direction; on n others the rings that step by each stride prime to n (RCCL's own models for part of
     * a platform are not reproduced). Null for any other node, whose rings take rank order.
     */
    static int[][] rings(Fabric fabric, int[] ranks, int[] rankNodes) {
        int n = ranks.length;
        if (n < 2 || Arrays.stream(rankNodes).anyMatch(k -> k != rankNodes[0])) {
            return null;
        }
        for (int a : ranks) {
            for (int z : ranks) {
                if (a != z && Arrays.stream(fabric.outLinks(a)).noneMatch(l -> fabric.link(l).to() == z && fabric.link(l).nvlink())) {
                    return null;
                }
            }
        }
        if (n == RINGS[0].length) {
            return RINGS;
        }
        return IntStream.range(1, n).filter(stride -> gcd(stride, n) == 1)
                .mapToObj(stride -> IntStream.range(0, n).map(i -> i * stride % n).toArray()).toArray(int[][]::new);
    }

    private static int gcd(int a, int b) {
        return b == 0 ? a : gcd(b, a % b);
    }
}
