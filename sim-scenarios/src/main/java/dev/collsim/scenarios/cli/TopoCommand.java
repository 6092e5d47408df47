package dev.collsim.scenarios.cli;

import dev.collsim.core.fabric.Device;
import dev.collsim.core.fabric.DeviceKind;
import dev.collsim.core.fabric.Fabric;
import dev.collsim.core.fabric.Link;
import dev.collsim.core.input.InputException;
import dev.collsim.core.input.TextFile;
import dev.collsim.core.nccl.Communicator;
import dev.collsim.core.units.Rate;
import dev.collsim.reports.Column;
import dev.collsim.reports.ReportFormat;
import dev.collsim.reports.Table;
import dev.collsim.scenarios.bench.Bench;
import dev.collsim.topologies.catalog.GpuModel;
import dev.collsim.topologies.file.NcclXmlImport;
import dev.collsim.topologies.file.RocmSmiImport;
import dev.collsim.topologies.file.TopoMatrixImport;
import dev.collsim.topologies.file.TopologyFile;
import dev.collsim.topologies.systems.SystemPreset;
import dev.collsim.topologies.systems.WhatIf;
import dev.collsim.topologies.view.TopoMatrix;
import java.io.StringReader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code collsim topo}: look at a modelled system. */
@Command(name = "topo", mixinStandardHelpOptions = true, description = "Shows a modelled system's topology.",
        subcommands = {TopoCommand.Show.class, TopoCommand.Validate.class, TopoCommand.Import.class})
public final class TopoCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** {@code collsim topo show}: the nvidia-smi topo -m matrix of node 0 and a summary of the links. */
    @Command(name = "show", mixinStandardHelpOptions = true, sortOptions = false,
            description = {"Prints one node's GPU matrix as nvidia-smi topo -m does, and the fabric's links by class.",
                "The matrix uses nvidia-smi's labels (NV#, PIX, PXB, PHB, SYS, NET), so it can be held against a real",
                "machine's; the links are listed with their rates."})
    static final class Show implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Mixin
        SystemOptions system;

        @Mixin
        WhatIfOptions whatIf;

        @Mixin
        OutputOptions output;

        @Override
        public Integer call() {
            String systemName = system.system.name();
            WhatIf knobs = whatIf.toWhatIf();
            Communicator whole = system.whole(knobs);
            Communicator comm = whole != null ? whole.withLinkEdits(knobs.linkEdits())
                    : Bench.preset(systemName, system.nodes, system.gpusPerNode.count, system.network.name, knobs);
            ReportFormat format = output.reportFormat();
            Table links = links(comm);
            if (whole == null) {
                SystemPreset preset = SystemPreset.byName(systemName);
                int[] chips = preset.nvlinksPerChip();
                if (chips.length > 0) {
                    links.note("nvswitch: the node's " + chips.length + " NVSwitch chips as one crossbar; each GPU's "
                            + preset.gpu().nvlinks() + " NVLinks spread " + Arrays.stream(chips).mapToObj(String::valueOf)
                            .collect(Collectors.joining("+")) + " over them, striped by address, so the bundle is exact");
                }
            }
            output.emit(format.render(List.of(matrix(comm), links)), spec.commandLine().getOut());
            return 0;
        }

        /** GPUs of node 0 against each other, plus the first GPU of node 1 when there is one (to show NET). */
        private static Table matrix(Communicator comm) {
            Fabric f = comm.fabric();
            int perNode = comm.nRanks() / comm.nNodes();
            List<Integer> shown = new ArrayList<>();
            for (int r = 0; r < perNode; r++) {
                shown.add(r);
            }
            if (comm.nNodes() > 1) {
                shown.add(perNode);
            }
            List<Column> columns = new ArrayList<>();
            columns.add(Column.text("gpu", "", 6));
            for (int r : shown) {
                columns.add(Column.text("gpu" + r, "GPU" + r, 6));
            }
            Table t = new Table("GPU matrix of " + comm.name(), columns, Map.of("command", "topo show", "system", comm.name()));
            t.note(comm.name() + ": " + comm.nNodes() + " node(s) x " + perNode + " GPUs"
                    + (comm.nNodes() > 1 ? "; GPU" + perNode + " is the first GPU of node 1" : ""));
            t.note("Legend: X = self, NV# = NVLink with # links (through NVSwitch), PIX/PXB = one/several PCIe switches,");
            t.note("PHB = a CPU host bridge, SYS = across CPU sockets, NET = through the network"
                    + (comm.nccl().arch().rccl() ? ", XGMI = AMD Infinity Fabric, one link between the pair" : ""));
            for (int a : shown) {
                Object[] row = new Object[shown.size() + 1];
                row[0] = "GPU" + a;
                for (int j = 0; j < shown.size(); j++) {
                    row[j + 1] = TopoMatrix.label(f, comm.placement().devices()[a], comm.placement().devices()[shown.get(j)]);
                }
                t.row(row);
            }
            return t;
        }

        private static Table links(Communicator comm) {
            Fabric f = comm.fabric();
            Map<String, long[]> count = new TreeMap<>();
            Map<String, Link> example = new TreeMap<>();
            for (Link l : f.links()) {
                String key = kindOf(f.device(l.from())) + " -> " + kindOf(f.device(l.to())) + "  " + l.linkClass();
                count.computeIfAbsent(key, k -> new long[1])[0]++;
                example.putIfAbsent(key, l);
            }
            Table t = new Table("Links of " + comm.name(), List.of(Column.text("from_to", "from -> to", 28),
                    Column.text("class", "class", 22), Column.number("count", "links", "", 6, 0),
                    Column.number("rate_GBps", "rate per direction", "(GB/s)", 18, 1),
                    Column.number("latency_ns", "latency", "(ns)", 8, 0)), Map.of("command", "topo show"));
            t.note("directed links, each one direction of a cable; rates are effective data rates");
            for (Map.Entry<String, long[]> e : count.entrySet()) {
                Link l = example.get(e.getKey());
                t.row(kindOf(f.device(l.from())) + " -> " + kindOf(f.device(l.to())), l.linkClass(), e.getValue()[0],
                        l.rate().gigabytesPerSecond(), l.latency().picos() / 1000.0);
            }
            return t;
        }

        static String kindOf(Device d) {
            return d.kind() == DeviceKind.NETWORK_SWITCH ? "network switch" : d.kind().name().toLowerCase(Locale.ROOT)
                    .replace('_', ' ');
        }
    }

    /** {@code collsim topo validate FILE...}: check topology files, one line each. */
    @Command(name = "validate", mixinStandardHelpOptions = true,
            description = "Checks topology files (docs/topology-format.md) and says what each describes, or the first problem.")
    static final class Validate implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Parameters(paramLabel = "FILE", arity = "1..*", description = "topology files, YAML or JSON")
        List<Path> files;

        @Override
        public Integer call() {
            var out = spec.commandLine().getOut();
            for (Path file : files) {
                Communicator c = TopologyFile.load(file);
                out.printf(Locale.ROOT, "%s: ok: %d devices, %d links, %d GPUs in %d node(s); NCCL sees %s inside a node,"
                                + " %d ring channels%s%n", file, c.fabric().devices().size(), c.fabric().links().size(), c.nRanks(),
                        c.nNodes(), c.nccl().intraLink(), c.nccl().ring().channels(), c.nccl().nvlsGraph() == null ? "" : ", NVLS");
            }
            out.flush();
            return 0;
        }
    }

    /**
     * {@code collsim topo import FILE}: nvidia-smi topo -m text, NCCL's topology XML or rocm-smi --showtopo text to the
     * project's topology format.
     */
    @Command(name = "import", mixinStandardHelpOptions = true, sortOptions = false,
            description = {"Turns nvidia-smi topo -m's matrix, NCCL's topology XML or rocm-smi --showtopo's printout into a topology file.",
                "The XML is what NCCL writes to NCCL_TOPO_DUMP_FILE. The matrix has no rates: give them, or take the",
                "defaults (an A100-class PCIe Gen4 box). The XML has PCIe speeds and widths and NVLink counts; the",
                "options override them. rocm-smi's printout gives each GPU pair XGMI or PCIE and each GPU's NUMA node;",
                "an xGMI link takes the GPU's usable rate (--gpu, default mi300x) unless --xgmi-rate says otherwise."})
    static final class Import implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Parameters(paramLabel = "FILE", description = "the text nvidia-smi topo -m or rocm-smi --showtopo printed, or NCCL's topology XML")
        Path file;

        @Option(names = "--gpu", paramLabel = "MODEL",
                description = "a100, h100, h200, b200, gb200, gb300, h100-pcie, l40s, rtx4090, rtx2080ti, mi300x, mi325x or mi355x"
                        + " (default: from the XML's sm, a100 for topo -m, mi300x for rocm-smi); GeForce cards import with p2p: false")
        String gpu;

        @Option(names = "--nvlink-rate", paramLabel = "RATE",
                description = "per NVLink link and direction (default: the GPU's for XML, 20GB/s for topo -m)")
        String nvlinkRate;

        @Option(names = "--pcie-rate", paramLabel = "RATE",
                description = "every PCIe link, per direction (default: from link_speed and link_width for XML, 27.2GB/s = Gen4 x16 for topo -m)")
        String pcieRate;

        @Option(names = "--xgmi-rate", paramLabel = "RATE",
                description = "per xGMI link and direction, for rocm-smi's printout (default: the GPU's usable rate, 48GB/s on MI300X)")
        String xgmiRate;

        @Option(names = "--socket-rate", paramLabel = "RATE", defaultValue = "40GB/s", description = "between CPU sockets, per direction (default: ${DEFAULT-VALUE})")
        String socketRate;

        @OutputFile
        @Option(names = {"-O", "--output"}, paramLabel = "FILE", description = "write the topology here (atomically) instead of standard output")
        Path output;

        @Override
        public Integer call() {
            String text = TextFile.read(file);
            GpuModel model = gpu == null ? null : Flags.parse("--gpu", () -> GpuModel.byName(gpu));
            Rate nvlink = rate("--nvlink-rate", nvlinkRate);
            Rate pcie = rate("--pcie-rate", pcieRate);
            Rate socket = rate("--socket-rate", socketRate);
            String yaml = text.stripLeading().startsWith("<")
                    ? NcclXmlImport.toYaml(text, file.toString(), new NcclXmlImport.Options(model, nvlink, pcie, socket))
                    : RocmSmiImport.recognises(text)
                    ? RocmSmiImport.toYaml(text.lines().toList(), file.toString(), model == null ? GpuModel.MI300X : model,
                            new RocmSmiImport.Rates(rate("--xgmi-rate", xgmiRate), pcie == null ? Rate.gigabytesPerSecond(54.4) : pcie, socket))
                    : TopoMatrixImport.toYaml(text.lines().toList(), file.toString(), model == null ? GpuModel.A100_SXM : model,
                            new TopoMatrixImport.Rates(nvlink == null ? Rate.gigabytesPerSecond(20) : nvlink,
                                    pcie == null ? Rate.gigabytesPerSecond(27.2) : pcie, socket));
            TopologyFile.read(new StringReader(yaml), "the imported topology"); // what we write must load
            if (output == null) {
                spec.commandLine().getOut().print(yaml);
                spec.commandLine().getOut().flush();
            } else {
                RunFiles.current().write(output, yaml);
            }
            return 0;
        }

        private static Rate rate(String flag, String text) {
            return text == null ? null : Flags.parse(flag, () -> Rate.parse(text));
        }
    }
}
