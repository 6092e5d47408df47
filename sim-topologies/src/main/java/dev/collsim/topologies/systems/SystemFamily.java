package dev.collsim.topologies.systems;

import dev.collsim.core.nccl.Communicator;
import dev.collsim.topologies.catalog.GpuModel;
import dev.collsim.topologies.catalog.NetworkPreset;
import dev.collsim.topologies.catalog.PcieGeneration;

/** How a preset's nodes are built and joined: an NVLink domain or an Instinct mesh per node over a network, or one PCIe server. */
public sealed interface SystemFamily permits NvlinkDomain, PcieServer, XgmiMesh {
    /** The system with what-if knobs: {@code nodes} of {@code gpusPerNode} GPUs joined by {@code network} (null: the default). */
    Communicator build(SystemPreset preset, int nodes, int gpusPerNode, NetworkPreset network, WhatIf whatIf);

    int gpusPerNode();

    /** The PCIe generation between each GPU and its NICs or switches. */
    PcieGeneration pcie();

    /** The network between nodes unless {@code --network} says otherwise; null (the default) where the family has no network. */
    default NetworkPreset defaultNetwork() {
        return null;
    }

    /** The most nodes the family joins: by default one, a single server. */
    default int maxNodes() {
        return 1;
    }

    /** How each GPU's NVLinks spread over a node's NVSwitch chips; empty (the default) without NVSwitch. */
    default int[] nvlinksPerChip(GpuModel gpu) {
        return new int[0];
    }
}
