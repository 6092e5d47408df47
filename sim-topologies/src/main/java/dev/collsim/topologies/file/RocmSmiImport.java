package dev.collsim.topologies.file;

import dev.collsim.core.input.InputException;
import dev.collsim.core.units.Rate;
import dev.collsim.topologies.catalog.GpuModel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads what {@code rocm-smi --showtopo} prints on an AMD Instinct node and writes it in the project's
 * topology format.
 *
 * <p>Its "Link Type between two GPUs" matrix gives each pair {@code XGMI} (an Infinity Fabric link of
 * their own) or {@code PCIE} (through the host); the diagonal is {@code 0}. Its "Numa Nodes" lines give
 * each GPU's NUMA node: a GPU hangs off the CPU of its node by PCIe, the nodes' CPUs joined by the socket
 * link. The printout has no rates: an xGMI link takes the given rate or the GPU's usable share of its raw
 * rate, PCIe and the socket link the given ones. The other matrices (weights, hops) are not needed. A matrix
 * cut short, a label other than {@code 0}, {@code XGMI} or {@code PCIE}, or a pair that disagrees with its
 * mirror is refused by line and pair.
 */
public final class RocmSmiImport {
    private static final String SECTION = "Link Type between two GPUs";
    private static final Pattern NUMA = Pattern.compile("GPU\\s*\\[?(\\d+)]?\\s*:\\s*\\(Topology\\) Numa Node:\\s*(-?\\d+)");

    /**
     * @param xgmiRate   per xGMI link and direction, or null for the GPU's usable share of its raw rate
     * @param pcieRate   per PCIe link (GPU to its CPU) and direction
     * @param socketRate between two CPUs (NUMA nodes), per direction
     */
    public record Rates(Rate xgmiRate, Rate pcieRate, Rate socketRate) {}

    private RocmSmiImport() {}

    /** Whether the text is rocm-smi's topology printout. */
    public static boolean recognises(String text) {
        return text.contains(SECTION);
    }

    public static String toYaml(List<String> lines, String file, GpuModel gpu, Rates rates) {
        if (gpu.xgmi() == null && rates.xgmiRate() == null) {
            throw new InputException("--gpu " + gpu.shortName() + ": has no Infinity Fabric links; expected an Instinct GPU (mi300x, mi325x,"
                    + " mi355x) or --xgmi-rate");
        }
        int section = -1;
        for (int i = 0; i < lines.size() && section < 0; i++) {
            section = lines.get(i).contains(SECTION) ? i : -1;
        }
        if (section < 0) {
            throw new InputException(file + ":1: no '" + SECTION + "' section; expected what rocm-smi --showtopo prints");
        }
        int header = section + 1;
        while (header < lines.size() && lines.get(header).isBlank()) {
            header++;
        }
        String[] columns = header < lines.size() ? lines.get(header).trim().split("\\s+") : new String[0];
        for (int c = 0; c < columns.length; c++) {
            if (!columns[c].equals("GPU" + c)) {
                throw new InputException(file + ":" + (header + 1) + ": header column " + (c + 1) + " is '" + columns[c] + "'; expected GPU"
                        + c + " (the GPUs in order, each once)");
            }
        }
        int n = columns.length;
        if (n == 0) {
            throw new InputException(file + ":" + (header + 1) + ": the '" + SECTION + "' section has no GPU0 header");
        }
        String[][] label = new String[n][n];
        for (int r = 0; r < n; r++) {
            int line = header + 1 + r;
            String[] tokens = line < lines.size() ? lines.get(line).trim().split("\\s+") : new String[0];
            if (tokens.length == 0 || !tokens[0].equals("GPU" + r)) {
                throw new InputException(file + ":" + Math.min(line + 1, lines.size()) + ": the matrix has " + r + " GPU rows; the header"
                        + " names " + n + " (a printout cut short?)");
            }
            if (tokens.length != n + 1) {
                throw new InputException(file + ":" + (line + 1) + ": GPU" + r + " has " + (tokens.length - 1) + " labels; expected " + n
                        + ", one per GPU");
            }
            for (int c = 0; c < n; c++) {
                String l = tokens[c + 1];
                boolean known = r == c ? l.equals("0") : l.equals("XGMI") || l.equals("PCIE");
                if (!known) {
                    throw new InputException(file + ":" + (line + 1) + ": GPU" + r + " to GPU" + c + ": link type '" + l + "'; expected "
                            + (r == c ? "0 on the diagonal" : "XGMI or PCIE"));
                }
                label[r][c] = l;
            }
        }
        for (int a = 0; a < n; a++) {
            for (int b = 0; b < a; b++) {
                if (!label[a][b].equals(label[b][a])) {
                    throw new InputException(file + ":" + (header + 2 + a) + ": GPU" + a + " to GPU" + b + " is " + label[a][b] + " but GPU"
                            + b + " to GPU" + a + " is " + label[b][a]);
                }
            }
        }
        return yaml(file, gpu, rates, label, numaNodes(lines, file, n));
    }

    /** Each GPU's NUMA node, renumbered from 0 in order of first use; all on node 0 where the printout gives none. */
    private static int[] numaNodes(List<String> lines, String file, int n) {
        int[] node = new int[n];
        Arrays.fill(node, -1);
        List<Integer> seen = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            Matcher m = NUMA.matcher(lines.get(i));
            if (m.find()) {
                int g = Integer.parseInt(m.group(1));
                if (g >= n) {
                    throw new InputException(file + ":" + (i + 1) + ": GPU " + g + "'s NUMA node, but the matrix has GPUs 0 to " + (n - 1));
                }
                int k = Math.max(0, Integer.parseInt(m.group(2)));
                if (!seen.contains(k)) {
                    seen.add(k);
                }
                node[g] = seen.indexOf(k);
            }
        }
        for (int g = 0; g < n; g++) {
            node[g] = Math.max(0, node[g]);
        }
        return node;
    }

    private static String yaml(String file, GpuModel gpu, Rates rates, String[][] label, int[] numa) {
        int n = label.length;
        Rate xgmi = rates.xgmiRate() != null ? rates.xgmiRate() : gpu.xgmi().usableRate();
        StringBuilder sb = new StringBuilder();
        ImportedYaml.header(sb, file, "rocm-smi --showtopo", gpu);
        for (int i = 0; i < n; i++) {
            sb.append("  - {name: gpu").append(i).append(", kind: gpu}\n");
        }
        int cpus = Arrays.stream(numa).max().orElse(0) + 1;
        for (int s = 0; s < cpus; s++) {
            sb.append("  - {name: cpu").append(s).append(", kind: cpu}\n");
        }
        sb.append("links:\n");
        for (int i = 0; i < n; i++) {
            ImportedYaml.link(sb, "gpu" + i, "cpu" + numa[i], rates.pcieRate(), "500ns", "PCIe");
        }
        ImportedYaml.socketLinks(sb, cpus, rates.socketRate());
        for (int a = 0; a < n; a++) {
            for (int b = a + 1; b < n; b++) {
                if (label[a][b].equals("XGMI")) {
                    ImportedYaml.link(sb, "gpu" + a, "gpu" + b, xgmi, "500ns", "xGMI");
                }
            }
        }
        return sb.toString();
    }
}
