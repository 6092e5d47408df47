package dev.collsim.topologies.systems;

import dev.collsim.core.fabric.Device;
import dev.collsim.core.fabric.DeviceKind;
import dev.collsim.core.fabric.Fabric;
import dev.collsim.core.fabric.FabricBuilder;
import dev.collsim.core.fabric.Link;
import dev.collsim.core.fabric.LinkTechnology;
import dev.collsim.core.input.InputException;
import dev.collsim.core.units.Rate;
import dev.collsim.core.units.TimeSpan;
import dev.collsim.topologies.catalog.NetworkPreset;
import java.util.List;

/**
 * Copies of one node (a topology file's) joined by a rail-optimised network: the node's {@code i}-th
 * NIC, in every copy, links to rail leaf {@code i}, and every leaf to the spines, as the HGX presets
 * join their nodes. The NICs stay where the file puts them (under a GPU's PCIe switch, two GPUs to a
 * NIC, on a CPU), so the node's own layout decides what each GPU's traffic crosses on its way out.
 * Devices of copy {@code k} are named {@code nk.} and the file's name.
 */
public final class NodeCopies {
    private NodeCopies() {}

    /**
     * Copies of a topology file's node.
     *
     * @param node    a one-node system with its NICs and no network switch
     * @param nodes   copies, 2 or more
     * @param network the network's rate, efficiency and latencies; its NIC count per GPU is the file's
     * @param whatIf  the network's knobs: NIC line rate, oversubscription, spines and network scaling
     */
    public static FabricSystem join(FabricSystem node, int nodes, NetworkPreset network, WhatIf whatIf) {
        return join(node, nodes, network, whatIf, "with --topology the file");
    }

    /** Copies of {@code node}, whose NICs {@code placer} (a preset's id, or the file) placed, as its refusals name it. */
    static FabricSystem join(FabricSystem node, int nodes, NetworkPreset network, WhatIf whatIf, String placer) {
        String file = node.name();
        if (node.nodes() != 1) {
            throw new InputException(file + ": --nodes " + nodes + " joins copies of a one-node file; this one has " + node.nodes()
                    + " nodes");
        }
        Fabric f = node.fabric();
        HgxCluster.requireBuildable("--nodes " + nodes, (long) nodes * f.devicesOfKind(DeviceKind.GPU).size());
        List<Device> nics = f.devicesOfKind(DeviceKind.NIC);
        if (nics.isEmpty()) {
            throw new InputException(file + ": --nodes " + nodes + " joins copies of the node through its NICs; the file has none"
                    + " (add devices of kind nic where the server has them)");
        }
        if (!f.devicesOfKind(DeviceKind.NETWORK_SWITCH).isEmpty()) {
            throw new InputException(file + ": --nodes " + nodes + " adds the network; the file has network switches already");
        }
        if (whatIf.nicsPerGpu() > 0) {
            throw new InputException("--nics-per-gpu: " + placer + " places the NICs (" + nics.size() + " per node); a faster NIC is"
                    + " --nic-bw");
        }
        if (!network.rdma() || !whatIf.gpuDirect()) {
            throw new InputException("--network " + network.id() + (whatIf.gpuDirect() ? "" : " with --gdr off")
                    + ": staging through host memory is built for the HGX presets; " + placer + " joins its nodes over RDMA with"
                    + " GPUDirect");
        }
        Rate line = whatIf.nicLineRate() == null ? network.lineRate() : whatIf.nicLineRate();
        Rate nicRate = line.times(network.effectiveRate().bytesPerSecond() / network.lineRate().bytesPerSecond()
                * whatIf.rate(WhatIf.LinkClass.NETWORK));
        TimeSpan hop = network.hopLatency().times(whatIf.latency(WhatIf.LinkClass.NETWORK));
        FabricBuilder b = new FabricBuilder();
        int[] leaves = new int[nics.size()];
        for (int i = 0; i < leaves.length; i++) {
            leaves[i] = b.addDevice("leaf" + i, DeviceKind.NETWORK_SWITCH);
        }
        if (leaves.length > 1) {
            for (int s = 0; s < whatIf.spines(); s++) {
                int spine = b.addDevice(whatIf.spines() == 1 ? "spine" : "spine" + s, DeviceKind.NETWORK_SWITCH);
                for (int leaf : leaves) {
                    b.addDuplex(leaf, spine, nicRate.times(nodes / whatIf.oversubscription() / whatIf.spines()), hop,
                            network.id() + " spine", LinkTechnology.NETWORK, 1);
                }
            }
        }
        int[] ranks = new int[nodes * node.ranks().length];
        int[] rankNodes = new int[ranks.length];
        for (int k = 0; k < nodes; k++) {
            int[] copy = new int[f.devices().size()];
            for (Device d : f.devices()) {
                copy[d.id()] = b.addDevice("n" + k + "." + d.name(), d.kind(), d.capabilities());
            }
            for (Link l : f.links()) {
                b.addLink(copy[l.from()], copy[l.to()], l.rate(), l.latency(), l.linkClass(), l.technology(), l.lanes());
            }
            for (int i = 0; i < nics.size(); i++) {
                b.addDuplex(copy[nics.get(i).id()], leaves[i], nicRate, hop, network.id(), LinkTechnology.NETWORK, 1);
            }
            for (int r = 0; r < node.ranks().length; r++) {
                ranks[k * node.ranks().length + r] = copy[node.ranks()[r]];
                rankNodes[k * node.ranks().length + r] = k;
            }
        }
        return new FabricSystem(file + " x" + nodes + " over " + network.id(), node.gpu(), b.build(), ranks, rankNodes, node.p2p(),
                network, whatIf.gdrFlush());
    }
}
