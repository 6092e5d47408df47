package dev.collsim.topologies.systems;

import dev.collsim.core.collective.HostMemory;
import dev.collsim.core.collective.RankPlacement;
import dev.collsim.core.fabric.Capability;
import dev.collsim.core.fabric.Device;
import dev.collsim.core.fabric.DeviceKind;
import dev.collsim.core.fabric.Fabric;
import dev.collsim.core.fabric.Link;
import dev.collsim.core.input.InputException;
import dev.collsim.core.nccl.Communicator;
import dev.collsim.core.nccl.CostBook;
import dev.collsim.core.nccl.LinkType;
import dev.collsim.core.nccl.NcclArch;
import dev.collsim.core.nccl.NcclView;
import dev.collsim.core.units.TimeSpan;
import dev.collsim.topologies.catalog.GpuModel;
import dev.collsim.topologies.catalog.NetworkPreset;
import dev.collsim.topologies.catalog.ProtocolCostCatalog;
import dev.collsim.topologies.view.TopoMatrix;
import java.util.Arrays;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * A communicator over any fabric (a topology file's, a PCIe server's): what NCCL would make of it,
 * derived from the links themselves.
 *
 * <p>NCCL sees NVLink inside a node only when every pair of its GPUs talks over NVLink alone; its
 * ring search then uses the GPU's NVLink bandwidth, otherwise its fastest other link. NVLS is on when
 * every GPU links to an NVSwitch with the {@code nvls} capability and the GPU generation has it.
 * Across nodes the fastest NIC-to-network-switch link sets NCCL's inter-node speed. Without
 * peer-to-peer access, transfers inside a node are staged through the memory of the CPU nearest
 * the receiver (NCCL's SHM transport).
 */
public final class FabricCommunicator {
    private FabricCommunicator() {}

    /**
     * @param ranks     fabric device of each rank's GPU, node by node
     * @param rankNodes node of each rank
     * @param p2p       whether GPUs of a node reach each other's memory directly
     * @throws InputException if {@code p2p} is off and a GPU has no CPU to stage through
     */
    public static Communicator build(String name, GpuModel gpu, Fabric fabric, int[] ranks, int[] rankNodes, boolean p2p) {
        return build(name, gpu, fabric, ranks, rankNodes, p2p, null);
    }

    /**
     * As above, the nodes joined by {@code network} (or null where the fabric's links say all there
     * is): across nodes NCCL's inter-node latency and each step's network costs are the network's,
     * with what a step's route across nodes adds over one inside a node, as the presets have.
     */
    public static Communicator build(String name, GpuModel gpu, Fabric fabric, int[] ranks, int[] rankNodes, boolean p2p,
                                     NetworkPreset network) {
        return build(name, gpu, fabric, ranks, rankNodes, p2p, network, true);
    }

    /** As above, with the library's flush of what a NIC wrote turned off ({@code gdrFlush} false) or left as it is. */
    public static Communicator build(String name, GpuModel gpu, Fabric fabric, int[] ranks, int[] rankNodes, boolean p2p,
                                     NetworkPreset network, boolean gdrFlush) {
        int n = ranks.length;
        NcclArch arch = gpu.arch();
        double nvlinkBw = 0;
        double pciBw = 0;
        for (int l : fabric.outLinks(ranks[0])) {
            Link link = fabric.link(l);
            if (link.nvlink()) {
                nvlinkBw += link.rate().gigabytesPerSecond();
            } else {
                pciBw = Math.max(pciBw, link.rate().gigabytesPerSecond());
            }
        }
        boolean allNvlink = nvlinkBw > 0;
        for (int a = 0; a < n && allNvlink; a++) {
            for (int z = 0; z < n && allNvlink; z++) {
                if (a != z && rankNodes[a] == rankNodes[z]) {
                    allNvlink = TopoMatrix.nvlinkOnly(fabric, ranks[a], ranks[z]);
                }
            }
        }
        LinkType intra = allNvlink ? LinkType.NVLINK : LinkType.PCI;
        int[][] nodeRings = XgmiMesh.rings(fabric, ranks, rankNodes);
        if (arch.rccl() && allNvlink) {
            // RCCL's topology counts an xGMI link to another GPU of the communicator at its own width, whatever the link carries.
            Set<Integer> gpus = Arrays.stream(ranks).boxed().collect(Collectors.toSet());
            nvlinkBw = Arrays.stream(fabric.outLinks(ranks[0])).filter(l -> fabric.link(l).nvlink() && gpus.contains(fabric.link(l).to()))
                    .count() * XgmiMesh.RCCL_XGMI_WIDTH;
        }
        int[] switches = new int[n];
        boolean nvls = arch.nvlsEfficiency() > 0;
        for (int r = 0; r < n; r++) {
            switches[r] = nvlsSwitch(fabric, ranks[r]);
            nvls &= switches[r] >= 0;
        }
        if (!nvls) {
            Arrays.fill(switches, -1);
        }
        boolean joined = network != null && Arrays.stream(rankNodes).anyMatch(k -> k != rankNodes[0]);
        NcclView view = NcclView.search(arch, intra, rankNodes, new NcclView.SearchInputs(intra == LinkType.NVLINK ? nvlinkBw : pciBw,
                nvlinkBw, nicRate(fabric), nvls, nodeRings), joined ? network.latencyInterMicros() : 0);
        TimeSpan netExtra = joined ? networkExtra(fabric, ranks, rankNodes) : TimeSpan.ZERO;
        // A file's links carry their own latencies; NCCL's per-step floors stay as its tuner has them.
        CostBook book = new CostBook(ProtocolCostCatalog.costs(arch, netExtra, joined ? network.stepLatency() : TimeSpan.ZERO,
                ProtocolCostCatalog.LatencyScale.NONE, gdrFlush), nvls ? ProtocolCostCatalog.nvls(arch, ProtocolCostCatalog.LatencyScale.NONE) : null, null, ProtocolCostCatalog.CUSTOM_KERNELS, ProtocolCostCatalog.HOST_LAUNCH,
                ProtocolCostCatalog.deviceCopy(gpu), ProtocolCostCatalog.kernelStart(arch, intra));
        HostMemory host = HostMemory.of(p2p ? null : nearestCpus(fabric, ranks), null);
        return new Communicator(name, new RankPlacement(fabric, ranks, switches, null, host), view, book);
    }

    /**
     * What a step's route to the next node adds over one to a GPU of the same node: the first rank's
     * route to the first rank of another node against its route to its neighbour (none for a node of
     * one GPU).
     */
    private static TimeSpan networkExtra(Fabric fabric, int[] ranks, int[] rankNodes) {
        int other = 0;
        while (rankNodes[other] == rankNodes[0]) {
            other++;
        }
        long across = fabric.router().route(ranks[0], ranks[other]).latencyPicos();
        long inside = other > 1 ? fabric.router().route(ranks[0], ranks[1]).latencyPicos() : 0;
        return new TimeSpan(Math.max(0, across - inside));
    }

    /** For each rank, the CPU fewest hops from its GPU (the lowest id among equals). */
    static int[] nearestCpus(Fabric fabric, int[] ranks) {
        int[] hosts = new int[ranks.length];
        for (int r = 0; r < ranks.length; r++) {
            int best = -1;
            int bestHops = Integer.MAX_VALUE;
            boolean[] reached = fabric.router().reachableFrom(ranks[r]);
            for (Device cpu : fabric.devicesOfKind(DeviceKind.CPU)) {
                if (reached[cpu.id()]) {
                    int hops = fabric.router().route(ranks[r], cpu.id()).links().length;
                    if (hops < bestHops) {
                        best = cpu.id();
                        bestHops = hops;
                    }
                }
            }
            if (best < 0) {
                throw new InputException("GPU " + fabric.device(ranks[r]).name()
                        + " reaches no CPU whose memory could stage its copies without peer-to-peer; expected a cpu device above it");
            }
            hosts[r] = best;
        }
        return hosts;
    }

    /** The NVLS-capable NVSwitch a GPU links to directly, or -1. */
    private static int nvlsSwitch(Fabric fabric, int gpu) {
        for (int l : fabric.outLinks(gpu)) {
            Device d = fabric.device(fabric.link(l).to());
            if (d.kind() == DeviceKind.NVSWITCH && d.has(Capability.NVLS)) {
                return d.id();
            }
        }
        return -1;
    }

    /** The fastest NIC-to-switch link, in NCCL's GB/s (0 without a network). */
    private static double nicRate(Fabric fabric) {
        double best = 0;
        for (Link l : fabric.links()) {
            if (fabric.device(l.from()).kind() == DeviceKind.NIC && fabric.device(l.to()).kind() == DeviceKind.NETWORK_SWITCH) {
                best = Math.max(best, l.rate().gigabytesPerSecond());
            }
        }
        return best;
    }
}
