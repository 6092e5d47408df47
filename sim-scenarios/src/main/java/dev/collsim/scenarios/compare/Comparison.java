package dev.collsim.scenarios.compare;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import dev.collsim.reports.Column;
import dev.collsim.reports.Table;
import dev.collsim.scenarios.decode.DecodeSystem;
import dev.collsim.scenarios.decode.KernelCosts;
import dev.collsim.scenarios.decode.ModelConfig;
import dev.collsim.topologies.systems.SystemPreset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * Systems compared for one model on the same number of GPUs: each one's Pareto frontier of tokens/s
 * per GPU against tokens/s per user, and the layout that gives the most tokens/s per GPU within the
 * inter-token latency target, with where its time goes.
 */
public record Comparison(String model, int gpus, int context, String dtype, @JsonProperty("kv_dtype") String kvDtype,
                         @JsonProperty("itl_slo_ms") double itlSloMs,
                         String engine, @JsonProperty("efficiency_set") String efficiencySet,
                         @JsonProperty("what_ifs") @JsonInclude(JsonInclude.Include.NON_EMPTY)
                         String whatIfs,
                         List<SystemResult> systems) {

    /** One system's search: how many layouts fit and ran, the frontier, and the best within the SLO (null if none meets it). */
    public record SystemResult(String system, int layouts, List<Row> frontier, Row best) {
        /**
         * Why no layout meets the target: the fastest one's inter-token latency and what takes
         * most of it (its compute, its exposed communication, or the rest: host and pipeline); null
         * when one meets it.
         */
        @JsonProperty("why_none")
        @JsonInclude(JsonInclude.Include.NON_NULL)
        public String whyNone() {
            if (best != null) {
                return null;
            }
            if (frontier.isEmpty()) {
                return "no layout fits in memory";
            }
            Row fastest = frontier.get(0);
            double rest = Math.max(0, fastest.itlMs() - fastest.computeMs() - fastest.exposedCommMs());
            String binds = fastest.computeMs() >= Math.max(fastest.exposedCommMs(), rest) ? "compute (the weights' and cache's reads) binds"
                    : fastest.exposedCommMs() >= rest ? "exposed communication binds" : "the host and the pipeline bind";
            return String.format(Locale.ROOT, "no layout meets the target: the fastest, %s batch %d, takes %.2f ms a token (compute %.2f,"
                    + " exposed communication %.2f, the rest %.2f): %s", fastest.layout(), fastest.batch(), fastest.itlMs(), fastest.computeMs(),
                    fastest.exposedCommMs(), rest, binds);
        }
    }

    /** A layout and what its decode step gives. */
    public record Row(String layout, int tp, int pp, int dp, int ep, int batch, String overlap,
                      @JsonProperty("itl_ms") double itlMs,
                      @JsonProperty("tokens_per_s_per_user") double tokensPerSPerUser,
                      @JsonProperty("tokens_per_s_per_gpu") double tokensPerSPerGpu,
                      @JsonProperty("compute_ms") double computeMs,
                      @JsonProperty("comm_ms") double commMs,
                      @JsonProperty("exposed_comm_ms") double exposedCommMs,
                      @JsonProperty("comm_bandwidth_term_ms") double commBandwidthTermMs,
                      @JsonProperty("comm_latency_term_ms") double commLatencyTermMs,
                      @JsonProperty("memory_gib_per_gpu") double memoryGibPerGpu) {
        static Row of(LayoutSearch.Point p) {
            var s = p.spec();
            var r = p.result();
            return new Row(p.label(), s.tp(), s.pp(), s.dp(), s.ep(), s.batch(), s.overlap().label(), r.itlMs(), r.tokensPerSPerUser(),
                    r.tokensPerSPerGpu(), r.computeMs(), r.commMs(), r.exposedCommMs(), r.commBandwidthTermMs(), r.commLatencyTermMs(),
                    r.memoryBytesPerGpu() / (1L << 30));
        }
    }

    /** Every system's search, {@code threads} layouts simulated at once. */
    public static Comparison run(CompareSpec spec, int threads) {
        return run(spec, threads, (done, total) -> { });
    }

    /** As above, telling {@code progress} how many of each system's layouts are estimated. */
    public static Comparison run(CompareSpec spec, int threads, BiConsumer<Integer, Integer> progress) {
        ModelConfig m = spec.model();
        double sloMs = spec.itlSloMs();
        List<SystemResult> out = new ArrayList<>();
        for (DecodeSystem system : spec.decodeSystems()) {
            List<LayoutSearch.Point> points = LayoutSearch.run(m, system, spec.gpus(), spec.context(), spec.precision(), threads, spec.engine(),
                    sloMs, progress);
            List<Row> frontier = LayoutSearch.pareto(points).stream().map(Row::of).toList();
            Row best = LayoutSearch.best(points, sloMs).map(Row::of).orElse(null);
            out.add(new SystemResult(system.name(), points.size(), frontier, best));
        }
        return new Comparison(m.name(), spec.gpus(), spec.context(), spec.precision().label(), spec.engine().kvLabel(spec.precision()), sloMs,
                spec.engine().engine().label(), KernelCosts.EFFICIENCY_SET, spec.changes(), out);
    }

    /**
     * One line for the top of a report: the system with the most tokens/s per GPU within the target
     * against each other one ("gb200-nvl72 gives 2.45x the tokens/s per GPU of hgx-h200 at 50 ms"),
     * or what none meets.
     */
    public String verdict() {
        List<SystemResult> met = systems.stream().filter(s -> s.best() != null).toList();
        String target = String.format(Locale.ROOT, "%s ms", itlSloMs == Math.rint(itlSloMs) ? String.valueOf((long) itlSloMs)
                : String.valueOf(itlSloMs));
        if (met.isEmpty()) {
            return "no system meets an inter-token latency of " + target + ": " + systems.get(0).system() + ": " + systems.get(0).whyNone();
        }
        SystemResult top = met.stream().max(Comparator.comparingDouble(s -> s.best().tokensPerSPerGpu())).orElseThrow();
        List<String> against = new ArrayList<>();
        for (SystemResult s : systems) {
            if (s != top) {
                against.add(s.best() == null ? "while " + s.system() + " meets no layout"
                        : String.format(Locale.ROOT, "%.2fx the tokens/s per GPU of %s", top.best().tokensPerSPerGpu() / s.best().tokensPerSPerGpu(),
                                s.system()));
            }
        }
        return String.format(Locale.ROOT, "%s (%s, batch %d) gives %s at %s", top.system(), top.best().layout(), top.best().batch(),
                against.isEmpty() ? String.format(Locale.ROOT, "%.1f tokens/s per GPU", top.best().tokensPerSPerGpu()) : String.join(" and ", against),
                target);
    }

    /** The frontiers, system by system in one table, then the winners side by side. */
    public List<Table> tables() {
        List<Column> frontierColumns = rowColumns("system");
        frontierColumns.add(1, Column.text("layout", "layout", 24));
        Table frontiers = new Table("Pareto frontiers", frontierColumns, Map.of("command", "compare", "model", model));
        for (SystemResult s : systems) {
            frontiers.note(String.format(Locale.ROOT, "%s on %d GPUs of %s, context %d, %s, KV cache %s: %d layouts fit and ran; these are"
                    + " the ones no other beats on both tokens/s per GPU and per user; %s's kernels and host loop, efficiencies %s", model, gpus,
                    s.system(), context, dtype, kvDtype, s.layouts(), engine, efficiencySet));
            s.frontier().forEach(r -> frontiers.row(cells(s.system(), r)));
        }
        if (!whatIfs.isEmpty()) {
            frontiers.note("what-ifs: " + whatIfs);
        }
        List<Column> columns = rowColumns("system");
        columns.add(1, Column.text("layout", "layout", 24));
        columns.add(Column.number("vs_first", "per GPU vs first", "(x)", 16, 2));
        Table best = new Table("Best layout within the SLO", columns, Map.of("command", "compare", "model", model));
        best.note(String.format(Locale.ROOT, "%s, %d GPUs, context %d, %s, KV cache %s: the most tokens/s per GPU with an inter-token latency"
                + " of at most %.1f ms", model, gpus, context, dtype, kvDtype, itlSloMs));
        if (!whatIfs.isEmpty()) {
            best.note("what-ifs: " + whatIfs);
        }
        Row first = systems.get(0).best();
        for (SystemResult s : systems) {
            Row r = s.best();
            if (r == null) {
                best.footnote(s.system() + ": " + s.whyNone());
                continue;
            }
            List<Object> cells = new ArrayList<>(List.of(cells(s.system(), r)));
            cells.add(first == null ? Double.NaN : r.tokensPerSPerGpu() / first.tokensPerSPerGpu());
            best.row(cells.toArray());
        }
        return List.of(frontiers, best);
    }

    private List<Column> rowColumns(String first) {
        // A topology file's name can be longer than a preset's.
        int width = Math.max(14, systems.stream().mapToInt(s -> s.system().length() + 1).max().orElse(0));
        return new ArrayList<>(List.of(Column.text(first, first, width), Column.number("batch", "batch", "", 6, 0),
                Column.number("itl_ms", "ITL", "(ms)", 9, 2), Column.number("tok_s_user", "tok/s/user", "", 11, 1),
                Column.number("tok_s_gpu", "tok/s/GPU", "", 10, 1), Column.number("compute_ms", "compute", "(ms)", 9, 2),
                Column.number("comm_ms", "comm", "(ms)", 8, 2), Column.number("exposed_ms", "exposed", "(ms)", 8, 2),
                Column.number("bandwidth_ms", "bandwidth", "(ms)", 10, 2), Column.number("latency_ms", "latency", "(ms)", 8, 2),
                Column.number("memory_gib", "memory", "(GiB)", 8, 1)));
    }

    /** A row's cells: the system, its layout, then its numbers. */
    private static Object[] cells(String system, Row r) {
        return new Object[] {system, r.layout(), r.batch(), r.itlMs(), r.tokensPerSPerUser(), r.tokensPerSPerGpu(), r.computeMs(), r.commMs(),
            r.exposedCommMs(), r.commBandwidthTermMs(), r.commLatencyTermMs(), r.memoryGibPerGpu()};
    }
}
