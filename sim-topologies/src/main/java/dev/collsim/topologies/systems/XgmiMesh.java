package dev.collsim.topologies.systems;

import dev.collsim.core.fabric.DeviceKind;
import dev.collsim.core.fabric.Fabric;
import dev.collsim.core.fabric.FabricBuilder;
import dev.collsim.core.fabric.LinkTechnology;
import dev.collsim.core.input.Require;
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
 * <p>Across nodes each GPU's own NIC joins its rail ({@link NodeCopies}), and each ring's way through a node is one of
 * eight paths that together take every link direction once ({@link #paths}). A topology file of such a node (xGMI
 * links between every pair, {@code topo import} of {@code rocm-smi --showtopo}) gets the same rings.
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
     * The rings of four GPUs: no set of three shares no link direction (the complete directed graph on four vertices has no
     * Hamiltonian decomposition, Tillson 1980), so all six, which take every direction twice and so load all three of a
     * GPU's links alike. RCCL's rings on four MI300X carry about three links' worth (a 64 MiB all_reduce at 132 GB/s busbw
     * in MK1_MI300X_1N4_QR_RCCL).
     */
    static final int[][] FOUR_RINGS = {{0, 1, 2, 3}, {0, 1, 3, 2}, {0, 2, 1, 3}, {0, 2, 3, 1}, {0, 3, 1, 2}, {0, 3, 2, 1}};

    /**
     * Platforms of which the first {@code gpus} GPUs are in use: on one, the mesh alone; across several, every GPU also
     * has its own NIC under its own PCIe switch, the eight NICs of a node on eight rails of {@code network} (RoCE unless
     * named), as AMD's and the OEMs' OAM platforms place them (one 400 Gb/s NIC a GPU: Pollara, Thor2 or ConnectX-7).
     */
    @Override
    public Communicator build(SystemPreset preset, int nodes, int gpus, NetworkPreset network, WhatIf whatIf) {
        Require.atLeastOne("--nodes", nodes);
        preset.gpusPerNode(gpus);
        HgxCluster.requireBuildable("--nodes " + nodes, (long) nodes * gpus);
        GpuModel gpu = preset.gpu();
        Rate link = gpu.xgmi().usableRate().times(whatIf.rate(WhatIf.LinkClass.NVLINK));
        // A step's route is one xGMI hop where NVLink's crosses the switch: its latency is taken as NVLink's two hops, so a
        // step costs RCCL's step latency either way.
        TimeSpan hop = NvLinkGeneration.HOP_LATENCY.times(2 * whatIf.latency(WhatIf.LinkClass.NVLINK));
        Rate pcieRate = pcie.effectiveRate().times(whatIf.rate(WhatIf.LinkClass.PCIE));
        TimeSpan pcieHop = PcieGeneration.HOP_LATENCY.times(whatIf.latency(WhatIf.LinkClass.PCIE));
        FabricBuilder b = new FabricBuilder();
        int[] devices = new int[gpusPerNode];
        for (int g = 0; g < gpusPerNode; g++) {
            devices[g] = b.addDevice("gpu" + g, DeviceKind.GPU);
            for (int other = 0; other < g; other++) {
                b.addDuplex(devices[other], devices[g], link, hop, "xGMI", LinkTechnology.XGMI, 1);
            }
            if (nodes > 1) {
                int sw = b.addDevice("pcie" + g, DeviceKind.PCIE_SWITCH);
                int nic = b.addDevice("nic" + g, DeviceKind.NIC);
                b.addDuplex(devices[g], sw, pcieRate, pcieHop, pcie.label(), LinkTechnology.PCIE, PcieGeneration.LANES);
                b.addDuplex(nic, sw, pcieRate, pcieHop, pcie.label(), LinkTechnology.PCIE, PcieGeneration.LANES);
            }
        }
        FabricSystem node = new FabricSystem(preset.id(), gpu, b.build(), Arrays.copyOf(devices, gpus), new int[gpus], true);
        if (nodes == 1) {
            return node.communicator();
        }
        return NodeCopies.join(node, nodes, network == null ? defaultNetwork() : network, whatIf, preset.id()).communicator();
    }

    /** RoCE: AMD's platforms ship Ethernet NICs (Pollara, Thor2) or ConnectX-7 run as RoCE. */
    @Override
    public NetworkPreset defaultNetwork() {
        return NetworkPreset.ROCE;
    }

    @Override
    public int maxNodes() {
        return Integer.MAX_VALUE;
    }

    /**
     * The rings of nodes whose GPUs are every pair joined directly by its own GPU-to-GPU link (Instinct platforms, a
     * preset's or a file's), in local GPU numbers (a node's ranks in rank order). On one node: on eight GPUs {@link
     * #RINGS}, which take every link direction once; on four {@link #FOUR_RINGS}, every direction twice; on n others the
     * rings that step by each stride prime to n, which share no direction (RCCL's own models for part of a platform are
     * not reproduced). Across nodes, the ways through a node ({@link #paths}). Null unless every node is such a mesh of as
     * many ranks: then rings take rank order (a switch).
     */
    static int[][] rings(Fabric fabric, int[] ranks, int[] rankNodes) {
        int nodes = Arrays.stream(rankNodes).max().orElse(0) + 1;
        int[][] members = new int[nodes][];
        int[] count = new int[nodes];
        for (int k : rankNodes) {
            count[k]++;
        }
        for (int k = 0; k < nodes; k++) {
            members[k] = new int[count[k]];
            count[k] = 0;
        }
        for (int r = 0; r < ranks.length; r++) {
            members[rankNodes[r]][count[rankNodes[r]]++] = ranks[r];
        }
        int perNode = members[0].length;
        for (int[] node : members) {
            if (node.length != perNode || perNode < 2 || !fullMesh(fabric, node)) {
                return null;
            }
        }
        if (nodes > 1) {
            return paths(perNode);
        }
        if (perNode == RINGS[0].length) {
            return RINGS;
        }
        if (perNode == FOUR_RINGS[0].length) {
            return FOUR_RINGS;
        }
        return IntStream.range(1, perNode).filter(stride -> gcd(stride, perNode) == 1)
                .mapToObj(stride -> IntStream.range(0, perNode).map(i -> i * stride % perNode).toArray()).toArray(int[][]::new);
    }

    /**
     * Ways through a mesh node of {@code n} GPUs for rings across nodes, one starting and one ending at each GPU (so at
     * each NIC) and, for even n, together taking every link direction once, as RCCL's models of 8-GPU, 8-NIC platforms do
     * ({@code rome_model_81} in ROCm/rccl {@code src/graph/rome_models.cc}: 8 ways, each of the 56 directions once). They
     * are the zigzag 0, 1, n-1, 2, n-2, ... turned by 0 to n/2-1 (a decomposition of the complete graph into Hamiltonian
     * paths, Walecki's construction) and each of those reversed. For odd n, rank order turned by each GPU.
     */
    static int[][] paths(int n) {
        if (n % 2 == 1) {
            return IntStream.range(0, n).mapToObj(s -> IntStream.range(0, n).map(j -> (s + j) % n).toArray()).toArray(int[][]::new);
        }
        int[] zigzag = IntStream.range(0, n).map(j -> j == 0 ? 0 : j % 2 == 1 ? (j + 1) / 2 : n - j / 2).toArray();
        int[][] paths = new int[n][n];
        for (int turn = 0; turn < n / 2; turn++) {
            for (int j = 0; j < n; j++) {
                paths[turn][j] = (zigzag[j] + turn) % n;
                paths[n / 2 + turn][n - 1 - j] = paths[turn][j];
            }
        }
        return paths;
    }

    /** Whether every two of {@code gpus} are joined by a GPU-to-GPU link of their own. */
    private static boolean fullMesh(Fabric fabric, int[] gpus) {
        for (int a : gpus) {
            for (int z : gpus) {
                if (a != z && Arrays.stream(fabric.outLinks(a)).noneMatch(l -> fabric.link(l).to() == z && fabric.link(l).nvlink())) {
                    return false;
                }
            }
        }
        return true;
    }

    private static int gcd(int a, int b) {
        return b == 0 ? a : gcd(b, a % b);
    }
}
