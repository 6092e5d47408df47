package dev.collsim.topologies.catalog;

import dev.collsim.core.nccl.NcclArch;

/**
 * GPUs of the presets: their generation as NCCL's tuner tells it (its tables index compute
 * capability 7.x as Volta, 8.x as Ampere, 9.0 as Hopper, 10.x as Blackwell) and their NVLinks.
 */
public enum GpuModel {
    A100_SXM("a100", "A100 SXM4 80GB", NcclArch.AMPERE, NvLinkGeneration.NVLINK3, 12),
    H100_SXM("h100", "H100 SXM5 80GB", NcclArch.HOPPER, NvLinkGeneration.NVLINK4, 18),
    H200_SXM("h200", "H200 SXM 141GB", NcclArch.HOPPER, NvLinkGeneration.NVLINK4, 18),
    B200("b200", "B200 180GB", NcclArch.BLACKWELL, NvLinkGeneration.NVLINK5, 18),
    GB200("gb200", "GB200 186GB", NcclArch.BLACKWELL, NvLinkGeneration.NVLINK5, 18),
    GB300("gb300", "GB300 288GB", NcclArch.BLACKWELL, NvLinkGeneration.NVLINK5, 18),
    /** H100 PCIe: its 12 NVLink4 links reach only a bridged partner card. */
    H100_PCIE("h100-pcie", "H100 PCIe 80GB", NcclArch.HOPPER, NvLinkGeneration.NVLINK4, 12),
    L40S("l40s", "L40S 48GB", NcclArch.AMPERE, null, 0),
    RTX_4090("rtx4090", "GeForce RTX 4090 24GB", NcclArch.AMPERE, null, 0),
    RTX_2080TI("rtx2080ti", "GeForce RTX 2080 Ti 11GB", NcclArch.VOLTA, null, 0);

    private final String shortName;
    private final String label;
    private final NcclArch arch;
    private final NvLinkGeneration nvlink;
    private final int nvlinks;

    GpuModel(String shortName, String label, NcclArch arch, NvLinkGeneration nvlink, int nvlinks) {
        this.shortName = shortName;
        this.label = label;
        this.arch = arch;
        this.nvlink = nvlink;
        this.nvlinks = nvlinks;
    }

    /** The model by its short name as files write it (a100, h100, ..., rtx2080ti). */
    public static GpuModel byName(String name) {
        for (GpuModel m : values()) {
            if (m.shortName.equals(name.toLowerCase(java.util.Locale.ROOT))) {
                return m;
            }
        }
        throw new dev.collsim.core.input.InputException("unknown GPU '" + name + "'; expected one of "
                + java.util.Arrays.stream(values()).map(GpuModel::shortName).collect(java.util.stream.Collectors.joining(", ")));
    }

    /** The name files and options use. */
    public String shortName() {
        return shortName;
    }

    public String label() {
        return label;
    }

    public NcclArch arch() {
        return arch;
    }

    public NvLinkGeneration nvlink() {
        return nvlink;
    }

    /** NVLinks per GPU (to NVSwitch chips on HGX/DGX boards); 0 for a card without NVLink, whose {@link #nvlink} is null. */
    public int nvlinks() {
        return nvlinks;
    }
}
