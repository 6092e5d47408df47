package dev.collsim.topologies.systems;

import dev.collsim.core.collective.HostMemory;
import dev.collsim.core.collective.RankPlacement;
import dev.collsim.core.fabric.Capability;
import dev.collsim.core.fabric.DeviceKind;
import dev.collsim.core.fabric.Fabric;
import dev.collsim.core.fabric.FabricBuilder;
import dev.collsim.core.fabric.LinkTechnology;
import dev.collsim.core.input.InputException;
import dev.collsim.core.input.Require;
import dev.collsim.core.nccl.Communicator;
import dev.collsim.core.nccl.CostBook;
import dev.collsim.core.nccl.LinkType;
import dev.collsim.core.nccl.NcclView;
import dev.collsim.core.units.Rate;
import dev.collsim.core.units.TimeSpan;
import dev.collsim.topologies.catalog.GpuModel;
import dev.collsim.topologies.catalog.NetworkPreset;
import dev.collsim.topologies.catalog.NvLinkGeneration;
import dev.collsim.topologies.catalog.PcieGeneration;
import dev.collsim.topologies.catalog.ProtocolCostCatalog;
import dev.collsim.topologies.catalog.ProtocolCostCatalog.LatencyScale;
import java.util.Set;

/**
 * HGX/DGX systems: nodes of G GPUs joined by NVSwitch, and between nodes a rail-optimised network.
 *
 * <p>Inside a node the board's NVSwitch chips are one crossbar device and each GPU's NVLinks one
 * bundle per direction carrying the sum of its links: exact for traffic striped over all links,
 * which NVLink address interleaving does. On Hopper and Blackwell the switch can reduce and
 * multicast (NVLS).
 *
 * <p>Across nodes each GPU shares a PCIe switch with its NIC(s) (GPUDirect RDMA: the NIC reads and
 * writes GPU memory through that switch); several NICs of one GPU are one bundle. The NICs of GPU
 * {@code g} of every node hang off leaf switch {@code g} (rail {@code g}); a non-blocking spine joins the
 * leaves for traffic that changes rails (or several, their uplinks split evenly, chosen by ECMP hash). On InfiniBand the leaves can reduce (SHARP) for NCCL's
 * CollNet, which stays off unless asked for, as {@code NCCL_COLLNET_ENABLE} defaults to 0. NCCL's rings stay on one rail between nodes: within a
 * node, channel {@code c}'s ring enters and leaves on rails that match its neighbours'. Without
 * GPUDirect RDMA (turned off, or a network without RDMA) the PCIe switches hang off the node's two CPU sockets (the first half of the GPUs'
 * switches on socket 0), whose memory stages every transfer across nodes.
 */
public final class HgxCluster {
    private HgxCluster() {}

    /** The largest cluster built: four times the 16,384 GPUs of the scale study (docs/performance.md), still minutes. */
    public static final int MAX_GPUS = 65_536;

    /** Refuses a fabric of more than {@link #MAX_GPUS} GPUs; {@code flag} says which value asked for it ("--nodes 9000"). */
    public static void requireBuildable(String flag, long gpus) {
        if (gpus > MAX_GPUS) {
            throw new InputException(flag + ": " + gpus + " GPUs; collsim builds fabrics of up to " + MAX_GPUS + " GPUs");
        }
    }

    /** Nodes of the preset's NVLink domain changed by what-if knobs (see {@link WhatIf}). */
    static Communicator build(SystemPreset preset, NvlinkDomain domain, int nodes, int gpusPerNode, NetworkPreset network,
                              WhatIf whatIf) {
        Require.atLeastOne("--nodes", nodes);
        preset.gpusPerNode(gpusPerNode);
        requireBuildable("--nodes " + nodes, (long) nodes * gpusPerNode);
        GpuModel gpu = preset.gpu();
        NvLinkGeneration nvlink = gpu.nvlink();
        Rate bundle = nvlink.effectiveRate().times(gpu.nvlinks() * whatIf.rate(WhatIf.LinkClass.NVLINK));
        TimeSpan nvlinkHop = NvLinkGeneration.HOP_LATENCY.times(whatIf.latency(WhatIf.LinkClass.NVLINK));
        TimeSpan pcieHop = PcieGeneration.HOP_LATENCY.times(whatIf.latency(WhatIf.LinkClass.PCIE));
        TimeSpan netHop = network.hopLatency().times(whatIf.latency(WhatIf.LinkClass.NETWORK));
        Rate pcieRate = pcieRate(domain, whatIf);
        String nvlinkClass = nvlink.label() + " x" + gpu.nvlinks();
        boolean nvls = gpu.arch().nvlsEfficiency() > 0;
        PcieGeneration pcie = domain.pcie();
        Rate nicLine = whatIf.nicLineRate() == null ? network.lineRate() : whatIf.nicLineRate();
        int nicsPerGpu = whatIf.nicsPerGpu() > 0 ? whatIf.nicsPerGpu() : network.nicsPerGpu();
        Rate nicRate = nicLine.times(network.effectiveRate().bytesPerSecond() / network.lineRate().bytesPerSecond()
                * nicsPerGpu * whatIf.rate(WhatIf.LinkClass.NETWORK));
        // Over sockets a NIC moves what NCCL's socket threads move, if less than the wire: a what-if scales
        // the wire, not the CPU cores.
        NetworkPreset.SocketTransport socket = network.socketTransport();
        if (socket != null && socket.nicRate().times(nicsPerGpu).compareTo(nicRate) < 0) {
            nicRate = socket.nicRate().times(nicsPerGpu);
        }
        String nicClass = network.id() + (nicsPerGpu > 1 ? " x" + nicsPerGpu : "");
        int n = nodes * gpusPerNode;
        FabricBuilder b = new FabricBuilder();
        int[] ranks = new int[n];
        int[] switches = new int[n];
        int[] rankNodes = new int[n];
        int[] leaves = new int[gpusPerNode];
        boolean hostStaged = nodes > 1 && (!whatIf.gpuDirect() || !network.rdma());
        int[] rankHost = hostStaged ? new int[n] : null;
        if (nodes > 1) {
            for (int g = 0; g < gpusPerNode; g++) {
                leaves[g] = b.addDevice("leaf" + g, DeviceKind.NETWORK_SWITCH,
                        network.sharp() ? Set.of(Capability.SHARP) : Set.of());
            }
            if (gpusPerNode > 1) {
                int spines = whatIf.spines();
                for (int k = 0; k < spines; k++) {
                    int spine = b.addDevice(spines == 1 ? "spine" : "spine" + k, DeviceKind.NETWORK_SWITCH);
                    for (int g = 0; g < gpusPerNode; g++) {
                        b.addDuplex(leaves[g], spine, nicRate.times(nodes / whatIf.oversubscription() / spines), netHop,
                                nicClass + " spine", LinkTechnology.NETWORK, nicsPerGpu);
                    }
                }
            }
        }
        for (int k = 0; k < nodes; k++) {
            String prefix = nodes == 1 ? "" : "n" + k + ".";
            int nvs = b.addDevice(prefix + "nvswitch", DeviceKind.NVSWITCH, nvls ? Set.of(Capability.NVLS) : Set.of());
            int[] cpus = new int[hostStaged ? Math.min(2, gpusPerNode) : 0];
            for (int s = 0; s < cpus.length; s++) {
                cpus[s] = b.addDevice(prefix + "cpu" + s, DeviceKind.CPU);
                if (s > 0) {
                    b.addDuplex(cpus[0], cpus[s], PcieGeneration.SOCKET_LINK, PcieGeneration.SOCKET_LATENCY, "socket link",
                            LinkTechnology.SOCKET, 1);
                }
            }
            for (int g = 0; g < gpusPerNode; g++) {
                int r = k * gpusPerNode + g;
                ranks[r] = b.addDevice(prefix + "gpu" + g, DeviceKind.GPU);
                switches[r] = nvls ? nvs : -1;
                rankNodes[r] = k;
                b.addDuplex(ranks[r], nvs, bundle, nvlinkHop, nvlinkClass, LinkTechnology.NVLINK, gpu.nvlinks());
                if (nodes > 1) {
                    int sw = b.addDevice(prefix + "pcie" + g, DeviceKind.PCIE_SWITCH);
                    int nic = b.addDevice(prefix + "nic" + g, DeviceKind.NIC);
                    b.addDuplex(ranks[r], sw, pcieRate, pcieHop, pcie.label(), LinkTechnology.PCIE, PcieGeneration.LANES);
                    b.addDuplex(nic, sw, pcieRate, pcieHop, pcie.label(), LinkTechnology.PCIE, PcieGeneration.LANES);
                    b.addDuplex(nic, leaves[g], nicRate, netHop, nicClass, LinkTechnology.NETWORK, nicsPerGpu);
                    if (hostStaged) {
                        int cpu = cpus[g * cpus.length / gpusPerNode];
                        b.addDuplex(sw, cpu, pcieRate, pcieHop, pcie.label() + " uplink", LinkTechnology.PCIE, PcieGeneration.LANES);
                        rankHost[r] = cpu;
                    }
                }
            }
        }
        Fabric fabric = b.build();
        // A network step costs what its route adds over an NVLink step's, none if NVLink's latency is scaled above it.
        long nvlinkRoute = 2 * nvlinkHop.picos();
        long netRoute = 4 * pcieHop.picos() + 2 * netHop.picos();
        String name = preset.id() + (nodes > 1 ? " x" + nodes + " over " + network.id() : "");
        int[] sharp = null;
        if (nodes > 1 && network.sharp()) {
            sharp = new int[n];
            for (int r = 0; r < n; r++) {
                sharp[r] = leaves[r % gpusPerNode];
            }
        }
        // NCCL sees a NIC at its line rate, not at what the wire delivers.
        NcclView view = NcclView.search(gpu.arch(), LinkType.NVLINK, rankNodes, new NcclView.SearchInputs(bundle.gigabytesPerSecond(),
                bundle.gigabytesPerSecond(), nicLine.gigabytesPerSecond() * nicsPerGpu, nvls), nodes > 1 ? network.latencyInterMicros() : 0);
        TimeSpan netExtra = new TimeSpan(Math.max(0, netRoute - nvlinkRoute));
        LatencyScale scale = new LatencyScale(whatIf.latency(WhatIf.LinkClass.NVLINK), whatIf.latency(WhatIf.LinkClass.NETWORK));
        CostBook book = new CostBook(ProtocolCostCatalog.costs(gpu.arch(), netExtra, nodes > 1 ? network.stepLatency() : TimeSpan.ZERO, scale,
                whatIf.gdrFlush()),
                nvls ? ProtocolCostCatalog.nvls(gpu.arch(), scale) : null,
                sharp == null ? null : ProtocolCostCatalog.sharp(gpu.arch(), netExtra, scale),
                ProtocolCostCatalog.CUSTOM_KERNELS, ProtocolCostCatalog.HOST_LAUNCH,
                ProtocolCostCatalog.deviceCopy(gpu), ProtocolCostCatalog.kernelStart(gpu.arch(), LinkType.NVLINK));
        return new Communicator(name, new RankPlacement(fabric, ranks, switches, sharp, HostMemory.of(null, rankHost)), view, book);
    }

    private static Rate pcieRate(NvlinkDomain domain, WhatIf whatIf) {
        return domain.pcie().effectiveRate().times(whatIf.rate(WhatIf.LinkClass.PCIE));
    }
}
