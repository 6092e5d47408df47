package dev.collsim.topologies.systems;

import dev.collsim.core.fabric.DeviceKind;
import dev.collsim.core.fabric.FabricBuilder;
import dev.collsim.core.fabric.LinkTechnology;
import dev.collsim.core.input.InputException;
import dev.collsim.core.nccl.Communicator;
import dev.collsim.core.units.Rate;
import dev.collsim.core.units.TimeSpan;
import dev.collsim.topologies.catalog.GpuModel;
import dev.collsim.topologies.catalog.NetworkPreset;
import dev.collsim.topologies.catalog.PcieGeneration;

/**
 * A PCIe server: CPU sockets joined by the socket link, PCIe switches under each socket, GPUs under
 * each switch, every link x16 of the layout's generation, the switches' uplinks too. GPUs under one
 * switch talk through it (PIX), under one socket through its root complex (NODE), across sockets
 * over the socket link (SYS). Without peer-to-peer access (GeForce cards, {@link GpuModel#peerToPeer})
 * NCCL copies through host memory: its SHM transport.
 *
 * @param sockets           CPU sockets
 * @param switchesPerSocket PCIe switches under each socket
 * @param gpusPerSwitch     GPUs under each switch
 * @param generation        of every GPU link and switch uplink
 */
public record PcieServer(int sockets, int switchesPerSocket, int gpusPerSwitch, PcieGeneration generation) implements SystemFamily {

    @Override
    public int gpusPerNode() {
        return sockets * switchesPerSocket * gpusPerSwitch;
    }

    @Override
    public PcieGeneration pcie() {
        return generation;
    }

    /** One server of the preset's, its first {@code gpus} GPUs in use (the rest stay in the tree, idle); no network. */
    @Override
    public Communicator build(SystemPreset preset, int nodes, int gpus, NetworkPreset network, WhatIf whatIf) {
        if (nodes != 1) {
            throw new InputException("--nodes " + nodes + ": " + preset.id()
                    + " is one PCIe server; describe a cluster of them in a topology file (--topology)");
        }
        PcieServer layout = this;
        preset.gpusPerNode(gpus);
        Rate pcie = layout.generation.effectiveRate().times(whatIf.rate(WhatIf.LinkClass.PCIE));
        TimeSpan hop = PcieGeneration.HOP_LATENCY.times(whatIf.latency(WhatIf.LinkClass.PCIE));
        String pcieClass = layout.generation.label();
        FabricBuilder b = new FabricBuilder();
        int[] ranks = new int[gpus];
        int[] cpus = new int[layout.sockets];
        int g = 0;
        for (int s = 0; s < layout.sockets; s++) {
            cpus[s] = b.addDevice("cpu" + s, DeviceKind.CPU);
            for (int prior = 0; prior < s; prior++) {
                b.addDuplex(cpus[prior], cpus[s], PcieGeneration.SOCKET_LINK, PcieGeneration.SOCKET_LATENCY, "socket link",
                        LinkTechnology.SOCKET, 1);
            }
            for (int w = 0; w < layout.switchesPerSocket; w++) {
                int sw = b.addDevice("pcie" + (s * layout.switchesPerSocket + w), DeviceKind.PCIE_SWITCH);
                b.addDuplex(sw, cpus[s], pcie, hop, pcieClass + " uplink", LinkTechnology.PCIE, PcieGeneration.LANES);
                for (int k = 0; k < layout.gpusPerSwitch; k++, g++) {
                    int gpu = b.addDevice("gpu" + g, DeviceKind.GPU);
                    b.addDuplex(gpu, sw, pcie, hop, pcieClass, LinkTechnology.PCIE, PcieGeneration.LANES);
                    if (g < gpus) {
                        ranks[g] = gpu;
                    }
                }
            }
        }
        return FabricCommunicator.build(preset.id(), preset.gpu(), b.build(), ranks, new int[gpus], preset.gpu().peerToPeer());
    }
}
