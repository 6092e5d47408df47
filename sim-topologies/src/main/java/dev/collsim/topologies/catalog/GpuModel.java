package dev.collsim.topologies.catalog;

import dev.collsim.core.input.InputException;
import dev.collsim.core.nccl.NcclArch;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * GPUs of the presets: their generation as NCCL's tuner tells it (its tables index compute
 * capability 7.x as Volta, 8.x as Ampere, 9.0 as Hopper, 10.x as Blackwell) and their NVLinks.
 */
public enum GpuModel {
    A100_SXM("a100", "A100 SXM4 80GB", NcclArch.AMPERE, NvLinkGeneration.NVLINK3, 12,
            new Roofline(312, 0, 0, 80, 2.039, 108)),
    H100_SXM("h100", "H100 SXM5 80GB", NcclArch.HOPPER, NvLinkGeneration.NVLINK4, 18,
            new Roofline(989.4, 1978.9, 0, 80, 3.35, 132)),
    H200_SXM("h200", "H200 SXM 141GB", NcclArch.HOPPER, NvLinkGeneration.NVLINK4, 18,
            new Roofline(989.4, 1978.9, 0, 141, 4.8, 132)),
    B200("b200", "B200 180GB", NcclArch.BLACKWELL, NvLinkGeneration.NVLINK5, 18,
            new Roofline(2250, 4500, 9000, 180, 7.7, 148)),
    GB200("gb200", "GB200 186GB", NcclArch.BLACKWELL, NvLinkGeneration.NVLINK5, 18,
            new Roofline(2500, 5000, 10000, 186, 8.0, 148)),
    /**
     * HGX B300 (Blackwell Ultra, 1,100 W): NVIDIA's HGX B300 figures per GPU, sparse halved (BF16 36 and FP8 72 PFLOPS
     * sparse for eight), dense FP4 108 PFLOPS for eight; 288 GB at 8 TB/s; 160 SMs as GB300's (the same die).
     */
    B300("b300", "B300 SXM 288GB", NcclArch.BLACKWELL, NvLinkGeneration.NVLINK5, 18,
            new Roofline(2250, 4500, 13500, 288, 8.0, 160)),
    GB300("gb300", "GB300 288GB", NcclArch.BLACKWELL, NvLinkGeneration.NVLINK5, 18,
            new Roofline(2500, 5000, 15000, 288, 8.0, 160)),
    /** H100 PCIe: its 12 NVLink4 links reach only a bridged partner card. */
    H100_PCIE("h100-pcie", "H100 PCIe 80GB", NcclArch.HOPPER, NvLinkGeneration.NVLINK4, 12,
            new Roofline(756, 1513, 0, 80, 2.0, 114)),
    L40S("l40s", "L40S 48GB", NcclArch.AMPERE, null, 0, new Roofline(362, 733, 0, 48, 0.864, 142)),
    /**
     * RTX PRO 6000 Blackwell Server Edition (GB202, compute capability 12.0, which NCCL's tuner counts as
     * Blackwell; no NVLink): aiconfigurator's {@code systems/rtx_pro_6000_server.yaml} (dense BF16 467.8,
     * FP8 935.6, FP4 1,871.2 TFLOPS at the 2,430 MHz its node reports; 1.792 TB/s of GDDR7), 96 GB
     * (97,887 MiB in nvidia-smi), 188 SMs per NVIDIA's announcement.
     */
    RTX_PRO_6000("rtxpro6000", "RTX PRO 6000 Blackwell Server Edition 96GB", NcclArch.BLACKWELL, null, 0,
            new Roofline(467.8, 935.6, 1871.2, 96, 1.792, 188)),
    RTX_4090("rtx4090", "GeForce RTX 4090 24GB", NcclArch.AMPERE, null, 0, new Roofline(165.2, 330.3, 0, 24, 1.008, 128)),
    RTX_2080TI("rtx2080ti", "GeForce RTX 2080 Ti 11GB", NcclArch.VOLTA, null, 0, new Roofline(53.8, 0, 0, 11, 0.616, 68));

    /**
     * What the roofline needs of a GPU: dense tensor-core rates in TFLOPS (0 where the format has
     * none; FP8 and FP4 fall back to the next wider format), HBM capacity as the datasheet's "GB" and
     * bandwidth in TB/s (10^12 B/s), and SMs. The datasheets' capacities are binary: an "80GB" H100 or
     * A100 shows 81,559-81,920 MiB in nvidia-smi, so {@link #hbmBytes} reads them as GiB.
     * Figures from {@code ../shared/reference/nccl-and-decode.md} (Q5), datasheets' sparse numbers
     * halved; GB300's and the GeForce cards' from their datasheets the same way.
     */
    public record Roofline(double bf16Tflops, double fp8Tflops, double fp4Tflops, double hbmGB, double hbmTBps, int sms) {
        /** Dense TFLOPS for a weight format of {@code bits} (16, 8 or 4). */
        public double tflops(int bits) {
            if (bits <= 4 && fp4Tflops > 0) {
                return fp4Tflops;
            }
            return bits <= 8 && fp8Tflops > 0 ? fp8Tflops : bf16Tflops;
        }

        public double hbmBytes() {
            return hbmGB * (1L << 30);
        }

        public double hbmBytesPerSecond() {
            return hbmTBps * 1e12;
        }
    }

    private final String shortName;
    private final String label;
    private final NcclArch arch;
    private final NvLinkGeneration nvlink;
    private final int nvlinks;
    private final Roofline roofline;

    GpuModel(String shortName, String label, NcclArch arch, NvLinkGeneration nvlink, int nvlinks, Roofline roofline) {
        this.roofline = roofline;
        this.shortName = shortName;
        this.label = label;
        this.arch = arch;
        this.nvlink = nvlink;
        this.nvlinks = nvlinks;
    }

    /** The model by its short name as files write it (a100, h100, ..., rtx2080ti). */
    public static GpuModel byName(String name) {
        for (GpuModel m : values()) {
            if (m.shortName.equals(name.toLowerCase(Locale.ROOT))) {
                return m;
            }
        }
        throw new InputException("unknown GPU '" + name + "'; expected one of "
                + Arrays.stream(values()).map(GpuModel::shortName).collect(Collectors.joining(", ")));
    }

    /**
     * Whether GPUs of this model reach each other's memory over PCIe: not GeForce cards, whose driver
     * turns peer-to-peer off, so NCCL copies through host memory (calibration set AH_2080TI_2G_SHM).
     */
    public boolean peerToPeer() {
        return this != RTX_4090 && this != RTX_2080TI;
    }

    /** The name files and options use. */
    public String shortName() {
        return shortName;
    }

    public String label() {
        return label;
    }

    public Roofline roofline() {
        return roofline;
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
