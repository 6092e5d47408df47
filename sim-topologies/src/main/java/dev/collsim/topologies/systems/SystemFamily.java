package dev.collsim.topologies.systems;

import dev.collsim.core.nccl.Communicator;
import dev.collsim.topologies.catalog.GpuModel;
import dev.collsim.topologies.catalog.NetworkPreset;
import dev.collsim.topologies.catalog.PcieGeneration;

/** How a preset's nodes are built and joined: an NVLink domain per node over a network, one PCIe server, or one Instinct mesh. */
public sealed interface SystemFamily permits NvlinkDomain, PcieServer, XgmiMesh {
    /** The system with what-if knobs: {@code nodes} of {@code gpusPerNode} GPUs joined by {@code network} (null: the default). */
    Communicator build(SystemPreset preset, int nodes, int gpusPerNode, NetworkPreset network, WhatIf whatIf);

    int gpusPerNode();

    /** The PCIe generation between each GPU and its NICs or switches. */
    PcieGeneration pcie();

    /** The network between nodes unless {@code --network} says otherwise; null where the family has no network. */
    NetworkPreset defaultNetwork();

    /** The most nodes the family joins. */
    int maxNodes();

    /** How each GPU's NVLinks spread over a node's NVSwitch chips; empty without NVLink. */
    int[] nvlinksPerChip(GpuModel gpu);
}
