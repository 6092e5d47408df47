package dev.collsim.topologies.file;

import dev.collsim.core.units.Rate;
import dev.collsim.topologies.catalog.GpuModel;
import java.nio.file.Path;
import java.util.Locale;

/** What the importers write: the topology format's header and its one-line links. */
final class ImportedYaml {
    /** NVLinks per GPU above any GPU's (18 on Hopper and Blackwell): a larger count in an import is a typo or a corrupt dump. */
    static final int MAX_NVLINKS = 64;

    private ImportedYaml() {}

    /** Writes everything up to and including {@code devices:}. */
    static void header(StringBuilder sb, String file, String source, GpuModel gpu) {
        sb.append("# Imported by collsim topo import from ").append(file).append(" (").append(source).append(").\n");
        sb.append("# Rates are the ones given to the import or its defaults: check them against your hardware.\n");
        sb.append("version: 1\nname: ").append(baseName(file)).append("\ngpu: ").append(gpu.shortName()).append('\n');
        if (!gpu.peerToPeer()) {
            sb.append("p2p: false                  # ").append(gpu.label()).append(": no peer-to-peer, NCCL copies through host memory\n");
        }
        sb.append("devices:\n");
    }

    /** The single NVSwitch device both importers reduce a board's switch chips to. */
    static void nvswitch(StringBuilder sb, GpuModel gpu) {
        sb.append("  - {name: nvswitch, kind: nvswitch").append(gpu.arch().nvlsEfficiency() > 0 ? ", capabilities: [nvls]" : "")
                .append("}\n");
    }

    /** Every two of {@code cpus} CPU sockets ({@code cpu0}, ...) joined by the socket link. */
    static void socketLinks(StringBuilder sb, int cpus, Rate rate) {
        for (int a = 0; a + 1 < cpus; a++) {
            for (int b = a + 1; b < cpus; b++) {
                link(sb, "cpu" + a, "cpu" + b, rate, "300ns", "socket interconnect");
            }
        }
    }

    static void link(StringBuilder sb, String from, String to, Rate rate, String latency, String linkClass) {
        sb.append(String.format(Locale.ROOT, "  - {from: %s, to: %s, rate: %sGB/s, latency: %s, class: %s}%n", from, to,
                trim(rate.gigabytesPerSecond()), latency, linkClass));
    }

    private static String trim(double v) {
        String s = String.format(Locale.ROOT, "%.4f", v).replaceAll("0+$", "");
        return s.endsWith(".") ? s.substring(0, s.length() - 1) : s;
    }

    private static String baseName(String file) {
        String name = Path.of(file).getFileName().toString();
        int dot = name.lastIndexOf('.');
        return dot > 0 ? name.substring(0, dot) : name;
    }
}
