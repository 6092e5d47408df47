package dev.collsim.topologies.file;

import dev.collsim.core.input.InputException;
import dev.collsim.core.units.Rate;
import dev.collsim.topologies.catalog.GpuModel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.BiPredicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;

/**
 * Reads the GPU matrix that {@code nvidia-smi topo -m} prints and writes it in the project's
 * topology format.
 *
 * <p>The labels become devices and links: {@code NV#} between two GPUs is # NVLinks joining them
 * directly, or, when every pair of four or more GPUs shows the same {@code NV#}, # NVLinks from each
 * GPU to an NVSwitch. {@code PIX} and {@code PXB} put GPUs under one PCIe switch, {@code PHB} and
 * {@code NODE} under one CPU socket, {@code SYS} on different sockets joined by the socket link.
 * The matrix gives no rates: they come from the options (per NVLink link, per PCIe link, the socket
 * link), so the user states them. A device row with no column in the header, a row given twice, or
 * labels past the header's columns (a device missing from it) are refused by the device's name rather
 * than left out.
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

    /** A NIC column or row as nvidia-smi names it: NIC0 (with a legend after the matrix), or the device itself (mlx5_0). */
    private static final Pattern NIC = Pattern.compile("NIC\\d+|mlx\\d+_(bond_)?\\d+");

    public static String toYaml(List<String> lines, String file, GpuModel gpu, Rates rates) {
        int header = -1;
        List<String> gpus = new ArrayList<>();
        List<String> nics = new ArrayList<>();
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
                    if (NIC.matcher(tokens[k]).matches() && nics.size() == k - gpus.size()) {
                        nics.add(tokens[k]);
                    }
                }
            }
        }
        if (header < 0) {
            throw new InputException(file + ":1: no GPU0 header; expected the matrix that nvidia-smi topo -m prints");
        }
        int n = gpus.size();
        int m = nics.size();
        List<String> names = new ArrayList<>(gpus);
        names.addAll(nics);
        // Labels between every two devices, GPUs first, then NICs; a NIC row missing leaves its NIC-to-NIC labels SYS.
        String[][] label = new String[n + m][n + m];
        for (String[] row : label) {
            Arrays.fill(row, "SYS");
        }
        boolean[] seen = new boolean[n + m];
        int gpuRows = 0;
        for (int i = header + 1; i < lines.size(); i++) {
            String line = lines.get(i).trim();
            if (line.isEmpty()) {
                continue;
            }
            String[] tokens = line.split("\\s+");
            int row;
            if (gpuRows < n && tokens[0].startsWith("GPU")) {
                if (!tokens[0].equals(gpus.get(gpuRows))) {
                    throw new InputException(file + ":" + (i + 1) + ": row " + tokens[0] + " where " + gpus.get(gpuRows) + " was expected");
                }
                row = gpuRows;
            } else {
                row = nics.indexOf(tokens[0]);
                if (row < 0 && !isLabel(tokens, 1)) {
                    continue; // the legend and the like
                }
                if (row < 0 || seen[n + row]) {
                    // A device's row that the header has no column for, or a row given twice: it could not be placed.
                    throw new InputException(file + ":" + (i + 1) + ": row " + tokens[0] + (row < 0
                            ? " has no column in the header (" + String.join(" ", names) + "); expected the matrix whole, as nvidia-smi prints it"
                            : " again; expected each device's row once"));
                }
                row += n;
            }
            int columns = n + m;
            if (tokens.length < columns + 1) {
                throw new InputException(file + ":" + (i + 1) + ": " + tokens[0] + " has " + (tokens.length - 1)
                        + " labels; expected one per GPU (" + n + ")" + (m > 0 ? " and NIC (" + m + ")" : ""));
            }
            if (isLabel(tokens, columns + 1)) {
                throw new InputException(file + ":" + (i + 1) + ": " + tokens[0] + " has a label ('" + tokens[columns + 1]
                        + "') past the header's " + columns + " columns (" + String.join(" ", names)
                        + "): a device missing from the header; expected the matrix whole, as nvidia-smi prints it");
            }
            for (int j = 0; j < columns; j++) {
                label[row][j] = checked(file, i, tokens[0], names.get(j), tokens[j + 1], j == row, row < n && j < n);
            }
            seen[row] = true;
            gpuRows += row < n ? 1 : 0;
        }
        if (gpuRows < n) {
            throw new InputException(file + ":" + lines.size() + ": the matrix has " + gpuRows + " GPU rows; the header names " + n);
        }
        for (int a = 0; a < n + m; a++) {
            for (int b = 0; b < n + m; b++) {
                if (seen[a] && seen[b] && !label[a][b].equals(label[b][a])) {
                    throw new InputException(file + ":" + (header + 2 + a) + ": " + names.get(a) + " to " + names.get(b) + " is "
                            + label[a][b] + " but " + names.get(b) + " to " + names.get(a) + " is " + label[b][a]);
                }
            }
        }
        for (int a = n; a < n + m; a++) {
            for (int b = 0; b < n; b++) {
                label[a][b] = label[b][a]; // a NIC's row, printed or not, agrees with the GPUs' columns
            }
        }
        return yaml(file, gpu, rates, gpus, m, label);
    }

    /** Whether {@code tokens[k]} is a label of the matrix (X, NV#, PIX, ...), not an affinity or a legend's text. */
    private static boolean isLabel(String[] tokens, int k) {
        return k < tokens.length && (LABELS.contains(tokens[k]) || NV.matcher(tokens[k]).matches());
    }

    /** One label of the matrix, checked: NV# only between GPUs, X on the diagonal only. */
    private static String checked(String file, int line, String from, String to, String l, boolean diagonal, boolean gpuToGpu) {
        Matcher nv = NV.matcher(l);
        boolean isNv = nv.matches();
        if (!LABELS.contains(l) && !isNv) {
            throw new InputException(file + ":" + (line + 1) + ": " + from + " to " + to + ": unknown label '" + l
                    + "'; expected X, NV#, PIX, PXB, PHB, NODE or SYS");
        }
        int count = isNv && nv.group(1).length() <= 3 ? Integer.parseInt(nv.group(1)) : -1;
        if (isNv && (!gpuToGpu || count < 1 || count > ImportedYaml.MAX_NVLINKS)) {
            throw new InputException(file + ":" + (line + 1) + ": " + from + " to " + to + ": '" + l
                    + (gpuToGpu ? "': expected NV1 to NV" + ImportedYaml.MAX_NVLINKS + " (the count of NVLinks)" : "': NVLink joins GPUs only"));
        }
        if (diagonal != l.equals("X")) {
            throw new InputException(file + ":" + (line + 1) + ": " + from + " to " + to + ": 'X' belongs on the diagonal only");
        }
        return l;
    }

    /** {@code label} covers the GPUs, then {@code nics} NICs. */
    private static String yaml(String file, GpuModel gpu, Rates rates, List<String> gpus, int nics, String[][] label) {
        int n = gpus.size();
        // Sockets: devices that are not SYS to each other share a CPU; NV# says nothing of two GPUs' sockets, but a NIC
        // that one reaches inside its socket and the other only across the socket link tells them apart.
        // Switches: PIX or PXB share one.
        int[] socket = groups(label.length, (i, j) -> !label[i][j].equals("SYS") && (!NV.matcher(label[i][j]).matches()
                || IntStream.range(n, n + nics).allMatch(k -> label[i][k].equals("SYS") == label[j][k].equals("SYS"))));
        int[] pcieSwitch = groups(label.length, (i, j) -> label[i][j].equals("PIX") || label[i][j].equals("PXB"));
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
        for (int i = 0; i < nics; i++) {
            sb.append("  - {name: nic").append(i).append(", kind: nic}\n");
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
        for (int i = 0; i < n + nics; i++) {
            int w = pcieSwitch[i];
            String up = size(pcieSwitch, w) > 1 ? "pcie" + w : "cpu" + socket[i];
            ImportedYaml.link(sb, i < n ? "gpu" + i : "nic" + (i - n), up, rates.pcieRate(), "500ns", "PCIe");
        }
        for (int w = 0; w <= max(pcieSwitch); w++) {
            if (size(pcieSwitch, w) > 1) {
                int member = indexOf(pcieSwitch, w);
                ImportedYaml.link(sb, "pcie" + w, "cpu" + socket[member], rates.pcieRate(), "500ns", "PCIe uplink");
            }
        }
        ImportedYaml.socketLinks(sb, sockets, rates.socketRate());
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

    /**
     * Connected groups of {@code n} devices under a relation between two (two GPUs under one switch are
     * joined through the NIC they both show PXB to, though the matrix labels them NV#), numbered in
     * order of first member.
     */
    private static int[] groups(int n, BiPredicate<Integer, Integer> together) {
        int[] root = new int[n];
        Arrays.setAll(root, i -> i);
        for (int i = 0; i < n; i++) {
            for (int j = i + 1; j < n; j++) {
                if (together.test(i, j)) {
                    root[find(root, j)] = find(root, i);
                }
            }
        }
        int[] g = new int[n];
        int[] number = new int[n];
        Arrays.fill(number, -1);
        int next = 0;
        for (int i = 0; i < n; i++) {
            int r = find(root, i);
            if (number[r] < 0) {
                number[r] = next++;
            }
            g[i] = number[r];
        }
        return g;
    }

    private static int find(int[] root, int i) {
        while (root[i] != i) {
            root[i] = root[root[i]];
            i = root[i];
        }
        return i;
    }

    private static int max(int[] a) {
        return Arrays.stream(a).max().orElse(-1);
    }

    private static int size(int[] a, int v) {
        return (int) Arrays.stream(a).filter(x -> x == v).count();
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
