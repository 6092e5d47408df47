package dev.collsim.topologies.file;

import dev.collsim.core.fabric.Capability;
import dev.collsim.core.fabric.DeviceKind;
import dev.collsim.core.fabric.Fabric;
import dev.collsim.core.fabric.FabricBuilder;
import dev.collsim.core.input.InputException;
import dev.collsim.core.input.TextFile;
import dev.collsim.core.nccl.Communicator;
import dev.collsim.core.units.Rate;
import dev.collsim.core.units.TimeSpan;
import dev.collsim.topologies.catalog.GpuModel;
import dev.collsim.topologies.systems.FabricSystem;
import java.io.Reader;
import java.io.StringReader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The project's topology format (YAML, or JSON, which is YAML too), version 1, documented in
 * {@code docs/topology-format.md}. Every value carries its unit; every error names the file, the
 * line and the field.
 */
public final class TopologyFile {
    private static final Set<String> TOP = Set.of("version", "name", "gpu", "p2p", "devices", "links");
    private static final Set<String> DEVICE = Set.of("name", "kind", "node", "capabilities");
    private static final Set<String> LINK = Set.of("from", "to", "rate", "latency", "class", "duplex", "down");
    private static final Pattern QUOTED = Pattern.compile("'([^']+)'");

    private TopologyFile() {}

    public static Communicator load(Path path) {
        return loaded(path).communicator();
    }

    /** The file's system, checked: its communicator builds. */
    public static FabricSystem loadSystem(Path path) {
        return loaded(path).system();
    }

    public static Communicator read(Reader reader, String file) {
        return parsed(reader, file).communicator();
    }

    public static FabricSystem readSystem(Reader reader, String file) {
        return parsed(reader, file).system();
    }

    /** A file's system with the communicator of all its ranks, built once to check it and kept. */
    private record Loaded(FabricSystem system, Communicator communicator) {}

    private static Loaded loaded(Path path) {
        String text = TextFile.read(path);
        String what = importable(text);
        if (what != null) {
            throw new InputException(path + ": this is " + what + ", not a topology file; convert it with 'collsim topo import " + path
                    + " -O node.yaml' and give node.yaml to --topology");
        }
        return parsed(new StringReader(text), path.toString());
    }

    /** What a text that {@code topo import} reads is ({@code nvidia-smi topo -m}'s matrix, NCCL's XML), or null. */
    private static String importable(String text) {
        List<String> lines = text.lines().filter(l -> !l.isBlank()).limit(2).toList();
        String first = lines.isEmpty() ? "" : lines.get(0).strip();
        if (first.startsWith("<")) {
            return "NCCL's topology XML (NCCL_TOPO_DUMP_FILE)";
        }
        // The matrix: a header of device labels, then GPU0's row.
        return first.startsWith("GPU0") && lines.size() > 1 && lines.get(1).strip().startsWith("GPU0") ? "nvidia-smi topo -m output" : null;
    }

    private static Loaded parsed(Reader reader, String file) {
        return build(Doc.parse(reader, file, "a topology with version, gpu, devices and links"), file);
    }

    private static Loaded build(Doc top, String file) {
        Map<String, Doc> f = top.fields(TOP);
        Doc version = Doc.required(f, "version", top);
        if (version.integer() != 1) {
            throw version.error("version " + version.text() + " is not supported; expected 1");
        }
        GpuModel gpu = Doc.required(f, "gpu", top).parse(GpuModel::byName);
        String name = f.containsKey("name") ? f.get("name").text() : Path.of(file).getFileName().toString();
        FabricBuilder b = new FabricBuilder();
        Map<String, Doc> deviceLine = new HashMap<>();
        Map<String, Integer> ids = new HashMap<>();
        List<Integer> gpus = new ArrayList<>();
        List<Integer> gpuNodes = new ArrayList<>();
        for (Doc d : Doc.required(f, "devices", top).list()) {
            Map<String, Doc> df = d.fields(DEVICE);
            Doc nameDoc = Doc.required(df, "name", d);
            String deviceName = nameDoc.text();
            DeviceKind kind = kind(Doc.required(df, "kind", d));
            Set<Capability> caps = EnumSet.noneOf(Capability.class);
            if (df.containsKey("capabilities")) {
                for (Doc c : df.get("capabilities").list()) {
                    caps.add(capability(c));
                }
            }
            int node = 0;
            if (df.containsKey("node")) {
                node = df.get("node").integer();
                if (node < 0) {
                    throw df.get("node").error("a node index is 0 or more");
                }
            }
            int id;
            try {
                id = b.addDevice(deviceName, kind, caps);
            } catch (InputException e) {
                throw nameDoc.error(e.getMessage());
            }
            deviceLine.put(deviceName, d);
            ids.put(deviceName, id);
            if (kind == DeviceKind.GPU) {
                gpus.add(id);
                gpuNodes.add(node);
            }
        }
        for (Doc l : Doc.required(f, "links", top).list()) {
            Map<String, Doc> lf = l.fields(LINK);
            Doc from = Doc.required(lf, "from", l);
            Doc to = Doc.required(lf, "to", l);
            int a = device(from, ids);
            int z = device(to, ids);
            Rate rate = Doc.required(lf, "rate", l).parse(Rate::parse);
            TimeSpan latency = Doc.required(lf, "latency", l).parse(TimeSpan::parse);
            String linkClass = lf.containsKey("class") ? lf.get("class").text() : from.text() + "-" + to.text();
            boolean duplex = !lf.containsKey("duplex") || lf.get("duplex").bool();
            if (lf.containsKey("down") && lf.get("down").bool()) {
                continue;
            }
            try {
                if (duplex) {
                    b.addDuplex(a, z, rate, latency, linkClass);
                } else {
                    b.addLink(a, z, rate, latency, linkClass);
                }
            } catch (InputException e) {
                throw l.error(e.getMessage());
            }
        }
        if (gpus.isEmpty()) {
            throw Doc.required(f, "devices", top).error("no device of kind gpu");
        }
        Fabric fabric;
        try {
            fabric = b.build();
        } catch (InputException e) {
            Matcher m = QUOTED.matcher(e.getMessage());
            Doc where = m.find() && deviceLine.containsKey(m.group(1)) ? deviceLine.get(m.group(1)) : top;
            throw where.error(e.getMessage());
        }
        boolean p2p = !f.containsKey("p2p") || f.get("p2p").bool();
        FabricSystem system = system(name, gpu, fabric, gpus, gpuNodes, deviceLine, p2p);
        try {
            return new Loaded(system, system.communicator());
        } catch (InputException e) {
            throw f.containsKey("p2p") ? f.get("p2p").error(e.getMessage()) : e;
        }
    }

    private static FabricSystem system(String name, GpuModel gpu, Fabric fabric, List<Integer> gpus,
                                       List<Integer> gpuNodes, Map<String, Doc> deviceLine, boolean p2p) {
        int n = gpus.size();
        int nodes = gpuNodes.stream().mapToInt(Integer::intValue).max().orElse(0) + 1;
        int[] perNode = new int[nodes];
        for (int k : gpuNodes) {
            perNode[k]++;
        }
        for (int k = 0; k < nodes; k++) {
            if (perNode[k] != perNode[0]) {
                int at = gpuNodes.indexOf(k) >= 0 ? gpuNodes.indexOf(k) : gpuNodes.indexOf(nodes - 1);
                throw deviceLine.get(fabric.device(gpus.get(at)).name()).error("node " + k + " has " + perNode[k]
                        + " GPUs and node 0 has " + perNode[0] + "; every node needs the same number of GPUs, nodes numbered from 0");
            }
        }
        // Ranks in node order, keeping file order within a node, so that rank = node x ppn + local.
        Integer[] order = new Integer[n];
        Arrays.setAll(order, i -> i);
        Arrays.sort(order, (x, y) -> Integer.compare(gpuNodes.get(x), gpuNodes.get(y)));
        int[] ranks = new int[n];
        int[] rankNodes = new int[n];
        for (int r = 0; r < n; r++) {
            ranks[r] = gpus.get(order[r]);
            rankNodes[r] = gpuNodes.get(order[r]);
        }
        return new FabricSystem(name, gpu, fabric, ranks, rankNodes, p2p);
    }

    private static int device(Doc ref, Map<String, Integer> ids) {
        Integer id = ids.get(ref.text());
        if (id == null) {
            throw ref.error("unknown device '" + ref.text() + "'; devices must be listed under devices first");
        }
        return id;
    }

    private static DeviceKind kind(Doc d) {
        String k = d.text().toLowerCase(Locale.ROOT).replace('-', '_');
        try {
            return DeviceKind.valueOf(k.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw d.error("unknown kind '" + d.text() + "'; expected gpu, nvswitch, pcie-switch, cpu, nic or network-switch");
        }
    }

    private static Capability capability(Doc d) {
        try {
            return Capability.valueOf(d.text().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw d.error("unknown capability '" + d.text() + "'; expected nvls or sharp");
        }
    }
}
