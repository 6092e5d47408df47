package dev.collsim.topologies.catalog;

import dev.collsim.core.input.InputException;
import dev.collsim.core.nccl.NcclArch;
import dev.collsim.core.units.Rate;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import org.yaml.snakeyaml.Yaml;

/**
 * A GPU of the catalogue ({@code catalog/gpus.yaml}, one entry per GPU with a source for every number): its generation
 * as NCCL's tuner tells it (its tables index compute capability 7.x as Volta, 8.x as Ampere, 9.0 as Hopper, 10.x and
 * 12.x as Blackwell), its NVLinks, whether its driver allows peer-to-peer over PCIe, and what the roofline needs. One
 * instance per entry, so models compare by identity; the constants name the ones the presets and the code use.
 */
public final class GpuModel {
    private static final String RESOURCE = "/catalog/gpus.yaml";
    private static final Map<String, GpuModel> CATALOGUE = load();

    public static final GpuModel A100_SXM = byName("a100");
    public static final GpuModel H100_SXM = byName("h100");
    public static final GpuModel H200_SXM = byName("h200");
    public static final GpuModel B200 = byName("b200");
    public static final GpuModel GB200 = byName("gb200");
    /** HGX B300 (Blackwell Ultra, 1,100 W parts). */
    public static final GpuModel B300 = byName("b300");
    public static final GpuModel GB300 = byName("gb300");
    /** H100 PCIe: its 12 NVLink4 links reach only a bridged partner card. */
    public static final GpuModel H100_PCIE = byName("h100-pcie");
    public static final GpuModel L40S = byName("l40s");
    /** RTX PRO 6000 Blackwell Server Edition (GB202, compute capability 12.0, which NCCL's tuner counts as Blackwell; no NVLink). */
    public static final GpuModel RTX_PRO_6000 = byName("rtxpro6000");
    public static final GpuModel RTX_4090 = byName("rtx4090");
    public static final GpuModel RTX_2080TI = byName("rtx2080ti");
    public static final GpuModel MI300X = byName("mi300x");
    public static final GpuModel MI325X = byName("mi325x");
    public static final GpuModel MI355X = byName("mi355x");

    /**
     * What the roofline needs of a GPU: dense tensor-core rates in TFLOPS (0 where the format has
     * none; FP8 and FP4 fall back to the next wider format), HBM capacity as the datasheet's "GB" and
     * bandwidth in TB/s (10^12 B/s), and SMs. The datasheets' capacities are binary: an "80GB" H100 or
     * A100 shows 81,559-81,920 MiB in nvidia-smi, so {@link #hbmBytes} reads them as GiB. Each
     * number's source is beside it in {@code catalog/gpus.yaml}.
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
    private final boolean peerToPeer;
    private final Roofline roofline;
    private final Xgmi xgmi;

    /**
     * An AMD Instinct GPU's Infinity Fabric links, one to each other GPU of its platform.
     *
     * @param links   links per GPU
     * @param rawRate each link's raw rate, each way
     */
    public record Xgmi(int links, Rate rawRate) {
        /**
         * What a link carries of its raw rate: about 48 of 64 GB/s on MI300X, protocol and packet overheads taken
         * out (AMD ROCm blog, "Understanding RCCL Bandwidth and xGMI Performance on AMD Instinct MI300X",
         * 2025-03-02); the same share is taken of MI355X's faster links.
         */
        public static final double USABLE = 48.0 / 64.0;

        /** Each link's usable rate, each way. */
        public Rate usableRate() {
            return rawRate.times(USABLE);
        }
    }

    private GpuModel(String shortName, String label, NcclArch arch, NvLinkGeneration nvlink, int nvlinks, boolean peerToPeer,
                     Roofline roofline, Xgmi xgmi) {
        this.shortName = shortName;
        this.label = label;
        this.arch = arch;
        this.nvlink = nvlink;
        this.nvlinks = nvlinks;
        this.peerToPeer = peerToPeer;
        this.roofline = roofline;
        this.xgmi = xgmi;
    }

    /** Its Infinity Fabric links, or null for a GPU without them (every NVIDIA GPU). */
    public Xgmi xgmi() {
        return xgmi;
    }

    /** Every GPU of the catalogue, in its order. */
    public static Collection<GpuModel> all() {
        return CATALOGUE.values();
    }

    /** The model by its short name as files write it (a100, h100, ..., rtx2080ti). */
    public static GpuModel byName(String name) {
        GpuModel m = CATALOGUE.get(name.toLowerCase(Locale.ROOT));
        if (m == null) {
            throw new InputException("unknown GPU '" + name + "'; expected one of " + String.join(", ", CATALOGUE.keySet()));
        }
        return m;
    }

    /**
     * Whether GPUs of this model reach each other's memory over PCIe: not GeForce cards, whose driver
     * turns peer-to-peer off, so NCCL copies through host memory (calibration set AH_2080TI_2G_SHM).
     */
    public boolean peerToPeer() {
        return peerToPeer;
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

    @Override
    public String toString() {
        return shortName;
    }

    /** The catalogue, read once; an entry that does not read is a fault in the project's own file, named by entry and field. */
    private static Map<String, GpuModel> load() {
        List<Map<String, Object>> entries;
        try (InputStream in = GpuModel.class.getResourceAsStream(RESOURCE)) {
            entries = new Yaml().load(new InputStreamReader(Objects.requireNonNull(in, RESOURCE), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(RESOURCE, e);
        }
        Map<String, GpuModel> out = new LinkedHashMap<>();
        for (Map<String, Object> e : entries) {
            Entry entry = new Entry(e);
            GpuModel m = entry.model();
            if (out.put(m.shortName, m) != null) {
                throw new IllegalStateException(RESOURCE + ": " + m.shortName + " is listed twice");
            }
        }
        return Collections.unmodifiableMap(out);
    }

    /** One entry of the file, read strictly: every field known, every number with its source. */
    record Entry(Map<String, Object> fields) {
        private static final Set<String> NUMBERS = Set.of("bf16_tflops", "fp8_tflops", "fp4_tflops", "hbm_gb", "hbm_tbps", "sms");
        private static final Set<String> KNOWN = Set.of("name", "label", "nccl_arch", "nvlink", "xgmi", "peer_to_peer", "bf16_tflops",
                "fp8_tflops", "fp4_tflops", "hbm_gb", "hbm_tbps", "sms", "sources");

        GpuModel model() {
            String name = String.valueOf(fields.get("name"));
            for (String field : fields.keySet()) {
                if (!KNOWN.contains(field)) {
                    throw fault(name, field, "unknown field; expected one of " + new TreeSet<>(KNOWN));
                }
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> sources = (Map<String, Object>) fields.getOrDefault("sources", Map.of());
            Map<?, ?> link = (Map<?, ?>) fields.get("nvlink");
            for (String n : NUMBERS) {
                if (!(fields.get(n) instanceof Number)) {
                    throw fault(name, n, "expected a number");
                }
                if (!(sources.get(n) instanceof String s) || s.isBlank()) {
                    throw fault(name, "sources." + n, "every number needs its source");
                }
            }
            if (link != null && !(sources.get("nvlink") instanceof String)) {
                throw fault(name, "sources.nvlink", "every number needs its source");
            }
            Map<?, ?> xgmiLinks = (Map<?, ?>) fields.get("xgmi");
            if (xgmiLinks != null && !(sources.get("xgmi") instanceof String)) {
                throw fault(name, "sources.xgmi", "every number needs its source");
            }
            Xgmi xgmi = xgmiLinks == null ? null : new Xgmi(((Number) xgmiLinks.get("links")).intValue(),
                    Rate.gigabytesPerSecond(((Number) xgmiLinks.get("gbps")).doubleValue()));
            NvLinkGeneration generation = link == null ? null
                    : NvLinkGeneration.valueOf(String.valueOf(link.get("generation")).toUpperCase(Locale.ROOT));
            return new GpuModel(name, String.valueOf(fields.get("label")),
                    NcclArch.valueOf(String.valueOf(fields.get("nccl_arch")).toUpperCase(Locale.ROOT)), generation,
                    link == null ? 0 : ((Number) link.get("links")).intValue(), Boolean.TRUE.equals(fields.get("peer_to_peer")),
                    new Roofline(number("bf16_tflops"), number("fp8_tflops"), number("fp4_tflops"), number("hbm_gb"), number("hbm_tbps"),
                            (int) number("sms")), xgmi);
        }

        private double number(String field) {
            return ((Number) fields.get(field)).doubleValue();
        }

        private static IllegalStateException fault(String name, String field, String problem) {
            return new IllegalStateException(RESOURCE + ": " + name + ": " + field + ": " + problem);
        }
    }
}
