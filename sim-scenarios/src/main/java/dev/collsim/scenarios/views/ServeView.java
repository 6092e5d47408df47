package dev.collsim.scenarios.views;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.collsim.reports.Column;
import dev.collsim.reports.Table;
import dev.collsim.scenarios.metrics.ServeMetrics;
import dev.collsim.scenarios.serve.ServingPlan.Deployment;
import dev.collsim.scenarios.serve.ServingPlan.Shortfall;
import dev.collsim.scenarios.serve.ServingPlan.SystemPlan;
import dev.collsim.scenarios.serve.ServingPlan;
import dev.collsim.scenarios.serve.Slo;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A serving plan as users read it: its two tables, its JSON, and the verdicts in words. */
public final class ServeView {
    private ServeView() {}

    /** A target as written: 2000, 50, 0.5. */
    public static String number(double v) {
        return v == Math.rint(v) ? String.valueOf((long) v) : String.valueOf(v);
    }

    /** What fell short, in words. */
    public static String words(Shortfall s) {
        return switch (s.reason()) {
            case NOTHING_FITS -> "no layout fits in memory and keeps up with its prompts";
            case ITL -> String.format(Locale.ROOT, "no deployment meets the ITL target: the fastest ITL is %.2f ms", s.best().ms());
            case TTFT_WITHIN_ITL -> String.format(Locale.ROOT,
                    "no deployment meets the TTFT target within the ITL target: its best TTFT there is %.1f ms", s.best().ms());
            case TTFT_UNLOADED -> String.format(Locale.ROOT, "no deployment meets the TTFT target: its best TTFT unloaded is %.1f ms",
                    s.best().ms());
            case NO_KV_PATH -> "the KV cache has no path between two instances (one node without NVLink between them)";
            case REFUSED -> "the load simulation refused every deployment the estimate proposed (its scheduler finds no room for the KV cache)";
        };
    }

    /** The two targets in words: {@code TTFT 2000 ms and ITL 50 ms}, a percentile named ({@code p99 TTFT 2000 ms}). */
    public static String targets(ServingPlan p) {
        return named(p.ttftSlo()) + "TTFT " + number(p.ttftSlo().ms()) + " ms and " + named(p.itlSlo()) + "ITL " + number(p.itlSlo().ms()) + " ms";
    }

    private static String named(Slo slo) {
        return slo.isMean() ? "" : slo.stat() + " ";
    }

    /** One system's verdict: which mode wins and by how much, or what each mode lacks. */
    public static String verdict(ServingPlan p, SystemPlan s) {
        Deployment a = s.aggregated();
        Deployment d = s.disaggregated();
        String targets = targets(p);
        if (a != null && d != null) {
            boolean disWins = d.tokensPerSPerGpu() > a.tokensPerSPerGpu();
            Deployment win = disWins ? d : a;
            Deployment lose = disWins ? a : d;
            return String.format(Locale.ROOT, "%s: %s (%s) gives %.2fx the tokens/s per GPU of %s at %s", s.system(), win.mode().label(),
                    win.deployment(), win.tokensPerSPerGpu() / lose.tokensPerSPerGpu(), lose.mode().label(), targets);
        }
        if (a != null || d != null) {
            Deployment only = a != null ? a : d;
            return String.format(Locale.ROOT, "%s: only %s (%s) meets %s; %s: %s", s.system(), only.mode().label(), only.deployment(), targets,
                    a != null ? "disaggregated" : "aggregated", words(a != null ? s.disaggregatedShortfall() : s.aggregatedShortfall()));
        }
        return String.format(Locale.ROOT, "%s: nothing meets %s (aggregated: %s; disaggregated: %s)", s.system(), targets,
                words(s.aggregatedShortfall()), words(s.disaggregatedShortfall()));
    }

    /**
     * With two or more systems: each one's best against the first's, and why the one with more tokens/s per GPU has them
     * ({@link SystemContrast}).
     */
    public static List<String> acrossSystems(ServingPlan p) {
        List<SystemPlan> systems = p.systems();
        if (systems.size() < 2 || systems.get(0).best() == null) {
            return List.of();
        }
        SystemPlan firstPlan = systems.get(0);
        Deployment first = firstPlan.best();
        List<String> out = new ArrayList<>();
        for (SystemPlan s : systems.subList(1, systems.size())) {
            if (s.best() != null) {
                String line = String.format(Locale.ROOT, "%s gives %.2fx the tokens/s per GPU of %s (each at its better mode)", s.system(),
                        s.best().tokensPerSPerGpu() / first.tokensPerSPerGpu(), firstPlan.system());
                boolean ahead = s.best().tokensPerSPerGpu() >= first.tokensPerSPerGpu();
                SystemPlan win = ahead ? s : firstPlan;
                SystemPlan lose = ahead ? firstPlan : s;
                out.add(line + SystemContrast.why(win.system(), lose.system(), p.dtype().bits(), decodeBatch(win.best()),
                        decodeBatch(lose.best()), p.setup().engine()).map(why -> "; " + why).orElse(""));
            }
        }
        return out;
    }

    private static final Pattern BATCH = Pattern.compile("\\bb(\\d+)\\b");

    /** The decode instances' batch a deployment names ("... b256 ..."), 0 where it names none. */
    private static int decodeBatch(Deployment d) {
        Matcher m = BATCH.matcher(d.deployment());
        int batch = 0;
        while (m.find()) {
            batch = Integer.parseInt(m.group(1));
        }
        return batch;
    }

    public static List<Table> tables(ServingPlan p) {
        int width = Math.max(14, p.systems().stream().mapToInt(s -> s.system().length() + 1).max().orElse(0));
        List<Column> columns = new ArrayList<>(List.of(Column.text("system", "system", width), Column.text("mode", "mode", 15),
                Column.text("deployment", "deployment", 44), Column.number("gpus", "GPUs", "", 5, 0),
                Column.number("ttft_ms", named(p.ttftSlo()) + "TTFT", "(ms)", 9, 1), Column.number("itl_ms", named(p.itlSlo()) + "ITL", "(ms)", 8, 2),
                Column.number("tok_s_gpu", "tok/s/GPU", "", 10, 1), Column.number("req_s", "req/s", "", 8, 2)));
        if (p.rate() != null) {
            columns.add(Column.number("gpus_for_rate", "GPUs for rate", "", 14, 0));
        }
        Table plans = new Table("Serving at both targets", columns, Map.of("command", "serve", "model", p.model()));
        plans.note(String.format(Locale.ROOT, "%s, ISL %d, OSL %d, %s, %s's kernels%s: the most output tokens/s per GPU with a %s TTFT of at"
                + " most %s ms and a %s ITL of at most %s ms, each deployment's unit within %d GPUs%s", p.model(), p.isl(), p.osl(),
                p.dtype().label(), p.setup().engine().label(),
                (p.setup().speculation().speculates() ? " with speculative decoding (" + p.setup().speculation().describe() + ")" : "")
                        + (p.setup().experts().evenLoad() ? "" : ", expert load " + p.setup().experts().loadLabel()), p.ttftSlo().stat(), number(p.ttftSlo().ms()), p.itlSlo().stat(), number(p.itlSlo().ms()),
                p.gpus(), p.rate() == null ? "" : String.format(Locale.ROOT, "; GPUs for %s requests/s", number(p.rate()))));
        if (p.simulated() != null) {
            ServingPlan.Simulated sim = p.simulated();
            plans.note(String.format(Locale.ROOT, "decided on %d simulated load runs: Poisson arrivals at up to the rate each deployment's"
                    + " estimate allows, %d requests measured after a warm-up of as many as it holds at once; tokens/s over the measured"
                    + " arrivals%s; a mean ITL is the mean time per output token, a percentile one of the gaps between tokens (vLLM's ITL)",
                    sim.runs().size(), sim.measured(), sim.refused() == 0 ? "" : "; " + sim.refused() + " deployment(s) the load simulation refused"));
        }
        Table parts = new Table("What each deployment is made of", List.of(Column.text("system", "system", width),
                Column.text("mode", "mode", 15), Column.number("prefill_ms", "prefill", "(ms)", 9, 1),
                Column.number("queue_ms", "queue", "(ms)", 8, 1), Column.number("kv_ms", "KV move", "(ms)", 8, 2),
                Column.text("kv_over", "KV over", 12), Column.number("decode_step_ms", "decode step", "(ms)", 12, 2),
                Column.number("step_with_chunk_ms", "with a chunk", "(ms)", 13, 2)), Map.of("command", "serve", "model", p.model()));
        parts.note(String.format(Locale.ROOT, "TTFT = %.1f ms at the server (%s's time per request beyond the forwards: HTTP, tokenisation,"
                + " IPC; --request-overhead) + queue + prefill + KV move (+ one decode step, disaggregated; + half a step, aggregated); the"
                + " queue is M/D/1 at the load the targets allow", p.setup().requestMs(), p.setup().engine().label())
                + (p.simulated() == null ? "" : "; these parts are the estimate's, the times above the load runs'"));
        for (SystemPlan s : p.systems()) {
            add(p, plans, parts, s.system(), s.aggregated(), s.aggregatedShortfall(), "aggregated");
            add(p, plans, parts, s.system(), s.disaggregated(), s.disaggregatedShortfall(), "disaggregated");
        }
        p.systems().forEach(s -> plans.footnote(verdict(p, s)));
        acrossSystems(p).forEach(plans::footnote);
        return p.simulated() == null ? List.of(plans, parts) : List.of(plans, parts, runs(p, width));
    }

    /** A plan at percentiles: every load run it made, the frontier's points marked. */
    private static Table runs(ServingPlan p, int width) {
        Table t = new Table("Load runs", List.of(Column.text("system", "system", width), Column.text("mode", "mode", 15),
                Column.text("deployment", "deployment", 44), Column.number("load", "load", "", 6, 2), Column.number("req_s", "req/s", "", 8, 2),
                Column.number("ttft_ms", named(p.ttftSlo()) + "TTFT", "(ms)", 10, 1), Column.number("itl_ms", named(p.itlSlo()) + "ITL", "(ms)", 9, 2),
                Column.number("tok_s_user", "tok/s/user", "", 11, 1), Column.number("tok_s_gpu", "tok/s/GPU", "", 10, 1),
                Column.text("meets", "meets", 6), Column.text("frontier", "frontier", 9)), Map.of("command", "serve", "model", p.model()));
        t.note("load: the share of the rate the deployment's estimate allows; frontier: no other run of the system gives both more tokens/s"
                + " per user and more per GPU");
        for (ServingPlan.Run r : p.simulated().runs()) {
            t.row(r.system(), r.mode().label(), r.deployment(), r.load(), r.ratePerS(), r.ttftMs(), r.itlMs(), r.tokensPerSPerUser(),
                    r.tokensPerSPerGpu(), r.meets() ? "yes" : "no", r.onFrontier() ? "*" : "");
        }
        return t;
    }

    private static void add(ServingPlan p, Table plans, Table parts, String system, Deployment d, Shortfall why, String mode) {
        if (d == null) {
            plans.note(system + ", " + mode + ": " + words(why));
            return;
        }
        List<Object> cells = new ArrayList<>(List.of(system, d.mode().label(), d.deployment(), d.gpus()));
        ServeMetrics.LOAD.forEach(m -> cells.add(m.value(d)));
        if (p.rate() != null) {
            cells.add(d.gpusForRate());
        }
        plans.row(cells.toArray());
        ServingPlan.Parts x = d.parts();
        parts.row(system, d.mode().label(), x.prefill().ms(), x.queue().ms(), x.kv().ms(), x.kvOver().isEmpty() ? "-" : x.kvOver(),
                x.decodeStep().ms(), x.stepWithChunk().ms());
    }

    /** The JSON of {@code serve --format json}: its keys are a contract with users' scripts. */
    public static ObjectNode json(ServingPlan p) {
        ObjectNode j = Json.object();
        j.put("model", p.model());
        j.put("isl", p.isl());
        j.put("osl", p.osl());
        j.put("ttft_slo_ms", p.ttftSlo().ms());
        j.put("ttft_slo_stat", p.ttftSlo().stat());
        j.put("itl_slo_ms", p.itlSlo().ms());
        j.put("itl_slo_stat", p.itlSlo().stat());
        if (p.rate() != null) {
            j.put("rate_per_s", p.rate());
        }
        j.put("gpus", p.gpus());
        j.put("dtype", p.dtype().label());
        j.put("engine", p.setup().engine().label());
        j.put("request_overhead_ms", p.setup().requestMs());
        DecodeJson.putSpeculation(j, p.setup().speculation());
        if (!p.setup().experts().evenLoad()) {
            j.put("expert_load", p.setup().experts().loadLabel());
        }
        j.put("kv_transfer", p.kvTransfer().label());
        ArrayNode systems = j.putArray("systems");
        for (SystemPlan s : p.systems()) {
            ObjectNode o = systems.addObject();
            o.put("system", s.system());
            o.put("fitting", s.fitting());
            deployment(o, "aggregated", s.aggregated(), s.aggregatedShortfall());
            deployment(o, "disaggregated", s.disaggregated(), s.disaggregatedShortfall());
            o.put("verdict", verdict(p, s));
        }
        j.set("verdicts", Json.strings(acrossSystems(p)));
        if (p.simulated() != null) {
            ObjectNode sim = j.putObject("load_runs");
            sim.put("measured_requests", p.simulated().measured());
            sim.put("refused", p.simulated().refused());
            ArrayNode runs = sim.putArray("runs");
            ArrayNode frontier = j.putArray("frontier");
            for (ServingPlan.Run r : p.simulated().runs()) {
                ObjectNode o = runs.addObject();
                o.put("system", r.system());
                o.put("mode", r.mode().label());
                o.put("deployment", r.deployment());
                o.put("load", r.load());
                o.put("requests_per_s", r.ratePerS());
                o.put("ttft_ms", r.ttftMs());
                o.put("itl_ms", r.itlMs());
                o.put("tokens_per_s_per_user", r.tokensPerSPerUser());
                o.put("tokens_per_s_per_gpu", r.tokensPerSPerGpu());
                o.put("meets_targets", r.meets());
                o.put("on_frontier", r.onFrontier());
                if (r.onFrontier()) {
                    frontier.add(o.deepCopy());
                }
            }
        }
        return j;
    }

    private static void deployment(ObjectNode parent, String mode, Deployment d, Shortfall why) {
        if (d != null) {
            ObjectNode o = parent.putObject(mode);
            o.put("mode", d.mode().label());
            o.put("deployment", d.deployment());
            o.put("gpus", d.gpus());
            Json.put(o, ServeMetrics.LOAD, d);
            Json.put(o, ServeMetrics.TO_FIRST_TOKEN, d);
            Json.putIfNotEmpty(o, "kv_over", d.parts().kvOver());
            Json.put(o, ServeMetrics.STEPS, d);
            if (d.gpusForRate() != null) {
                o.put("gpus_for_rate", d.gpusForRate());
            }
        }
        if (why != null) {
            parent.put(mode + "_why", words(why));
        }
    }
}
