package dev.collsim.scenarios.views;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.collsim.reports.Column;
import dev.collsim.reports.Table;
import dev.collsim.scenarios.compare.Comparison.Row;
import dev.collsim.scenarios.compare.Comparison.SystemResult;
import dev.collsim.scenarios.compare.Comparison;
import dev.collsim.scenarios.decode.DecodeResult;
import dev.collsim.scenarios.metrics.DecodeMetrics;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** A comparison of systems as users read it: its tables, its JSON, the verdict on top of its report and why a system meets nothing. */
public final class CompareView {
    private CompareView() {}

    /**
     * Why no layout of {@code s} meets the target: the fastest one's inter-token latency and what takes
     * most of it (its compute, its exposed communication, or the rest: host and pipeline); null when one meets it.
     */
    public static String whyNone(SystemResult s) {
        if (s.best() != null) {
            return null;
        }
        if (s.frontier().isEmpty()) {
            return "no layout fits in memory";
        }
        Row fastest = s.frontier().get(0);
        DecodeResult f = fastest.step();
        double itl = f.itl().ms();
        double compute = f.timing().compute().ms();
        double exposed = f.comm().exposed().ms();
        double rest = Math.max(0, itl - compute - exposed);
        String binds = compute >= Math.max(exposed, rest) ? "compute (the weights' and cache's reads) binds"
                : exposed >= rest ? "exposed communication binds" : "the host and the pipeline bind";
        return String.format(Locale.ROOT, "no layout meets the target: the fastest, %s batch %d, takes %.2f ms a token (compute %.2f,"
                + " exposed communication %.2f, the rest %.2f): %s", fastest.layout(), f.layout().batch(), itl, compute, exposed, rest, binds);
    }

    /**
     * One line for the top of a report: the system with the most tokens/s per GPU within the target
     * against each other one ("gb200-nvl72 gives 2.45x the tokens/s per GPU of hgx-h200 at 50 ms"),
     * or what none meets.
     */
    public static String verdict(Comparison c) {
        List<SystemResult> systems = c.systems();
        List<SystemResult> met = systems.stream().filter(s -> s.best() != null).toList();
        String target = ServeView.number(c.itlSlo().ms()) + " ms";
        if (met.isEmpty()) {
            return "no system meets an inter-token latency of " + target + ": " + systems.get(0).system() + ": " + whyNone(systems.get(0));
        }
        SystemResult top = met.stream().max(Comparator.comparingDouble(s -> s.best().step().tokensPerSPerGpu())).orElseThrow();
        double topPerGpu = top.best().step().tokensPerSPerGpu();
        List<String> against = new ArrayList<>();
        for (SystemResult s : systems) {
            if (s != top) {
                against.add(s.best() == null ? "while " + s.system() + " meets no layout"
                        : String.format(Locale.ROOT, "%.2fx the tokens/s per GPU of %s", topPerGpu / s.best().step().tokensPerSPerGpu(),
                                s.system()));
            }
        }
        String verdict = String.format(Locale.ROOT, "%s (%s, batch %d) gives %s at %s", top.system(), top.best().layout(),
                top.best().step().layout().batch(),
                against.isEmpty() ? String.format(Locale.ROOT, "%.1f tokens/s per GPU", topPerGpu) : String.join(" and ", against), target);
        // Why it beats the runner-up, in the terms the model prices a step by.
        SystemResult second = met.stream().filter(s -> s != top)
                .max(Comparator.comparingDouble(s -> s.best().step().tokensPerSPerGpu())).orElse(null);
        return second == null ? verdict : verdict + SystemContrast.why(top.system(), second.system(), c.dtype().bits(),
                top.best().step().layout().batch(), second.best().step().layout().batch(), c.engine()).map(why -> "; " + why).orElse("");
    }

    /** The frontiers, system by system in one table, then the winners side by side. */
    public static List<Table> tables(Comparison c) {
        List<Column> frontierColumns = rowColumns(c, "system");
        frontierColumns.add(1, Column.text("layout", "layout", 24));
        Table frontiers = new Table("Pareto frontiers", frontierColumns, Map.of("command", "compare", "model", c.model()));
        for (SystemResult s : c.systems()) {
            frontiers.note(String.format(Locale.ROOT, "%s on %d GPUs of %s, context %d, %s, KV cache %s: %d layouts fit and ran; these are"
                    + " the ones no other beats on both tokens/s per GPU and per user; %s's kernels and host loop, efficiencies %s", c.model(),
                    c.gpus(), s.system(), c.context(), c.dtype().label(), c.kvDtype(), s.layouts(), c.engine().label(), c.efficiencySet()));
            s.frontier().forEach(r -> frontiers.row(cells(s.system(), r)));
        }
        if (!c.whatIfs().isEmpty()) {
            frontiers.note("what-ifs: " + c.whatIfs());
        }
        List<Column> columns = rowColumns(c, "system");
        columns.add(1, Column.text("layout", "layout", 24));
        columns.add(Column.number("vs_first", "per GPU vs first", "(x)", 16, 2));
        Table best = new Table("Best layout within the SLO", columns, Map.of("command", "compare", "model", c.model()));
        best.note(String.format(Locale.ROOT, "%s, %d GPUs, context %d, %s, KV cache %s: the most tokens/s per GPU with an inter-token latency"
                + " of at most %.1f ms", c.model(), c.gpus(), c.context(), c.dtype().label(), c.kvDtype(), c.itlSlo().ms()));
        if (!c.whatIfs().isEmpty()) {
            best.note("what-ifs: " + c.whatIfs());
        }
        Row first = c.systems().get(0).best();
        for (SystemResult s : c.systems()) {
            Row r = s.best();
            if (r == null) {
                best.footnote(s.system() + ": " + whyNone(s));
                continue;
            }
            List<Object> cells = new ArrayList<>(List.of(cells(s.system(), r)));
            cells.add(first == null ? Double.NaN : r.step().tokensPerSPerGpu() / first.step().tokensPerSPerGpu());
            best.row(cells.toArray());
        }
        return List.of(frontiers, best);
    }

    /** The JSON of {@code compare --format json}: its keys are a contract with users' scripts. */
    public static ObjectNode json(Comparison c) {
        ObjectNode j = Json.object();
        j.put("model", c.model());
        j.put("gpus", c.gpus());
        j.put("context", c.context());
        j.put("dtype", c.dtype().label());
        j.put("kv_dtype", c.kvDtype());
        j.put("itl_slo_ms", c.itlSlo().ms());
        j.put("engine", c.engine().label());
        j.put("efficiency_set", c.efficiencySet());
        Json.putIfNotEmpty(j, "what_ifs", c.whatIfs());
        ArrayNode systems = j.putArray("systems");
        for (SystemResult s : c.systems()) {
            ObjectNode o = systems.addObject();
            o.put("system", s.system());
            o.put("layouts", s.layouts());
            ArrayNode frontier = o.putArray("frontier");
            s.frontier().forEach(r -> frontier.add(row(r)));
            if (s.best() == null) {
                o.putNull("best");
            } else {
                o.set("best", row(s.best()));
            }
            String why = whyNone(s);
            if (why != null) {
                o.put("why_none", why);
            }
        }
        return j;
    }

    private static ObjectNode row(Row r) {
        DecodeResult.Layout l = r.step().layout();
        ObjectNode o = Json.object();
        o.put("layout", r.layout());
        o.put("tp", l.tp());
        o.put("pp", l.pp());
        o.put("dp", l.dp());
        o.put("ep", l.ep());
        o.put("batch", l.batch());
        o.put("overlap", l.overlap().label());
        Json.put(o, DecodeMetrics.COMPARED, r.step());
        o.put("memory_gib_per_gpu", gib(r));
        return o;
    }

    private static double gib(Row r) {
        return r.step().memory().total() / (1L << 30);
    }

    private static List<Column> rowColumns(Comparison c, String first) {
        // A topology file's name can be longer than a preset's.
        int width = Math.max(14, c.systems().stream().mapToInt(s -> s.system().length() + 1).max().orElse(0));
        return new ArrayList<>(List.of(Column.text(first, first, width), Column.number("batch", "batch", "", 6, 0),
                Column.number("itl_ms", "ITL", "(ms)", 9, 2), Column.number("tok_s_user", "tok/s/user", "", 11, 1),
                Column.number("tok_s_gpu", "tok/s/GPU", "", 10, 1), Column.number("compute_ms", "compute", "(ms)", 9, 2),
                Column.number("comm_ms", "comm", "(ms)", 8, 2), Column.number("exposed_ms", "exposed", "(ms)", 8, 2),
                Column.number("bandwidth_ms", "bandwidth", "(ms)", 10, 2), Column.number("latency_ms", "latency", "(ms)", 8, 2),
                Column.number("memory_gib", "memory", "(GiB)", 8, 1)));
    }

    /** A row's cells: the system, its layout, then its numbers. */
    private static Object[] cells(String system, Row r) {
        DecodeResult d = r.step();
        List<Object> cells = new ArrayList<>(List.of(system, r.layout(), d.layout().batch()));
        DecodeMetrics.COMPARED.forEach(m -> cells.add(m.value(d)));
        cells.add(gib(r));
        return cells.toArray();
    }
}
