package dev.collsim.scenarios.properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.collsim.core.units.DataSize;
import dev.collsim.scenarios.cli.Main;
import dev.collsim.scenarios.decode.ModelConfig;
import dev.collsim.topologies.catalog.NetworkPreset;
import dev.collsim.topologies.systems.SystemPreset;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Issue 40's acceptance line: no valid combination of flags within their ranges ends in an internal
 * error. For every command of {@code collsim} (found through picocli's model, so a new command or a new
 * flag without a generator fails the test), random command lines from a fixed seed: a random subset of
 * the command's flags, each with a value from its meaningful range (catalogue names, sizes and rates
 * with units, what-if factors from 0.001 to 1000, files made by the commands that make them). Each
 * run must end with exit code 0, or with exit code 2 and one line "collsim: ..." (a combination
 * refused is fine), never exit 1, "internal error", a stack trace or an exception's name.
 *
 * <p>Bounded: sizes shrink as the GPUs a run uses grow, compare and serve run a small model on few
 * GPUs with one thread, validate is given a few rows of the calibration set instead of all of it.
 */
class EveryCommandPropertyTest {
    static final long SEED = 40;
    /** -Deverycommand.verbose=true prints every command line and how it ended (to see what the generators refuse). */
    static final boolean VERBOSE = Boolean.getBoolean("everycommand.verbose");
    /** The tests run in sim-scenarios; the repository's example files are one level up. */
    static final Path REPO = Path.of("..");
    static final List<String> OPS = List.of("all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce", "alltoall", "sendrecv");
    static final List<String> SYSTEMS = Arrays.stream(SystemPreset.values()).map(SystemPreset::id).toList();
    static final List<String> NETWORKS = Arrays.stream(NetworkPreset.values()).map(NetworkPreset::id).toList();
    static final List<String> TOPOLOGY_FILES = List.of("../topologies/hgx-h100.yaml", "../topologies/hgx-h100-nics.yaml",
            "../topologies/nvlink-pairs-4gpu.yaml", "../topologies/pcie-2080ti-2x.yaml");
    static final List<String> IMPORTABLE = List.of("../topologies/hgx-h100-4nic.topo-m.txt", "../topologies/seeds-4gpu.topo-m.txt",
            "../sim-topologies/src/test/resources/topology/xml/hgx-h100-dump.xml",
            "../sim-topologies/src/test/resources/topology/xml/pcie-a100-bridged-pairs.xml", "src/test/resources/saved-files/nic-under-cpu.xml",
            "../topologies/mi300x-8x.rocm-smi.txt");
    static final List<String> MODELS = Stream.concat(ModelConfig.CATALOGUE.stream(), Stream.of("deepseek-r1", "llama-3.1-70b",
            "meta-llama/Llama-3.1-70B-Instruct", "nvidia/DeepSeek-R1-FP4", "src/test/resources/saved-files/llama-config-with-bom.json")).toList();
    /** Models small enough for serve and compare's searches to stay within seconds. */
    static final List<String> SMALL_MODELS = List.of("llama-3-8b", "llama-3.1-8b", "meta-llama/Meta-Llama-3-8B");
    static final List<String> ENGINES = List.of("vllm", "vllm-v0", "sglang", "trtllm", "trtllm-tensorrt", "lmdeploy");
    static final List<String> FORMATS = List.of("table", "csv", "json", "markdown");

    @TempDir
    static Path shared;
    /** Connections as --links names them (A:B), for --degrade, --link-down and --outage. */
    static List<String> connections = new ArrayList<>();
    /** The calibration set's rows (header first) with sizes up to 64 MiB, for validate --calibration and calibrate. */
    static List<String> calibrationRows = new ArrayList<>();
    /** Rows of the serving calibration quick to simulate (Llama-3.1-70B on H100 at concurrency up to 8, 1,024 tokens in) and B300 rows (skipped). */
    static List<String> servingRows = new ArrayList<>();

    /** Where a case stands: its random stream, its own folder, the options chosen so far. */
    static final class G {
        final SplittableRandom r;
        final Path dir;
        final String command;
        /** The GPUs the run will use, as far as the options chosen tell, to bound sizes. */
        int gpus = 8;
        /** The system flags chosen, to name the connections of that fabric (--degrade, --link-down, --outage). */
        List<String> fabric = List.of();

        G(SplittableRandom r, Path dir, String command) {
            this.r = r;
            this.dir = dir;
            this.command = command;
        }

        boolean chance(double p) {
            return r.nextDouble() < p;
        }

        int between(int lo, int hi) {
            return r.nextInt(lo, hi + 1);
        }

        <T> T pick(List<T> from) {
            return from.get(r.nextInt(from.size()));
        }

        String pick(String... from) {
            return from[r.nextInt(from.length)];
        }

        double logUniform(double lo, double hi) {
            return Math.exp(Math.log(lo) + r.nextDouble() * (Math.log(hi) - Math.log(lo)));
        }

        String number(double x) {
            return String.format(Locale.ROOT, "%.4g", x).replaceFirst("(\\.\\d*?)0+($|e)", "$1$2").replaceFirst("\\.($|e)", "$1");
        }

        /** A what-if factor, 0.001 to 1000. */
        String factor() {
            return number(Math.min(1000, Math.max(0.001, logUniform(0.001, 1000))));
        }

        /** A power of two up to max, or any number up to max now and then. */
        int count(int max) {
            return chance(0.8) ? 1 << r.nextInt(31 - Integer.numberOfLeadingZeros(max) + 1) : between(1, max);
        }

        /** A size of lo..hi bytes, log-uniform, written with a unit that holds it exactly. */
        String size(long lo, long hi) {
            long b = Math.max(lo, Math.min(hi, Math.round(logUniform(Math.max(1, lo), hi))));
            if (chance(0.5)) {
                b = Long.highestOneBit(b) >= lo ? Long.highestOneBit(b) : b;
            }
            if (b % (1L << 30) == 0 && chance(0.7)) {
                return b / (1L << 30) + pick("G", "GiB");
            } else if (b % (1L << 20) == 0 && chance(0.7)) {
                return b / (1L << 20) + pick("M", "MiB");
            } else if (b % (1L << 10) == 0 && chance(0.7)) {
                return b / (1L << 10) + pick("K", "KiB");
            } else if (b % 1000 == 0 && chance(0.5)) {
                return b / 1000 + "KB";
            }
            return b + (chance(0.5) ? "" : "B");
        }

        /** A rate of 1MB/s to 1PB/s, with a unit of bytes or bits. */
        String rate() {
            double bytesPerSecond = logUniform(1.01e6, 0.99e15);
            record Unit(String name, double bytes) {}
            List<Unit> units = List.of(new Unit("MB/s", 1e6), new Unit("GB/s", 1e9), new Unit("TB/s", 1e12), new Unit("Gb/s", 1e9 / 8),
                    new Unit("Mb/s", 1e6 / 8), new Unit("Tb/s", 1e12 / 8), new Unit("GiB/s", 1L << 30), new Unit("KB/s", 1e3));
            List<Unit> fit = units.stream().filter(u -> bytesPerSecond / u.bytes >= 1 && bytesPerSecond / u.bytes < 1e6).toList();
            Unit u = pick(fit);
            return number(bytesPerSecond / u.bytes) + u.name;
        }

        /** A time of lo..hi seconds with a unit. */
        String time(double lo, double hi) {
            double s = logUniform(lo, hi);
            return s >= 1 ? number(s) + "s" : s >= 1e-3 ? number(s * 1e3) + "ms" : s >= 1e-6 ? number(s * 1e6) + "us" : number(s * 1e9) + "ns";
        }

        String tokens(int lo, int hi) {
            int n = (int) Math.round(logUniform(lo, hi));
            if (chance(0.5)) {
                n = Integer.highestOneBit(n) >= lo ? Integer.highestOneBit(n) : n;
            }
            return n % 1024 == 0 && chance(0.5) ? n / 1024 + pick("k", "K") : Integer.toString(n);
        }

        String file(String name) {
            return dir.resolve(name).toString();
        }
    }

    /** One option chosen: its long name, and its value (null for a switch). */
    record Opt(String name, String value) {}

    /** A command line under construction: the command's words and positionals, then its options. */
    static final class Line {
        final List<String> words = new ArrayList<>();
        final List<String> positionals = new ArrayList<>();
        final List<Opt> opts = new ArrayList<>();

        boolean has(String name) {
            return opts.stream().anyMatch(o -> o.name().equals(name));
        }

        void add(String name, String value) {
            opts.add(new Opt(name, value));
        }

        String[] args() {
            List<String> a = new ArrayList<>(words);
            a.addAll(positionals);
            for (Opt o : opts) {
                a.add(o.name());
                if (o.value() != null) {
                    a.add(o.value());
                }
            }
            return a.toArray(String[]::new);
        }
    }

    /** A command's generator: the flags it gives values to (checked against the command's), and how many cases. */
    interface Generator {
        int cases();

        Set<String> flags();

        /** Builds one command line; may run other commands first (through {@link #setUp}) to make its input files. */
        Line generate(G g);
    }

    // ---------------------------------------------------------------------------------------------
    // Values of the flags several commands share

    static final Map<String, Function<G, String>> COMMON = new LinkedHashMap<>();

    static {
        COMMON.put("--system", g -> g.pick(SYSTEMS));
        COMMON.put("--network", g -> g.pick(NETWORKS));
        COMMON.put("--nodes", g -> Integer.toString(g.between(1, 4)));
        COMMON.put("--gpus-per-node", g -> Integer.toString(g.count(8)));
        COMMON.put("--topology", g -> g.pick(TOPOLOGY_FILES));
        COMMON.put("--gpus", g -> Integer.toString(g.between(1, 16)));
        COMMON.put("--link-bw", G::rate);
        COMMON.put("--link-latency", g -> g.time(1e-9, 1e-3));
        COMMON.put("--nic-bw", G::rate);
        COMMON.put("--nics-per-gpu", g -> Integer.toString(g.between(1, 4)));
        COMMON.put("--oversubscription", g -> {
            int b = g.between(1, 4);
            return (g.chance(0.9) ? b * g.between(1, 4) + g.between(0, 1) : g.between(1, 8)) + ":" + b;
        });
        COMMON.put("--spines", g -> Integer.toString(g.between(1, 8)));
        COMMON.put("--gdr", g -> g.pick("on", "off"));
        COMMON.put("--gdr-flush", g -> g.pick("on", "off"));
        COMMON.put("--scale", EveryCommandPropertyTest::classFactors);
        COMMON.put("--scale-latency", EveryCommandPropertyTest::classFactors);
        COMMON.put("--degrade", g -> pickConnections(g, 2).stream().map(c -> c + "=" + g.factor()).collect(Collectors.joining(",")));
        COMMON.put("--overrides", EveryCommandPropertyTest::overridesFile);
        COMMON.put("--link-down", g -> String.join(",", pickConnections(g, 2)));
        COMMON.put("--replications", g -> Integer.toString(g.between(1, 3)));
        COMMON.put("--seed", g -> Long.toString(g.r.nextLong(-1_000_000L, Long.MAX_VALUE)));
        COMMON.put("--launch-jitter", g -> g.number(g.logUniform(0.001, 2)));
        COMMON.put("--step-jitter", g -> g.number(g.logUniform(0.001, 2)));
        COMMON.put("--straggler", g -> g.number(g.logUniform(1, 20)) + (g.chance(0.5) ? "@" + g.between(0, 15) : ""));
        COMMON.put("--outage", g -> (g.chance(0.3) ? "random-nic" : connection(g)) + "@" + g.time(1e-7, 1e-3) + "+" + g.time(1e-7, 1e-3));
        COMMON.put("--format", g -> g.pick(FORMATS));
        COMMON.put("--output", g -> g.file("out." + g.pick("txt", "csv", "json", "md")));
        COMMON.put("--report", g -> g.file("report.html"));
        COMMON.put("--trace", g -> g.file("trace.json"));
        COMMON.put("--model", g -> g.pick(MODELS));
        COMMON.put("--dtype", g -> g.pick("bf16", "fp8", "fp4"));
        COMMON.put("--kv-dtype", g -> g.pick("bf16", "fp8", "auto"));
        COMMON.put("--engine", g -> g.pick(ENGINES));
        COMMON.put("--overlap-scheduler", g -> g.pick("auto", "on", "off"));
        COMMON.put("--spec", g -> g.pick("none", "mtp:" + g.between(1, 4), "eagle:" + g.between(1, 4)));
        COMMON.put("--accept", g -> g.number(1 + g.r.nextDouble() * 4));
        COMMON.put("--all2all", g -> g.pick("auto", "allgather", "alltoall", "deepep"));
        COMMON.put("--expert-skew", g -> g.pick("0", "0.5", "1", g.number(g.r.nextDouble() * 2)));
        COMMON.put("--eplb", g -> g.pick("off", "0", "16", "32", Integer.toString(g.between(0, 64))));
        COMMON.put("--request-overhead", g -> g.chance(0.2) ? "0" : g.number(g.r.nextDouble() * 100));
        COMMON.put("--tp", g -> Integer.toString(g.count(16)));
        COMMON.put("--pp", g -> Integer.toString(g.count(4)));
        COMMON.put("--ep", g -> Integer.toString(g.count(64)));
        COMMON.put("--moe-ep", g -> Integer.toString(g.count(64)));
        COMMON.put("--moe-tp", g -> Integer.toString(g.count(16)));
        COMMON.put("--dp", g -> Integer.toString(g.count(16)));
        COMMON.put("--batch", g -> Integer.toString((int) Math.round(g.logUniform(1, 512))));
        COMMON.put("--context", g -> g.tokens(128, 131072));
        COMMON.put("--itl-slo", g -> g.time(1e-3, 1));
        COMMON.put("--ttft-slo", g -> g.time(0.01, 30));
        COMMON.put("--threads", g -> "1");
        COMMON.put("--algo", g -> algoList(g));
        COMMON.put("--proto", g -> protoList(g));
        COMMON.put("--channels", g -> Integer.toString(g.count(32)));
        COMMON.put("--ngpus", g -> Integer.toString(g.count(8)));
        COMMON.put("--datatype", g -> g.pick("int8", "uint8", "int32", "uint32", "int64", "uint64", "half", "float", "double", "bfloat16",
                "f8e4m3", "f8e5m2"));
        COMMON.put("--op", g -> g.pick(OPS));
    }

    static String classFactors(G g) {
        List<String> classes = new ArrayList<>(List.of("nvlink", "pcie", "network"));
        int n = g.between(1, 3);
        List<String> parts = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            parts.add(classes.remove(g.r.nextInt(classes.size())) + "=" + g.factor());
        }
        return String.join(",", parts);
    }

    static List<String> pickConnections(G g, int max) {
        int n = g.between(1, max);
        List<String> picked = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            picked.add(connection(g));
        }
        return picked;
    }

    /** Connections of each fabric a case chose, as --links names them, found once. */
    static final Map<List<String>, List<String>> CONNECTIONS_OF = new LinkedHashMap<>();

    /** A connection of the case's fabric, mostly; of another one now and then. */
    static String connection(G g) {
        List<String> own = g.fabric.isEmpty() || g.chance(0.1) ? connections : CONNECTIONS_OF.computeIfAbsent(g.fabric, f -> {
            List<String> args = new ArrayList<>(List.of("bench", "alltoall", "--links", "-b", "1M", "-e", "1M"));
            args.addAll(f);
            List<String> names = connectionsOf(execute(args.toArray(String[]::new)));
            return names.isEmpty() ? connections : names;
        });
        return g.pick(own);
    }

    static List<String> connectionsOf(Result links) {
        Set<String> names = new TreeSet<>();
        if (links.code() == 0) {
            for (String row : links.out().split("\n")) {
                String[] cells = row.trim().split("\\s+");
                if (!row.startsWith("#") && cells.length > 2) {
                    names.add(cells[0] + ":" + cells[1]);
                }
            }
        }
        return new ArrayList<>(names);
    }

    static String overridesFile(G g) {
        Path file = g.dir.resolve("overrides-" + g.r.nextInt(1000) + ".yaml");
        String text = "version: 1\n" + (g.chance(0.8) ? "scale: \"" + classFactors(g) + "\"\n" : "")
                + (g.chance(0.6) ? "scale-latency: \"" + classFactors(g) + "\"\n" : "");
        write(file, text);
        return file.toString();
    }

    static String algoList(G g) {
        List<String> algos = List.of("ring", "tree", "nvls", "nvlstree", "collnetdirect", "collnetchain", "pat");
        return switch (g.between(0, 3)) {
            case 0 -> "auto";
            case 1 -> g.pick(algos);
            case 2 -> g.pick(algos) + "," + g.pick(algos);
            default -> "^" + g.pick(algos);
        };
    }

    static String protoList(G g) {
        List<String> protos = List.of("ll", "ll128", "simple");
        return switch (g.between(0, 3)) {
            case 0 -> "auto";
            case 1 -> g.pick(protos);
            case 2 -> g.pick(protos) + "," + g.pick(protos);
            default -> "^" + g.pick(protos);
        };
    }

    /** Adds each of the flags with probability p, its value from the command's own values or the common ones. */
    static void some(G g, Line line, double p, Map<String, Function<G, String>> own, Set<String> switches, String... flags) {
        for (String flag : flags) {
            if (!g.chance(p) || line.has(flag)) {
                continue;
            }
            if (switches.contains(flag)) {
                line.add(flag, null);
                continue;
            }
            Function<G, String> value = own.containsKey(flag) ? own.get(flag) : COMMON.get(flag);
            if (value == null) {
                throw new AssertionError("no value for " + flag);
            }
            String v = value.apply(g);
            if (v != null) { // a value function may decline, leaving the flag out
                line.add(flag, v);
            }
        }
    }

    static final String[] WHAT_IFS = {"--nic-bw", "--nics-per-gpu", "--oversubscription", "--spines", "--gdr", "--gdr-flush", "--scale",
        "--scale-latency", "--degrade", "--overrides", "--link-down"};
    static final String[] STOCHASTIC = {"--replications", "--seed", "--launch-jitter", "--step-jitter", "--straggler", "--outage"};

    /** How a case names its fabric: a preset, flat-switch, or a topology file; what-if knobs differ between them. */
    enum Kind { PRESET, FLAT, TOPOLOGY }

    /**
     * The system flags of bench, calibrate and topo show (SystemOptions), mostly as they go together (a PCIe box is one
     * node, a topology file takes no --system), now and then not; the GPUs they give are noted to bound the sizes.
     */
    static Kind fabric(G g, Line line) {
        int perNode;
        Kind kind;
        double choice = g.r.nextDouble();
        if (choice < 0.7) {
            kind = Kind.PRESET;
            String system = g.pick(SYSTEMS);
            line.add("--system", system);
            perNode = SystemPreset.byName(system).gpusPerNode();
            if (g.chance(0.4)) {
                perNode = Math.min(perNode, g.count(8));
                line.add("--gpus-per-node", Integer.toString(perNode));
            }
            if (g.chance(0.5) && (!system.startsWith("pcie-") || g.chance(0.1))) {
                int nodes = g.between(1, perNode > 16 ? 2 : 4);
                line.add("--nodes", Integer.toString(nodes));
                perNode *= nodes;
            }
            some(g, line, 0.3, Map.of(), Set.of(), "--network");
        } else if (choice < 0.85) {
            kind = Kind.FLAT;
            line.add("--system", "flat-switch");
            perNode = g.between(1, 16);
            line.add("--gpus", Integer.toString(perNode));
            some(g, line, 0.5, Map.of(), Set.of(), "--link-bw", "--link-latency");
        } else {
            kind = Kind.TOPOLOGY;
            String topology = g.pick(TOPOLOGY_FILES);
            line.add("--topology", topology);
            perNode = topology.contains("4gpu") ? 4 : topology.contains("2x") ? 2 : 8;
            if (g.chance(0.5) && (topology.contains("nics") || g.chance(0.1))) {
                int nodes = g.between(1, 4);
                line.add("--nodes", Integer.toString(nodes));
                perNode *= nodes;
                some(g, line, 0.3, Map.of(), Set.of(), "--network");
            }
        }
        // now and then a flag that belongs to another choice (refused, or ignored)
        some(g, line, 0.03, Map.of(), Set.of(), "--gpus", "--link-bw", "--link-latency", "--topology", "--gpus-per-node", "--nodes", "--system");
        g.gpus = perNode;
        g.fabric = line.opts.stream().flatMap(o -> Stream.of(o.name(), o.value())).toList();
        return kind;
    }

    /** The what-if knobs a fabric of this kind takes (all of them on a preset; the others take --degrade and --link-down), now and then another. */
    static void whatIfs(G g, Line line, Kind kind, double p) {
        if (kind == Kind.PRESET || g.chance(0.1)) {
            some(g, line, p, Map.of(), Set.of(), WHAT_IFS);
        } else if (kind == Kind.TOPOLOGY && line.has("--nodes")) {
            some(g, line, p, Map.of("--scale", gg -> "network=" + gg.factor(), "--scale-latency", gg -> "network=" + gg.factor()), Set.of(),
                    "--nic-bw", "--nics-per-gpu", "--oversubscription", "--spines", "--scale", "--scale-latency", "--degrade", "--link-down");
        } else {
            some(g, line, p, Map.of(), Set.of(), "--degrade", "--link-down");
        }
    }

    /** The stochastic flags; the ones that vary between replications mostly with --replications. */
    static void stochastic(G g, Line line, double p) {
        some(g, line, p, Map.of(), Set.of(), STOCHASTIC);
        if (!line.has("--replications") && Stream.of("--launch-jitter", "--step-jitter", "--straggler", "--outage").anyMatch(line::has)
                && g.chance(0.9)) {
            line.add("--replications", Integer.toString(g.between(2, 3)));
        }
    }

    /** The largest size worth simulating on this many GPUs: 1 GiB on a node, less as the GPUs grow. */
    static long sizeCap(int gpus) {
        return gpus <= 8 ? 1L << 30 : gpus <= 16 ? 256L << 20 : gpus <= 32 ? 64L << 20 : gpus <= 72 ? 4L << 20 : 1L << 20;
    }

    // ---------------------------------------------------------------------------------------------
    // The generators, one per command

    static final Map<String, Generator> GENERATORS = new LinkedHashMap<>();

    static Generator generator(int cases, Set<String> flags, Function<G, Line> generate) {
        return new Generator() {
            @Override
            public int cases() {
                return cases;
            }

            @Override
            public Set<String> flags() {
                return flags;
            }

            @Override
            public Line generate(G g) {
                return generate.apply(g);
            }
        };
    }

    static Set<String> flags(String[]... groups) {
        Set<String> all = new TreeSet<>();
        for (String[] group : groups) {
            all.addAll(List.of(group));
        }
        return all;
    }

    static final String[] SYSTEM_FLAGS = {"--system", "--gpus", "--link-bw", "--link-latency", "--gpus-per-node", "--topology", "--nodes", "--network"};
    static final String[] OUTPUT = {"--format", "--output", "--report"};

    static Line line(String... words) {
        Line l = new Line();
        l.words.addAll(List.of(words));
        return l;
    }

    static final String[] BENCH_OWN = {"--minbytes", "--maxbytes", "--stepfactor", "--stepbytes", "--ngpus", "--datatype", "--op", "--root",
        "--algo", "--proto", "--channels", "--nvls", "--collnet", "--nccl", "--links", "--explain-choice", "--force", "--measured", "--trace"};

    static Line bench(G g) {
        Line l = line("bench");
        l.positionals.add(g.pick(OPS));
        Kind kind = fabric(g, l);
        long cap = sizeCap(g.gpus);
        // sizes: a sweep of a few sizes at most
        String b = g.size(0, cap);
        String e = g.size(0, cap);
        if (g.chance(0.9) && DataSize.parse(b).bytes() > DataSize.parse(e).bytes()) {
            String t = b; // -e below -b is refused; mostly give them in order
            b = e;
            e = t;
        }
        if (g.chance(0.7)) {
            l.add("--minbytes", b);
        }
        if (g.chance(0.7)) {
            l.add("--maxbytes", e);
        }
        if (g.chance(0.6)) {
            l.add("--stepfactor", Integer.toString(g.between(2, 16)));
        } else {
            // -f 1 (the default) adds --stepbytes a step: keep the steps few
            l.add("--stepfactor", "1");
            l.add("--stepbytes", g.size(cap / 8, cap));
        }
        // the default 32M when -b or -e is left out: beyond the cap on many GPUs
        if (cap < (32L << 20)) {
            if (!l.has("--minbytes")) {
                l.add("--minbytes", g.size(0, cap));
            }
            if (!l.has("--maxbytes")) {
                l.add("--maxbytes", g.size(0, cap));
            }
        }
        Map<String, Function<G, String>> own = Map.of(
                "--op", gg -> gg.pick("sum", "prod", "min", "max", "avg"),
                "--root", gg -> Integer.toString(gg.between(0, Math.max(0, gg.gpus))),
                "--nvls", gg -> gg.pick("on", "off"),
                "--collnet", gg -> gg.pick("on", "off"),
                "--nccl", gg -> gg.pick("2.22", "2.23.4", "2.26", "2.27.3", "2.29", "2.30", "2.31"),
                "--measured", gg -> gg.pick(List.of("src/test/resources/logs/all_reduce_perf.txt", shared.resolve("ar-1n.txt").toString(),
                        shared.resolve("ag-2n.txt").toString(), shared.resolve("calibration.csv").toString())));
        some(g, l, 0.25, own, Set.of(), "--ngpus", "--datatype", "--op", "--root", "--algo", "--proto", "--channels", "--nvls", "--collnet",
                "--nccl", "--measured", "--trace");
        some(g, l, 0.08, own, Set.of("--links", "--explain-choice", "--force"), "--links", "--explain-choice", "--force");
        whatIfs(g, l, kind, 0.2);
        stochastic(g, l, 0.15);
        some(g, l, 0.3, own, Set.of(), OUTPUT);
        return l;
    }

    static final String[] DECODE_OWN = {"--model", "--dtype", "--tp", "--pp", "--moe-ep", "--moe-tp", "--batch", "--dp", "--context", "--allreduce", "--overlap",
        "--cuda-graphs", "--engine", "--kv-dtype", "--overlap-scheduler", "--spec", "--accept", "--all2all", "--expert-skew", "--eplb", "--fabrics", "--trace", "--system", "--topology",
        "--network", "--nodes", "--gpus-per-node"};

    static final Map<String, Function<G, String>> DECODE_VALUES = Map.of(
            "--allreduce", g -> g.pick("auto", "nccl", "oneshot", "twoshot", "nvls"),
            "--overlap", g -> g.pick("none", "two-batch", "fused"),
            "--cuda-graphs", g -> g.pick("auto", "on", "off"),
            "--fabrics", g -> {
                int n = g.between(1, 3);
                List<String> parts = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    parts.add(g.pick(SYSTEMS) + (g.chance(0.3) ? "@" + g.count(8) : ""));
                }
                return String.join(",", parts);
            },
            "--system", g -> g.pick(SYSTEMS),
            "--trace", g -> g.file("trace.json"),
            "--nodes", g -> Integer.toString(g.between(1, 4)));

    /** A layout large enough to hold the model, mostly: TP 8 for a model above 8B, and FP8 or PP for the largest; now and then none. */
    static void layout(G g, Line l, String model) {
        boolean small = model.contains("8b") || model.contains("8B") || model.contains("config");
        if (!small && g.chance(0.8)) {
            l.add("--tp", "8");
            if ((model.contains("405") || model.contains("eep") || model.contains("qwen") || model.contains("22b")) && g.chance(0.8)) {
                if (g.chance(0.5)) {
                    l.add("--pp", g.pick("2", "4"));
                } else {
                    l.add("--dtype", g.pick("fp8", "fp4"));
                }
            }
        }
    }

    static Line decode(G g) {
        Line l = line("decode");
        String model = g.pick(MODELS);
        l.add("--model", model);
        layout(g, l, model);
        some(g, l, 0.3, DECODE_VALUES, Set.of(), "--dtype", "--tp", "--pp", "--moe-ep", "--moe-tp", "--batch", "--dp", "--context", "--allreduce", "--overlap",
                "--cuda-graphs", "--engine", "--kv-dtype", "--overlap-scheduler", "--spec", "--accept", "--all2all", "--expert-skew", "--eplb", "--system", "--network", "--nodes",
                "--gpus-per-node");
        some(g, l, 0.08, DECODE_VALUES, Set.of(), "--topology", "--fabrics", "--trace");
        if (l.has("--moe-ep") && g.chance(0.7)) {
            // expert parallelism as the layouts have it, over every attention rank, or with each expert split over tp / ep
            int ranks = valueOf(l, "--tp", 1) * valueOf(l, "--dp", 1);
            l.opts.removeIf(o -> o.name().equals("--moe-ep") || o.name().equals("--moe-tp"));
            int moeTp = ranks % 2 == 0 && g.chance(0.3) ? 2 : 1;
            l.add("--moe-ep", Integer.toString(ranks / moeTp));
            if (g.chance(0.5)) {
                l.add("--moe-tp", Integer.toString(moeTp));
            }
        }
        systemFabric(g, l);
        some(g, l, 0.15, DECODE_VALUES, Set.of(), WHAT_IFS);
        stochastic(g, l, 0.1);
        some(g, l, 0.3, DECODE_VALUES, Set.of(), OUTPUT);
        return l;
    }

    static int valueOf(Line l, String flag, int otherwise) {
        return l.opts.stream().filter(o -> o.name().equals(flag)).map(o -> Integer.parseInt(o.value())).findFirst().orElse(otherwise);
    }

    /** The fabric a decode-like command runs on, as bench names it: its system, on two nodes where it has a network. */
    static void systemFabric(G g, Line l) {
        String system = l.opts.stream().filter(o -> o.name().equals("--system")).map(Opt::value).findFirst().orElse("hgx-h100");
        g.fabric = system.startsWith("pcie-") ? List.of("--system", system) : List.of("--system", system, "--nodes", "2");
    }

    static Line prefill(G g) {
        Line l = line("prefill");
        String model = g.pick(MODELS);
        l.add("--model", model);
        layout(g, l, model);
        l.add("--isl", g.tokens(1, 32768));
        Map<String, Function<G, String>> own = Map.of(
                "--batch", gg -> Integer.toString((int) Math.round(gg.logUniform(1, 64))),
                "--chunk", gg -> gg.chance(0.2) ? "0" : gg.tokens(16, 32768),
                "--system", gg -> gg.pick(SYSTEMS),
                "--trace", gg -> gg.file("trace.json"));
        some(g, l, 0.3, own, Set.of(), "--batch", "--chunk", "--dtype", "--engine", "--moe-ep", "--moe-tp", "--kv-dtype", "--network", "--overlap-scheduler",
                "--pp", "--tp", "--system", "--trace", "--request-overhead", "--spec", "--accept", "--all2all", "--expert-skew", "--eplb");
        systemFabric(g, l);
        return withWhatIfsAndOutputs(g, l, own);
    }

    /** The what-if knobs, then the output flags, each drawn as the command's own values say: how prefill's and serve's lines end. */
    static Line withWhatIfsAndOutputs(G g, Line l, Map<String, Function<G, String>> own) {
        some(g, l, 0.15, own, Set.of(), WHAT_IFS);
        some(g, l, 0.3, own, Set.of(), OUTPUT);
        return l;
    }

    /** Deployments of a small model, as serve prints them: aggregated, DP, chunked, disaggregated, and some too large for one node. */
    static final List<String> SMALL_DEPLOYMENTS = List.of("tp1 b32", "tp2 b64", "tp1 dp2 b16", "tp8 b256", "tp2 b32, chunks of 512",
            "1P tp1 + 1D tp1 b32", "2P tp1 + 1D tp2 b64", "tp1 pp2 b8", "tp16 b64");
    /** The flags serve takes only with --deployment: the load run's workload and engine knobs. */
    static final String[] SERVE_LOAD_FLAGS = {"--deployment", "--concurrency", "--burstiness", "--requests", "--warmup", "--seed",
        "--random-range-ratio", "--trace", "--prefix-share", "--max-num-seqs", "--max-num-batched-tokens", "--chunked-prefill-size",
        "--schedule-policy", "--prefix-caching", "--gpu-memory-utilization", "--block-size", "--cuda-graph-padding", "--mixed-chunk", "--router",
        "--goodput", "--percentiles", "--perfetto"};

    /** A plan (the M/D/1 search) four times in ten, else one deployment under load with a few dozen requests. */
    static Line serve(G g) {
        Line l = line("serve");
        l.add("--model", g.pick(SMALL_MODELS));
        boolean load = g.chance(0.6);
        int systems = load || g.chance(0.8) ? 1 : 2;
        for (int i = 0; i < systems; i++) {
            l.add("--system", g.pick(SYSTEMS));
        }
        l.add("--threads", "1");
        Map<String, Function<G, String>> own = new LinkedHashMap<>();
        own.put("--rate", gg -> gg.number(gg.logUniform(0.01, 1000)));
        own.put("--kv-transfer", gg -> gg.pick("after-prefill", "layer-by-layer"));
        if (!load) {
            // now and then a percentile target, which decides on simulated load runs
            own.put("--ttft-slo", gg -> (gg.chance(0.3) ? "p" + gg.pick("50", "90", "99", "99.9") + ":" : "") + gg.time(0.01, 30));
            own.put("--itl-slo", gg -> (gg.chance(0.3) ? "p" + gg.pick("50", "90", "99") + ":" : "") + gg.time(1e-3, 1));
            l.add("--isl", g.tokens(128, 16384));
            l.add("--osl", g.tokens(16, 4096));
            l.add("--gpus", Integer.toString(g.pick(List.of(8, 16, 72))));
            some(g, l, 0.3, own, Set.of(), "--dtype", "--engine", "--itl-slo", "--ttft-slo", "--kv-dtype", "--kv-transfer", "--network",
                    "--overlap-scheduler", "--rate", "--request-overhead", "--spec", "--accept", "--all2all", "--expert-skew", "--eplb");
            return withWhatIfsAndOutputs(g, l, own);
        }
        l.add("--deployment", g.pick(SMALL_DEPLOYMENTS));
        boolean trace = g.chance(0.15);
        boolean fixed = g.chance(0.7);
        if (trace) {
            l.add("--trace", g.pick("src/test/resources/traces/azure-conv-40.csv", "src/test/resources/traces/mooncake-40.jsonl"));
        } else {
            l.add("--isl", fixed ? g.tokens(16, 8192) : g.pick("uniform:100-2000", "normal:1000,300", "lognormal:800,400"));
            l.add("--osl", fixed ? g.tokens(1, 1024) : g.pick("uniform:10-300", "normal:200,50"));
        }
        boolean closed = g.chance(0.5);
        if (closed) {
            l.add("--concurrency", Integer.toString(g.count(64)));
        } else if (!trace) {
            l.add("--rate", g.number(g.logUniform(0.1, 1000)));
        }
        l.add("--requests", Integer.toString(g.between(1, trace ? 40 : 60)));
        own.put("--warmup", gg -> Integer.toString(gg.between(0, 10)));
        // the knobs that go with another choice are drawn only with it, mostly: a refusal now and then is fine, a refusal always tests nothing
        own.put("--burstiness", gg -> closed && gg.chance(0.8) ? null : gg.number(gg.logUniform(0.05, 20)));
        own.put("--random-range-ratio", gg -> !fixed && gg.chance(0.8) ? null : gg.number(gg.r.nextDouble() * 0.99));
        own.put("--prefix-share", gg -> gg.number(gg.r.nextDouble() * 0.99));
        own.put("--max-num-seqs", gg -> Integer.toString(gg.count(512)));
        own.put("--max-num-batched-tokens", gg -> gg.tokens(16, 32768));
        own.put("--chunked-prefill-size", gg -> gg.chance(0.2) ? "0" : gg.tokens(16, 16384));
        own.put("--schedule-policy", gg -> gg.pick("fcfs", "lpm"));
        own.put("--prefix-caching", gg -> gg.pick("on", "off"));
        own.put("--cuda-graph-padding", gg -> gg.pick("on", "off"));
        own.put("--mixed-chunk", gg -> gg.pick("on", "off"));
        own.put("--gpu-memory-utilization", gg -> gg.number(0.3 + gg.r.nextDouble() * 0.7));
        own.put("--block-size", gg -> Integer.toString(gg.count(256)));
        own.put("--router", gg -> gg.pick("round-robin", "least-loaded", "kv-aware"));
        own.put("--goodput", gg -> gg.pick("ttft:2000 tpot:50", "ttft:500", "e2el:10000,tpot:30"));
        own.put("--percentiles", gg -> gg.pick("50,90,99", "99", "25,75", "99.9"));
        own.put("--perfetto", gg -> gg.file("run.json"));
        some(g, l, 0.25, own, Set.of(), "--dtype", "--engine", "--kv-dtype", "--kv-transfer", "--network", "--overlap-scheduler", "--warmup",
                "--seed", "--burstiness", "--random-range-ratio", "--prefix-share", "--max-num-seqs", "--max-num-batched-tokens",
                "--chunked-prefill-size", "--schedule-policy", "--prefix-caching", "--gpu-memory-utilization", "--block-size",
                "--cuda-graph-padding", "--mixed-chunk", "--router", "--goodput", "--percentiles", "--perfetto", "--request-overhead", "--spec",
                "--accept", "--all2all", "--expert-skew", "--eplb");
        return withWhatIfsAndOutputs(g, l, own);
    }

    static Line compare(G g) {
        Line l = line("compare");
        l.add("--model", g.pick(SMALL_MODELS));
        int systems = g.between(g.chance(0.2) ? 0 : 1, 2);
        for (int i = 0; i < systems; i++) {
            l.add("--system", g.pick(SYSTEMS));
        }
        if (systems < 2 || g.chance(0.2)) {
            l.add("--topology", g.pick(TOPOLOGY_FILES));
        }
        l.add("--gpus", Integer.toString(g.pick(List.of(8, 16, 32, 72))));
        l.add("--threads", "1");
        some(g, l, 0.3, Map.of("--nodes", gg -> Integer.toString(gg.between(1, 2))), Set.of(), "--context", "--dtype", "--engine", "--itl-slo",
                "--kv-dtype", "--network", "--overlap-scheduler", "--spec", "--accept", "--all2all", "--expert-skew", "--eplb", "--gpus-per-node", "--nodes");
        systemFabric(g, l);
        whatIfs(g, l, l.has("--topology") ? Kind.TOPOLOGY : Kind.PRESET, 0.15);
        some(g, l, 0.3, Map.of(), Set.of(), OUTPUT);
        return l;
    }

    /** Runs a command a case needs first (making its input files): it must succeed. */
    static void setUp(String... args) {
        Result r = execute(args);
        assertEquals(0, r.code, "setting up with " + String.join(" ", args) + ": " + r.err);
    }

    /** Runs a command a case may need first: true when it succeeds, false when it refuses as it may, an error when it ends otherwise. */
    static boolean trySetUp(String... args) {
        Result r = execute(args);
        String problem = problem(r);
        if (problem != null) {
            throw new AssertionError("setting up with collsim " + String.join(" ", args) + "\n    -> " + problem);
        }
        return r.code() == 0;
    }

    static Line calibrate(G g) {
        // a log to fit: a bench run written as nccl-tests writes it
        String op = g.pick(OPS);
        int nodes = g.between(1, 2);
        String log = g.file("measured.txt");
        setUp("bench", op, "--nodes", Integer.toString(nodes), "-b", g.size(1, 1 << 20), "-e", g.size(1 << 20, 64 << 20), "-f",
                Integer.toString(g.between(4, 16)), "-O", log);
        Line l = line("calibrate");
        l.positionals.add(log);
        if (g.chance(0.2)) {
            l.positionals.add(g.pick(List.of("src/test/resources/logs/all_reduce_perf.txt", shared.resolve("calibration.csv").toString())));
        }
        if (g.chance(0.7)) {
            l.add("--op", op);
        }
        if (g.chance(0.6)) {
            l.add("--nodes", Integer.toString(nodes));
        }
        Map<String, Function<G, String>> own = Map.of(
                "--class", gg -> gg.pick("nvlink", "pcie", "network"),
                "--overrides-out", gg -> gg.file("fitted.yaml"),
                "--gpus-per-node", gg -> Integer.toString(gg.count(8)),
                "--system", gg -> gg.chance(0.2) ? "flat-switch" : gg.pick(SYSTEMS));
        some(g, l, 0.2, own, Set.of(), "--op", "--ngpus", "--algo", "--class", "--system", "--gpus", "--link-bw", "--link-latency",
                "--gpus-per-node", "--topology", "--nodes", "--network", "--datatype", "--overrides-out");
        some(g, l, 0.3, own, Set.of(), "--format", "--output");
        return l;
    }

    /** A scenario file's options from a command line's (long names, a list for a flag given twice). */
    static String scenario(String name, String command, Line point, String sweepText) {
        StringBuilder y = new StringBuilder("version: 1\nname: " + name + "\ncommand: " + command + "\n");
        if (sweepText != null) {
            y.append(sweepText);
        }
        y.append("options:\n");
        if (!point.positionals.isEmpty()) {
            y.append("  op: ").append(point.positionals.get(0)).append('\n');
        }
        Map<String, List<String>> byName = new LinkedHashMap<>();
        for (Opt o : point.opts) {
            byName.computeIfAbsent(o.name().substring(2), k -> new ArrayList<>()).add(o.value() == null ? "true" : o.value());
        }
        byName.forEach((k, v) -> y.append("  ").append(k).append(": ")
                .append(v.size() == 1 ? quote(v.get(0)) : v.stream().map(EveryCommandPropertyTest::quote).collect(Collectors.joining(", ", "[", "]")))
                .append('\n'));
        return y.toString();
    }

    static String quote(String value) {
        return value.equals("true") ? value : "\"" + value.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    /** A sweep scenario: each point a bench (a size axis) or a decode step; the other axes from the command's own values. */
    static Path sweepScenario(G g, String name) {
        boolean bench = g.chance(0.6);
        Line point;
        StringBuilder axes = new StringBuilder("sweep:\n  command: " + (bench ? "bench" : "decode") + "\n  axes:\n");
        if (bench) {
            point = line("bench");
            point.positionals.add(g.pick(OPS));
            some(g, point, 0.3, Map.of("--system", gg -> gg.pick(SYSTEMS)), Set.of(), "--system", "--nodes", "--gpus-per-node", "--network");
            some(g, point, 0.15, Map.of(), Set.of(), "--algo", "--proto", "--channels");
            some(g, point, 0.1, Map.of(), Set.of(), WHAT_IFS);
            g.gpus = 8 * Integer.parseInt(point.opts.stream().filter(o -> o.name().equals("--nodes")).map(Opt::value).findFirst().orElse("1"));
            if (point.opts.stream().anyMatch(o -> o.value() != null && o.value().contains("nvl72"))) {
                g.gpus *= 9;
            }
            long cap = Math.min(sizeCap(g.gpus), 64L << 20);
            axes.append("    size: [").append(g.size(1, cap)).append(", ").append(g.size(1, cap)).append("]\n");
        } else {
            point = line("decode");
            point.add("--model", g.pick(SMALL_MODELS));
            some(g, point, 0.3, DECODE_VALUES, Set.of(), "--tp", "--batch", "--context", "--allreduce", "--engine", "--system", "--dtype");
            some(g, point, 0.1, DECODE_VALUES, Set.of(), WHAT_IFS);
        }
        // one more axis, from an option chosen above (taken out of the options) or a fresh one
        List<String> candidates = bench ? List.of("--nic-bw", "--oversubscription", "--scale", "--channels", "--proto", "--network")
                : List.of("--batch", "--context", "--tp", "--allreduce", "--scale", "--engine");
        String axis = g.pick(candidates);
        point.opts.removeIf(o -> o.name().equals(axis));
        Map<String, Function<G, String>> values = new LinkedHashMap<>(COMMON);
        values.putAll(DECODE_VALUES);
        int n = g.between(1, 3);
        List<String> vs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            vs.add(quote(values.get(axis).apply(g)));
        }
        axes.append("    ").append(axis.substring(2)).append(": [").append(String.join(", ", vs)).append("]\n");
        Path file = g.dir.resolve(name + ".yaml");
        write(file, scenario(name, "sweep", point, axes.toString()));
        return file;
    }

    static Line sweep(G g) {
        Line l = line("sweep");
        l.positionals.add(sweepScenario(g, "s").toString());
        Map<String, Function<G, String>> own = Map.of(
                "--out", gg -> gg.file("results"),
                "--shard", gg -> {
                    int n = gg.between(1, 4);
                    return gg.between(0, n - 1) + "/" + n;
                },
                "--threads", gg -> Integer.toString(gg.between(1, 2)));
        l.add("--out", own.get("--out").apply(g));
        some(g, l, 0.4, own, Set.of(), "--shard", "--threads", "--report");
        return l;
    }

    static Line merge(G g) {
        // the shards of a sweep; one whose every point is refused (a layout that does not fit) leaves no files
        List<Integer> ran = new ArrayList<>();
        int n = 0;
        String prefix = null;
        for (int attempt = 0; ran.isEmpty(); attempt++) {
            assertTrue(attempt < 10, "ten sweeps in a row refused");
            Path scenario = sweepScenario(g, "m" + attempt);
            n = g.between(1, 3);
            prefix = g.file("shards" + attempt);
            for (int i = 0; i < n; i++) {
                if (trySetUp("sweep", scenario.toString(), "--shard", i + "/" + n, "--out", prefix + ".shard-" + i + "-of-" + n, "--threads", "1")) {
                    ran.add(i);
                }
            }
        }
        String ext = g.pick("csv", "jsonl");
        List<Integer> shards = new ArrayList<>();
        for (int i : ran) {
            if (g.chance(0.85)) {
                shards.add(i);
            }
        }
        if (shards.isEmpty()) {
            shards.add(g.pick(ran));
        }
        Line l = line("merge");
        while (!shards.isEmpty()) {
            int i = shards.remove(g.r.nextInt(shards.size()));
            l.positionals.add(prefix + ".shard-" + i + "-of-" + n + "." + ext);
        }
        l.add("--output", g.file("merged." + ext));
        return l;
    }

    static Line run(G g) {
        Path file = g.dir.resolve("scenario.yaml");
        String command = g.pick("bench", "decode", "explain", "sweep", "bench", "decode", "explain");
        String text;
        if (command.equals("sweep")) {
            // run has no --out: the results go to the working directory under the scenario's name, removed after the test
            String name = RUN_SWEEP_NAME + "-" + g.r.nextInt(1_000_000);
            return runLine(sweepScenario(g, name));
        }
        Line point = switch (command) {
            case "bench" -> {
                Line b = line("bench");
                b.positionals.add(g.pick(OPS));
                some(g, b, 0.3, Map.of("--system", gg -> gg.pick(SYSTEMS)), Set.of(), "--system", "--nodes", "--network", "--algo", "--proto",
                        "--channels", "--format");
                some(g, b, 0.1, Map.of(), Set.of(), WHAT_IFS);
                b.add("--size", g.size(1, b.has("--nodes") || b.has("--system") ? 4L << 20 : 1L << 30));
                yield b;
            }
            case "decode" -> {
                Line d = line("decode");
                d.add("--model", g.pick(MODELS));
                some(g, d, 0.3, DECODE_VALUES, Set.of(), "--tp", "--pp", "--batch", "--context", "--allreduce", "--overlap", "--engine", "--system",
                        "--dtype", "--format");
                yield d;
            }
            default -> explain(g);
        };
        point.opts.removeIf(o -> o.name().equals("--output") || o.name().equals("--report"));
        text = scenario("scenario", command, point, null);
        write(file, text);
        return runLine(file);
    }

    /** The name of the sweeps that run runs, whose results land in the working directory. */
    static final String RUN_SWEEP_NAME = "every-command-property-test";

    @AfterAll
    static void removeRunSweepResults() throws IOException {
        try (Stream<Path> files = Files.list(Path.of("."))) {
            for (Path f : files.filter(f -> f.getFileName().toString().startsWith(RUN_SWEEP_NAME)).toList()) {
                Files.delete(f);
            }
        }
    }

    static Line runLine(Path file) {
        Line l = line("run");
        l.positionals.add(file.toString());
        return l;
    }

    static Line explain(G g) {
        Line l = line("explain");
        l.positionals.add(g.pick(OPS));
        Map<String, Function<G, String>> own = Map.of(
                "--algo", gg -> gg.pick("ring", "tree", "nvls", "nvlstree", "collnetdirect", "collnetchain", "pat", "oneshot", "twoshot"),
                "--ranks", gg -> Integer.toString(gg.between(1, 16)),
                "--nodes", gg -> Integer.toString(gg.between(1, 4)),
                "--size", gg -> gg.size(1, 64L << 20),
                "--system", gg -> gg.pick(SYSTEMS),
                "--proto", gg -> gg.pick("LL", "LL128", "Simple", "auto", "ll", "simple"),
                "--channels", gg -> Integer.toString(gg.between(0, 4)),
                "--nccl", gg -> gg.pick("2.25", "2.27", "2.30"));
        some(g, l, 0.4, own, Set.of(), "--system", "--nodes");
        if (g.chance(0.4)) {
            // ranks as explain spreads them: the same number on each node, up to the node's GPUs; now and then any number
            String system = l.opts.stream().filter(o -> o.name().equals("--system")).map(Opt::value).findFirst().orElse("hgx-h100");
            int nodes = Integer.parseInt(l.opts.stream().filter(o -> o.name().equals("--nodes")).map(Opt::value).findFirst().orElse("1"));
            int perNode = Math.min(16, SystemPreset.byName(system).gpusPerNode());
            l.add("--ranks", Integer.toString(g.chance(0.85) ? nodes * g.between(1, perNode) : g.between(1, 16)));
        }
        some(g, l, 0.4, own, Set.of(), "--algo", "--size", "--proto", "--channels", "--nccl");
        some(g, l, 0.08, own, Set.of(), "--topology");
        some(g, l, 0.3, own, Set.of(), OUTPUT);
        return l;
    }

    static Line topoShow(G g) {
        Line l = line("topo", "show");
        whatIfs(g, l, fabric(g, l), 0.2);
        some(g, l, 0.3, Map.of(), Set.of(), "--format", "--output");
        return l;
    }

    static final Map<String, Function<G, String>> IMPORT_VALUES = Map.of(
            "--gpu", g -> g.pick("a100", "h100", "h200", "b200", "gb200", "gb300", "h100-pcie", "l40s", "rtx4090", "rtx2080ti", "mi300x",
                    "mi355x"),
            "--nvlink-rate", G::rate,
            "--xgmi-rate", G::rate,
            "--pcie-rate", G::rate,
            "--socket-rate", G::rate);

    static Line topoImport(G g) {
        Line l = line("topo", "import");
        l.positionals.add(g.pick(IMPORTABLE));
        some(g, l, 0.3, IMPORT_VALUES, Set.of(), "--gpu", "--nvlink-rate", "--xgmi-rate", "--pcie-rate", "--socket-rate", "--output");
        return l;
    }

    static Line topoValidate(G g) {
        Line l = line("topo", "validate");
        int n = g.between(1, 3);
        for (int i = 0; i < n; i++) {
            if (g.chance(0.5)) {
                l.positionals.add(g.pick(TOPOLOGY_FILES));
            } else {
                // a file topo import wrote
                String file = g.file("imported-" + i + ".yaml");
                List<String> args = new ArrayList<>(List.of("topo", "import", g.pick(IMPORTABLE), "--output", file));
                if (g.chance(0.5)) {
                    args.addAll(List.of("--pcie-rate", g.rate()));
                }
                setUp(args.toArray(String[]::new));
                l.positionals.add(file);
            }
        }
        return l;
    }

    static Line validate(G g) {
        Line l = line("validate");
        if (g.chance(0.15)) {
            l.add("--decode", null);
            some(g, l, 0.4, Map.of(), Set.of("--detail"), "--engine", "--detail", "--format", "--request-overhead");
            return l;
        }
        if (g.chance(0.1)) {
            // the bundled kernel tables (under a second), now and then with a stray flag it refuses
            l.add("--kernels", null);
            some(g, l, 0.3, Map.of(), Set.of("--detail"), "--format", "--output", "--detail", "--report");
            return l;
        }
        if (g.chance(0.15)) {
            // a few quick runs of the serving calibration (or only B300 runs: nothing simulated, refused)
            l.add("--serving", null);
            Path csv = g.dir.resolve("serving.csv");
            StringBuilder rows = new StringBuilder(servingRows.get(0)).append('\n');
            int n = g.between(1, 3);
            for (int i = 0; i < n; i++) {
                rows.append(servingRows.get(g.between(1, servingRows.size() - 1))).append('\n');
            }
            write(csv, rows.toString());
            l.add("--measured", csv.toString());
            some(g, l, 0.4, Map.of("--threads", gg -> Integer.toString(gg.between(1, 2))), Set.of(), "--threads", "--engine", "--format", "--output",
                    "--request-overhead");
            return l;
        }
        // a few rows of the calibration set, not all of it (35 s)
        Path csv = g.dir.resolve("rows.csv");
        StringBuilder rows = new StringBuilder(calibrationRows.get(0)).append('\n');
        int n = g.between(1, 6);
        for (int i = 0; i < n; i++) {
            rows.append(calibrationRows.get(g.between(1, calibrationRows.size() - 1))).append('\n');
        }
        write(csv, rows.toString());
        l.add("--calibration", csv.toString());
        if (g.chance(0.4)) {
            l.positionals.add(g.pick(List.of(shared.resolve("ar-1n.txt").toString(), shared.resolve("ag-2n.txt").toString(),
                    "src/test/resources/logs/all_reduce_perf.txt")));
        }
        Map<String, Function<G, String>> own = Map.of(
                "--system", gg -> gg.pick(SYSTEMS),
                "--nodes", gg -> Integer.toString(gg.between(1, 2)),
                "--measured", gg -> gg.file("unused.csv"));
        some(g, l, 0.25, own, Set.of("--detail"), "--detail", "--algo", "--ngpus", "--gpus-per-node", "--network", "--nodes", "--op", "--system",
                "--engine");
        some(g, l, 0.3, own, Set.of(), "--format", "--output");
        return l;
    }

    static {
        GENERATORS.put("bench", generator(80, flags(SYSTEM_FLAGS, BENCH_OWN, WHAT_IFS, STOCHASTIC, OUTPUT), EveryCommandPropertyTest::bench));
        GENERATORS.put("decode", generator(60, flags(DECODE_OWN, WHAT_IFS, STOCHASTIC, OUTPUT), EveryCommandPropertyTest::decode));
        GENERATORS.put("prefill", generator(40, flags(new String[] {"--model", "--isl", "--batch", "--chunk", "--dtype", "--engine", "--moe-ep", "--moe-tp",
            "--kv-dtype", "--network", "--overlap-scheduler", "--pp", "--tp", "--system", "--trace", "--request-overhead", "--spec", "--accept", "--all2all", "--expert-skew", "--eplb"},
            WHAT_IFS, OUTPUT),
                EveryCommandPropertyTest::prefill));
        GENERATORS.put("serve", generator(24, flags(new String[] {"--model", "--system", "--isl", "--osl", "--gpus", "--threads", "--dtype", "--engine",
            "--itl-slo", "--ttft-slo", "--kv-dtype", "--kv-transfer", "--network", "--overlap-scheduler", "--rate", "--request-overhead", "--spec",
            "--accept", "--all2all", "--expert-skew", "--eplb"}, SERVE_LOAD_FLAGS,
            WHAT_IFS,
            OUTPUT), EveryCommandPropertyTest::serve));
        GENERATORS.put("compare", generator(12, flags(new String[] {"--model", "--system", "--topology", "--gpus", "--threads", "--context", "--dtype",
            "--engine", "--itl-slo", "--kv-dtype", "--network", "--overlap-scheduler", "--spec", "--accept", "--all2all", "--expert-skew", "--eplb", "--gpus-per-node", "--nodes"}, WHAT_IFS,
            OUTPUT),
                EveryCommandPropertyTest::compare));
        GENERATORS.put("calibrate", generator(20, flags(new String[] {"--op", "--ngpus", "--algo", "--class", "--system", "--gpus", "--link-bw",
            "--link-latency", "--gpus-per-node", "--topology", "--nodes", "--network", "--datatype", "--overrides-out", "--format", "--output"}),
                EveryCommandPropertyTest::calibrate));
        GENERATORS.put("sweep", generator(20, flags(new String[] {"--out", "--shard", "--threads", "--report"}), EveryCommandPropertyTest::sweep));
        GENERATORS.put("merge", generator(15, flags(new String[] {"--output"}), EveryCommandPropertyTest::merge));
        GENERATORS.put("run", generator(30, flags(), EveryCommandPropertyTest::run));
        GENERATORS.put("explain", generator(60, flags(new String[] {"--algo", "--ranks", "--nodes", "--size", "--system", "--proto", "--channels", "--nccl",
            "--topology"}, OUTPUT), EveryCommandPropertyTest::explain));
        GENERATORS.put("topo", generator(1, flags(), g -> line("topo"))); // names a subcommand: the usage, exit 2
        GENERATORS.put("topo show", generator(50, flags(SYSTEM_FLAGS, WHAT_IFS, new String[] {"--format", "--output"}),
                EveryCommandPropertyTest::topoShow));
        GENERATORS.put("topo import", generator(40, flags(new String[] {"--gpu", "--nvlink-rate", "--xgmi-rate", "--pcie-rate", "--socket-rate",
            "--output"}),
                EveryCommandPropertyTest::topoImport));
        GENERATORS.put("topo validate", generator(20, flags(), EveryCommandPropertyTest::topoValidate));
        GENERATORS.put("demo", generator(1, flags(), g -> line("demo")));
        GENERATORS.put("validate", generator(25, flags(new String[] {"--decode", "--detail", "--engine", "--calibration", "--algo", "--ngpus",
            "--gpus-per-node", "--network", "--nodes", "--op", "--system", "--measured", "--format", "--output", "--serving", "--threads", "--kernels", "--report",
            "--request-overhead"}),
                EveryCommandPropertyTest::validate));
    }

    // ---------------------------------------------------------------------------------------------

    record Result(int code, String out, String err, Throwable thrown) {}

    static Result execute(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        try {
            int code = Main.execute(args, new PrintWriter(out), new PrintWriter(err));
            return new Result(code, out.toString(), err.toString(), null);
        } catch (RuntimeException | Error e) {
            return new Result(-1, out.toString(), err.toString(), e);
        }
    }

    /** What is wrong with a run's end, or null when it ended as it may: 0, or 2 with one line "collsim: ...". */
    static String problem(Result r) {
        String err = r.err().strip();
        if (r.thrown() != null) {
            return "threw " + r.thrown();
        }
        if (err.contains("internal error") || err.contains("Exception") || err.contains("\tat ")) {
            return "exit " + r.code() + ": " + err;
        }
        if (r.code() == 0) {
            return null;
        }
        if (r.code() == 2 && err.startsWith("collsim: ") && !err.contains("\n")) {
            return null;
        }
        return "exit " + r.code() + ": " + err;
    }

    /** Every command of collsim by its qualified name (without "collsim"), picocli's help command left out. */
    static Map<String, CommandSpec> commands() {
        Map<String, CommandSpec> all = new LinkedHashMap<>();
        collect(new CommandLine(new Main()), all);
        return all;
    }

    private static void collect(CommandLine cl, Map<String, CommandSpec> into) {
        for (CommandLine sub : cl.getSubcommands().values()) {
            CommandSpec spec = sub.getCommandSpec();
            if (spec.userObject() instanceof CommandLine.HelpCommand || into.containsValue(spec)) {
                continue;
            }
            into.put(spec.qualifiedName().replaceFirst("^collsim ", ""), spec);
            collect(sub, into);
        }
    }

    /** The flags a command takes, by their long names, --help and --version left out. */
    static Set<String> flagsOf(CommandSpec spec) {
        Set<String> names = new TreeSet<>();
        for (OptionSpec o : spec.options()) {
            if (!o.usageHelp() && !o.versionHelp()) {
                names.add(o.longestName());
            }
        }
        return names;
    }

    @Test
    void everyCommandAndEveryFlagHasAGenerator() {
        Map<String, CommandSpec> commands = commands();
        assertEquals(new TreeSet<>(commands.keySet()), new TreeSet<>(GENERATORS.keySet()),
                "a command of collsim without a generator here (or a generator of a command that is gone)");
        for (var e : commands.entrySet()) {
            assertEquals(flagsOf(e.getValue()), new TreeSet<>(GENERATORS.get(e.getKey()).flags()),
                    "collsim " + e.getKey() + ": the flags it takes and the flags its generator gives values to");
        }
    }

    @BeforeAll
    static void sharedInputs() throws IOException {
        setUp("bench", "all_reduce", "-b", "1K", "-e", "16M", "-f", "4", "-O", shared.resolve("ar-1n.txt").toString());
        setUp("bench", "all_gather", "--nodes", "2", "-b", "4K", "-e", "64M", "-f", "8", "-O", shared.resolve("ag-2n.txt").toString());
        // connection names as --links prints them, of one node and of two (NICs, leaves, spines), and of a PCIe box
        Set<String> names = new TreeSet<>();
        for (String[] args : List.of(new String[] {"bench", "alltoall", "--nodes", "2", "--links", "-b", "1M", "-e", "1M"},
                new String[] {"bench", "all_reduce", "--links", "-b", "1M", "-e", "1M", "--gdr", "off", "--nodes", "2"},
                new String[] {"bench", "all_reduce", "--system", "pcie-h100-8x", "--links", "-b", "1M", "-e", "1M"},
                new String[] {"bench", "all_reduce", "--system", "gb200-nvl72", "--gpus-per-node", "4", "--nodes", "2", "--links", "-b", "1M", "-e", "1M"})) {
            Result r = execute(args);
            assertEquals(0, r.code(), r.err());
            names.addAll(connectionsOf(r));
        }
        connections = new ArrayList<>(names);
        assertTrue(connections.size() > 20, "connections: " + connections);
        try (InputStream in = Main.class.getResourceAsStream("/calibration/nccl_measured_calibration.csv")) {
            List<String> lines = new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
            calibrationRows = new ArrayList<>();
            calibrationRows.add(lines.get(0));
            int size = List.of(lines.get(0).split(",")).indexOf("size_bytes");
            for (String row : lines.subList(1, lines.size())) {
                String bytes = cells(row).get(size);
                if (bytes.isEmpty() || Long.parseLong(bytes) <= (64L << 20)) { // a row measured no size (p2p bandwidth): kept, as validate skips it
                    calibrationRows.add(row);
                }
            }
        }
        try (InputStream in = Main.class.getResourceAsStream("/calibration/serving_measured_calibration.csv")) {
            List<String> lines = new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
            List<String> header = List.of(lines.get(0).split(","));
            servingRows = new ArrayList<>();
            servingRows.add(lines.get(0));
            int b300 = 0;
            for (String row : lines.subList(1, lines.size())) {
                List<String> c = cells(row);
                boolean quick = c.get(header.indexOf("model")).equals("Llama-3.1-70B") && c.get(header.indexOf("isl")).equals("1024")
                        && Integer.parseInt(c.get(header.indexOf("batch_or_concurrency"))) <= 8;
                boolean skipped = c.get(header.indexOf("gpu")).startsWith("B300") && b300++ % 50 == 0;
                if (quick || skipped) {
                    servingRows.add(row);
                }
            }
        }
                write(shared.resolve("calibration.csv"), calibrationRows.get(0) + "\n" + String.join("\n", calibrationRows.subList(1, 6)) + "\n");
    }

    @Test
    void noCombinationOfValidFlagsEndsInAnInternalError(@TempDir Path tmp) {
        SplittableRandom seeds = new SplittableRandom(SEED);
        List<String> failures = new ArrayList<>();
        StringBuilder timing = new StringBuilder();
        int total = 0;
        long start = System.nanoTime();
        for (var e : GENERATORS.entrySet()) {
            SplittableRandom r = seeds.split();
            long commandStart = System.nanoTime();
            String slowest = "";
            int succeeded = 0;
            long slowestNanos = 0;
            for (int i = 0; i < e.getValue().cases(); i++) {
                Path dir = tmp.resolve(e.getKey().replace(' ', '-') + "-" + i);
                String[] args;
                long caseStart = System.nanoTime();
                try {
                    Files.createDirectories(dir);
                    args = e.getValue().generate(new G(r, dir, e.getKey())).args();
                } catch (IOException | RuntimeException | AssertionError x) {
                    failures.add(e.getKey() + " case " + i + ": generating it: " + x);
                    continue;
                }
                Result result = execute(args);
                String problem = problem(result);
                total++;
                if (problem != null) {
                    failures.add("collsim " + String.join(" ", args) + "\n    -> " + problem + scenarioText(args));
                } else if (result.code() == 0) {
                    succeeded++;
                }
                if (VERBOSE) {
                    System.out.println((result.code() == 0 ? "ran: " : "refused: ") + String.join(" ", args) + "\n    " + result.err().strip());
                }
                long nanos = System.nanoTime() - caseStart;
                if (nanos > slowestNanos) {
                    slowestNanos = nanos;
                    slowest = String.join(" ", args);
                }
            }
            timing.append(String.format(Locale.ROOT, "  %-14s %3d cases (%3d ran, the others refused) %5.1f s, slowest %.1f s: %s%n", e.getKey(),
                    e.getValue().cases(), succeeded, (System.nanoTime() - commandStart) / 1e9, slowestNanos / 1e9, slowest));
        }
        System.out.printf(Locale.ROOT, "EveryCommandPropertyTest: %d command lines, seed %d, %.1f s%n%s", total, SEED,
                (System.nanoTime() - start) / 1e9, timing);
        if (!failures.isEmpty()) {
            fail(failures.size() + " command line(s) ended in an internal error:\n" + String.join("\n", failures));
        }
    }

    /** The scenario files a failed command line names, to see what it ran. */
    static String scenarioText(String[] args) {
        StringBuilder sb = new StringBuilder();
        for (String a : args) {
            if (a.endsWith(".yaml") && Files.isRegularFile(Path.of(a)) && !a.startsWith("..")) {
                try {
                    sb.append("\n    ").append(a).append(":\n      ").append(Files.readString(Path.of(a)).strip().replace("\n", "\n      "));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }
        return sb.toString();
    }

    /** A CSV row's cells, quotes honoured. */
    static List<String> cells(String row) {
        List<String> cells = new ArrayList<>();
        StringBuilder cell = new StringBuilder();
        boolean quoted = false;
        for (char c : row.toCharArray()) {
            if (c == '"') {
                quoted = !quoted;
            } else if (c == ',' && !quoted) {
                cells.add(cell.toString());
                cell.setLength(0);
            } else {
                cell.append(c);
            }
        }
        cells.add(cell.toString());
        return cells;
    }

    static void write(Path file, String text) {
        try {
            Files.writeString(file, text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
