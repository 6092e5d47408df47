package dev.collsim.topologies.catalog;

import dev.collsim.core.nccl.NcclArch;

/** GPUs of the NVSwitch presets: their generation as NCCL sees it and their NVLinks. */
public enum GpuModel {
    A100_SXM("A100 SXM4 80GB", NcclArch.AMPERE, NvLinkGeneration.NVLINK3, 12),
    H100_SXM("H100 SXM5 80GB", NcclArch.HOPPER, NvLinkGeneration.NVLINK4, 18),
    H200_SXM("H200 SXM 141GB", NcclArch.HOPPER, NvLinkGeneration.NVLINK4, 18),
    B200("B200 180GB", NcclArch.BLACKWELL, NvLinkGeneration.NVLINK5, 18),
    GB200("GB200 186GB", NcclArch.BLACKWELL, NvLinkGeneration.NVLINK5, 18),
    GB300("GB300 288GB", NcclArch.BLACKWELL, NvLinkGeneration.NVLINK5, 18);

    private final String label;
    private final NcclArch arch;
    private final NvLinkGeneration nvlink;
    private final int nvlinks;

    GpuModel(String label, NcclArch arch, NvLinkGeneration nvlink, int nvlinks) {
        this.label = label;
        this.arch = arch;
        this.nvlink = nvlink;
        this.nvlinks = nvlinks;
    }

    /** The model by its short name as files write it: a100, h100, h200, b200, gb200, gb300. */
    public static GpuModel byName(String name) {
        for (GpuModel m : values()) {
            if (m.shortName().equals(name.toLowerCase(java.util.Locale.ROOT))) {
                return m;
            }
        }
        throw new dev.collsim.core.input.InputException("unknown GPU '" + name + "'; expected a100, h100, h200, b200, gb200 or gb300");
    }

    /** The name files and options use: a100, h100, h200, b200, gb200, gb300. */
    public String shortName() {
        return name().toLowerCase(java.util.Locale.ROOT).replace("_sxm", "");
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

    /** NVLinks per GPU, all to NVSwitch chips on HGX/DGX boards. */
    public int nvlinks() {
        return nvlinks;
    }
}
