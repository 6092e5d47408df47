package dev.collsim.topologies.systems;

import dev.collsim.core.input.InputException;
import dev.collsim.core.nccl.Communicator;
import dev.collsim.topologies.catalog.GpuModel;
import dev.collsim.topologies.catalog.NetworkPreset;
import dev.collsim.topologies.catalog.PcieGeneration;
import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Collectors;

/** The built-in systems, by the name {@code --system} takes. */
public enum SystemPreset implements NamedSystem {
    DGX_A100("dgx-a100", "NVIDIA DGX A100: 8x A100 SXM4, 12 NVLink3 per GPU over 6 NVSwitch chips", GpuModel.A100_SXM,
            new NvlinkDomain(8, PcieGeneration.GEN4, NetworkPreset.IB_HDR, 6)),
    HGX_H100("hgx-h100", "NVIDIA HGX H100: 8x H100 SXM5, 18 NVLink4 per GPU over 4 NVSwitch chips", GpuModel.H100_SXM,
            new NvlinkDomain(8, PcieGeneration.GEN5, NetworkPreset.IB_NDR, 4)),
    HGX_H200("hgx-h200", "NVIDIA HGX H200: 8x H200 SXM, 18 NVLink4 per GPU over 4 NVSwitch chips", GpuModel.H200_SXM,
            new NvlinkDomain(8, PcieGeneration.GEN5, NetworkPreset.IB_NDR, 4)),
    HGX_B200("hgx-b200", "NVIDIA HGX B200: 8x B200, 18 NVLink5 per GPU over 2 NVSwitch chips", GpuModel.B200,
            new NvlinkDomain(8, PcieGeneration.GEN5, NetworkPreset.IB_NDR, 2)),
    HGX_B300("hgx-b300", "NVIDIA HGX B300: 8x B300 (Blackwell Ultra), 18 NVLink5 per GPU over 2 NVSwitch chips,"
            + " ConnectX-8 800 Gb/s NICs on PCIe Gen6", GpuModel.B300,
            new NvlinkDomain(8, PcieGeneration.GEN6, NetworkPreset.IB_XDR, 2)),
    GB200_NVL72("gb200-nvl72", "NVIDIA GB200 NVL72 rack: 72 GB200 GPUs in one NVLink domain, 18 NVLink5 per GPU over 18"
            + " NVSwitch chips, 4 GPUs and 4 NICs per compute tray", GpuModel.GB200,
            new NvlinkDomain(72, PcieGeneration.GEN5, NetworkPreset.IB_NDR, 18)),
    GB300_NVL72("gb300-nvl72", "NVIDIA GB300 NVL72 rack: 72 GB300 GPUs in one NVLink domain, 18 NVLink5 per GPU over 18"
            + " NVSwitch chips, ConnectX-8 800 Gb/s NICs", GpuModel.GB300,
            new NvlinkDomain(72, PcieGeneration.GEN5, NetworkPreset.IB_XDR, 18)),
    PCIE_L40S_8X("pcie-l40s-8x", "8x L40S on PCIe Gen4: 2 CPU sockets, 2 PCIe switches per socket, 2 GPUs per switch,"
            + " peer-to-peer on", GpuModel.L40S, new PcieServer(2, 2, 2, PcieGeneration.GEN4)),
    PCIE_4090_8X("pcie-4090-8x", "8x GeForce RTX 4090 on PCIe Gen4: 2 CPU sockets, 2 PCIe switches per socket, 2 GPUs per"
            + " switch; no peer-to-peer (GeForce), so NCCL copies through host memory", GpuModel.RTX_4090,
            new PcieServer(2, 2, 2, PcieGeneration.GEN4)),
    PCIE_H100_8X("pcie-h100-8x", "8x H100 PCIe on PCIe Gen5: 2 CPU sockets, 2 PCIe switches per socket, 2 GPUs per switch,"
            + " peer-to-peer on, no NVLink bridges", GpuModel.H100_PCIE, new PcieServer(2, 2, 2, PcieGeneration.GEN5)),
    PCIE_H100_8X_GEN4("pcie-h100-8x-gen4", "8x H100 PCIe in a PCIe Gen4 server: 2 CPU sockets, 2 PCIe switches per socket,"
            + " 2 GPUs per switch, peer-to-peer on, no NVLink bridges", GpuModel.H100_PCIE,
            new PcieServer(2, 2, 2, PcieGeneration.GEN4)),
    /**
     * NVIDIA's RTX PRO server (MGX reference design): each pair of GPUs sits under the PCIe switch built
     * into a ConnectX-8 SuperNIC, two SuperNICs per CPU socket; the GPUs' links are PCIe Gen5 x16.
     */
    PCIE_RTXPRO6000_8X("pcie-rtxpro6000-8x", "8x RTX PRO 6000 Blackwell Server Edition in an MGX RTX PRO server: 2 CPU"
            + " sockets, 2 ConnectX-8 SuperNICs per socket whose built-in PCIe switch holds 2 GPUs each, PCIe Gen5 x16,"
            + " peer-to-peer on, no NVLink", GpuModel.RTX_PRO_6000, new PcieServer(2, 2, 2, PcieGeneration.GEN5)),
    PCIE_2080TI_2X("pcie-2080ti-2x", "2x GeForce RTX 2080 Ti under one PCIe Gen3 switch (topo PIX); no peer-to-peer, so NCCL"
            + " copies through host memory (calibration set AH_2080TI_2G_SHM)", GpuModel.RTX_2080TI,
            new PcieServer(1, 1, 2, PcieGeneration.GEN3)),
    MI300X_8X("mi300x-8x", "AMD Instinct MI300X platform: 8x MI300X OAM, every pair joined by its own Infinity Fabric (xGMI) link, 7"
            + " a GPU, no switch; RCCL", GpuModel.MI300X, new XgmiMesh(8, PcieGeneration.GEN5)),
    MI325X_8X("mi325x-8x", "AMD Instinct MI325X platform: 8x MI325X OAM, every pair joined by its own Infinity Fabric (xGMI) link, 7"
            + " a GPU, no switch; RCCL", GpuModel.MI325X, new XgmiMesh(8, PcieGeneration.GEN5)),
    MI355X_8X("mi355x-8x", "AMD Instinct MI355X platform: 8x MI355X OAM, every pair joined by its own Infinity Fabric (xGMI) link, 7"
            + " a GPU, no switch; RCCL", GpuModel.MI355X, new XgmiMesh(8, PcieGeneration.GEN5));

    private final String id;
    private final String description;
    private final GpuModel gpu;
    private final SystemFamily family;

    SystemPreset(String id, String description, GpuModel gpu, SystemFamily family) {
        this.id = id;
        this.description = description;
        this.gpu = gpu;
        this.family = family;
    }

    /** The system with what-if knobs: nodes of {@code gpusPerNode} GPUs joined by {@code network} (null: the default). */
    public Communicator build(int nodes, int gpusPerNode, NetworkPreset network, WhatIf whatIf) {
        return family.build(this, nodes, gpusPerNode, network, whatIf);
    }

    public SystemFamily family() {
        return family;
    }

    /** How each GPU's NVLinks spread over the node's NVSwitch chips; empty for a PCIe server. */
    public int[] nvlinksPerChip() {
        return family.nvlinksPerChip(gpu);
    }

    /** The PCIe generation between each GPU and its NICs. */
    public PcieGeneration pcie() {
        return family.pcie();
    }

    /** The network between nodes unless {@code --network} says otherwise; null for a single PCIe server. */
    public NetworkPreset defaultNetwork() {
        return family.defaultNetwork();
    }

    @Override
    public String id() {
        return id;
    }

    public String description() {
        return description;
    }

    public GpuModel gpu() {
        return gpu;
    }

    public int gpusPerNode() {
        return family.gpusPerNode();
    }

    /** Checks a {@code --gpus-per-node} value against the node; null means all of its GPUs. */
    public int gpusPerNode(Integer requested) {
        int gpus = requested == null ? gpusPerNode() : requested;
        if (gpus < 1 || gpus > gpusPerNode()) {
            throw new InputException("--gpus-per-node " + gpus + ": " + id + " has " + gpusPerNode()
                    + " GPUs per node; expected 1 to " + gpusPerNode());
        }
        return gpus;
    }

    public static SystemPreset byName(String name) {
        return find(name).orElseThrow(() -> new InputException("unknown system '" + name + "'; expected one of "
                + Arrays.stream(values()).map(SystemPreset::id).collect(Collectors.joining(", "))));
    }

    /** The preset of that name, or empty (a topology file's system, say). */
    public static Optional<SystemPreset> find(String name) {
        return Arrays.stream(values()).filter(s -> s.id.equalsIgnoreCase(name)).findFirst();
    }
}
