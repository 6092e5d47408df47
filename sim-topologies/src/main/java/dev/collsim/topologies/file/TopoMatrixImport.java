package dev.collsim.topologies.file;

import dev.collsim.core.input.InputException;
import dev.collsim.core.units.Rate;
import dev.collsim.topologies.catalog.GpuModel;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the GPU matrix that {@code nvidia-smi topo -m} prints and writes it in the project's
 * topology format.
 *
 * <p>The labels become devices and links: {@code NV#} between two GPUs is # NVLinks joining them
 * directly, or, when every pair of four or more GPUs shows the same {@code NV#}, # NVLinks from each
 * GPU to an NVSwitch. {@code PIX} and {@code PXB} put GPUs under one PCIe switch, {@code PHB} and
 * {@code NODE} under one CPU socket, {@code SYS} on different sockets joined by the socket link.
 * The matrix gives no rates: they come from the options (per NVLink link, per PCIe link, the socket
 * link), so the user states them.
 */
public final class TopoMatrixImport {
    private static final Pattern NV = Pattern.compile("NV(\\d+)");
    private static final List<String> LABELS = List.of("X", "PIX", "PXB", "PHB", "NODE", "SYS");

    /**
     * @param nvlinkRate per NVLink link and direction
     * @param pcieRate   per PCIe link (GPU to switch or CPU) and direction
     * @param socketRate the link between two CPU sockets, per direction
     */
    public record Rates(Rate nvlinkRate, Rate pcieRate, Rate socketRate) {}

    private TopoMatrixImport() {}

    public static String toYaml(List<String> lines, String file, GpuModel gpu, Rates rates) {
        int header = -1;
        List<String> gpus = new ArrayList<>();
        for (int i = 0; i < lines.size() && header < 0; i++) {
            String[] tokens = lines.get(i).trim().split("\\s+");
            if (tokens.length > 0 && tokens[0].equals("GPU0")) {
                header = i;
                for (String t : tokens) {
                    if (!t.matches("GPU\\d+")) {
                        break;
                    }
                    if (!t.equals("GPU" + gpus.size())) {
                        throw new InputException(file + ":" + (i + 1) + ": header column " + (gpus.size() + 1) + " is " + t
                                + "; expected GPU" + gpus.size() + " (the GPUs in order, each once)");
                    }
                    gpus.add(t);
                }
                for (int k = gpus.size(); k < tokens.length; k++) {
                    if (tokens[k].matches("GPU\\d+")) {
                        throw new InputException(file + ":" + (i + 1) + ": " + tokens[k] + " after " + tokens[gpus.size()]
                                + "; nvidia-smi prints the GPU columns first, then NICs and affinities");
                    }
                }
            }
        }
        if (header < 0) {
            throw new InputException(file + ":1: no GPU0 header; expected the matrix that nvidia-smi topo -m prints");
        }
        int n = gpus.size();
        String[][] label = new String[n][n];
        int row = 0;
        for (int i = header + 1; i < lines.size() && row < n; i++) {
            String line = lines.get(i).trim();
            if (line.isEmpty()) {
                continue;
            }
            String[] tokens = line.split("\\s+");
            if (!tokens[0].equals(gpus.get(row))) {
                if (tokens[0].startsWith("GPU")) {
                    throw new InputException(file + ":" + (i + 1) + ": row " + tokens[0] + " where " + gpus.get(row) + " was expected");
                }
                continue; // NIC rows and the like
            }
            if (tokens.length < n + 1) {
                throw new InputException(file + ":" + (i + 1) + ": " + tokens[0] + " has " + (tokens.length - 1)
                        + " labels; expected one per GPU (" + n + ")");
            }
            for (int j = 0; j < n; j++) {
                String l = tokens[j + 1];
                Matcher nv = NV.matcher(l);
                boolean isNv = nv.matches();
                if (!LABELS.contains(l) && !isNv) {
                    throw new InputException(file + ":" + (i + 1) + ": " + tokens[0] + " to " + gpus.get(j) + ": unknown label '"
                            + l + "'; expected X, NV#, PIX, PXB, PHB, NODE or SYS");
                }
                int count = isNv && nv.group(1).length() <= 3 ? Integer.parseInt(nv.group(1)) : -1;
                if (isNv && (count < 1 || count > ImportedYaml.MAX_NVLINKS)) {
                    throw new InputException(file + ":" + (i + 1) + ": " + tokens[0] + " to " + gpus.get(j) + ": '" + l
                            + "': expected NV1 to NV" + ImportedYaml.MAX_NVLINKS + " (the count of NVLinks)");
                }
                if ((j == row) != l.equals("X")) {
                    throw new InputException(file + ":" + (i + 1) + ": " + tokens[0] + " to " + gpus.get(j) + ": 'X' belongs on the diagonal only");
                }
                label[row][j] = l;
            }
            row++;
        }
        if (row < n) {
            throw new InputException(file + ":" + lines.size() + ": the matrix has " + row + " GPU rows; the header names " + n);
        }
        for (int a = 0; a < n; a++) {
            for (int b = 0; b < n; b++) {
                if (!label[a][b].equals(label[b][a])) {
                    throw new InputException(file + ":" + (header + 2 + a) + ": " + gpus.get(a) + " to " + gpus.get(b) + " is "
                            + label[a][b] + " but " + gpus.get(b) + " to " + gpus.get(a) + " is " + label[b][a]);
                }
            }
        }
        return yaml(file, gpu, rates, gpus, label);
    }

    private static String yaml(String file, GpuModel gpu, Rates rates, List<String> gpus, String[][] label) {
        int n = gpus.size();
        // Sockets: GPUs that are not SYS to each other share a CPU. Switches: PIX or PXB share one.
        int[] socket = groups(label, l -> !l.equals("SYS"));
        int[] pcieSwitch = groups(label, l -> l.equals("PIX") || l.equals("PXB"));
        boolean nvswitch = n >= 4;
        Integer nvCount = null;
        for (int a = 0; a < n && nvswitch; a++) {
            for (int b = 0; b < n && nvswitch; b++) {
                if (a != b) {
                    Matcher m = NV.matcher(label[a][b]);
                    nvswitch = m.matches() && (nvCount == null || nvCount == Integer.parseInt(m.group(1)));
                    nvCount = m.matches() ? Integer.valueOf(m.group(1)) : nvCount;
                }
            }
        }
        StringBuilder sb = new StringBuilder();
        ImportedYaml.header(sb, file, "nvidia-smi topo -m", gpu);
        for (int i = 0; i < n; i++) {
            sb.append("  - {name: gpu").append(i).append(", kind: gpu}\n");
        }
        int sockets = max(socket) + 1;
        for (int s = 0; s < sockets; s++) {
            sb.append("  - {name: cpu").append(s).append(", kind: cpu}\n");
        }
        for (int w = 0; w <= max(pcieSwitch); w++) {
            if (size(pcieSwitch, w) > 1) {
                sb.append("  - {name: pcie").append(w).append(", kind: pcie-switch}\n");
            }
        }
        if (nvswitch) {
            ImportedYaml.nvswitch(sb, gpu);
        }
        sb.append("links:\n");
        for (int i = 0; i < n; i++) {
            int w = pcieSwitch[i];
            String up = size(pcieSwitch, w) > 1 ? "pcie" + w : "cpu" + socket[i];
            ImportedYaml.link(sb, "gpu" + i, up, rates.pcieRate(), "500ns", "PCIe");
        }
        for (int w = 0; w <= max(pcieSwitch); w++) {
            if (size(pcieSwitch, w) > 1) {
                int member = indexOf(pcieSwitch, w);
                ImportedYaml.link(sb, "pcie" + w, "cpu" + socket[member], rates.pcieRate(), "500ns", "PCIe uplink");
            }
        }
        for (int s = 0; s + 1 < sockets; s++) {
            for (int t = s + 1; t < sockets; t++) {
                ImportedYaml.link(sb, "cpu" + s, "cpu" + t, rates.socketRate(), "300ns", "socket interconnect");
            }
        }
        for (int a = 0; a < n; a++) {
            for (int b = a + 1; b < n; b++) {
                Matcher m = NV.matcher(label[a][b]);
                if (m.matches() && !nvswitch) {
                    int count = Integer.parseInt(m.group(1));
                    ImportedYaml.link(sb, "gpu" + a, "gpu" + b, rates.nvlinkRate().times(count), "250ns", "NVLink x" + count);
                }
            }
        }
        if (nvswitch) {
            for (int i = 0; i < n; i++) {
                ImportedYaml.link(sb, "gpu" + i, "nvswitch", rates.nvlinkRate().times(nvCount), "250ns", "NVLink x" + nvCount);
            }
        }
        return sb.toString();
    }

    /** Connected groups of GPUs under a relation of their labels, numbered in order of first member. */
    private static int[] groups(String[][] label, java.util.function.Predicate<String> together) {
        int n = label.length;
        int[] g = new int[n];
        java.util.Arrays.fill(g, -1);
        int next = 0;
        for (int i = 0; i < n; i++) {
            if (g[i] >= 0) {
                continue;
            }
            g[i] = next;
            for (int j = i + 1; j < n; j++) {
                if (g[j] < 0 && together.test(label[i][j])) {
                    g[j] = next;
                }
            }
            next++;
        }
        return g;
    }

    private static int max(int[] a) {
        return java.util.Arrays.stream(a).max().orElse(-1);
    }

    private static int size(int[] a, int v) {
        return (int) java.util.Arrays.stream(a).filter(x -> x == v).count();
    }

    private static int indexOf(int[] a, int v) {
        for (int i = 0; i < a.length; i++) {
            if (a[i] == v) {
                return i;
            }
        }
        return -1;
    }
}
