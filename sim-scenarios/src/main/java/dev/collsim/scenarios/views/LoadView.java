package dev.collsim.scenarios.views;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.collsim.reports.Column;
import dev.collsim.reports.Table;
import dev.collsim.scenarios.load.Distribution;
import dev.collsim.scenarios.load.LoadOutcome;
import dev.collsim.scenarios.load.LoadOutcome.Summary;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * A load run as {@code vllm bench serve} reports it, so that the two compare one to one: its JSON under
 * vLLM's keys and its printed summary's labels and sections, as vllm-project/vllm's
 * vllm/benchmarks/serve.py writes them (the {@code result} dict and {@code process_one_metric}). collsim
 * adds the per-GPU and per-user throughputs, the scheduler's preemptions and prefix-cache hits, the
 * setup and the time series after vLLM's keys.
 */
public final class LoadView {
    /** vLLM's default {@code --metric-percentiles}. */
    private static final double[] DEFAULT_PERCENTILES = {99};
    /** Width of vLLM's section lines: {@code "{s:{c}^{n}}".format(n=50)}. */
    private static final int LINE = 50;

    /**
     * A latency as vLLM names it: the key in {@code mean_X_ms}, the name in "Mean X (ms):" and the header of
     * its section.
     */
    private record Latency(String key, String name, String header, Function<Summary, Distribution> of) {}

    private static final List<Latency> LATENCIES = List.of(new Latency("ttft", "TTFT", "Time to First Token", Summary::ttft),
            new Latency("tpot", "TPOT", "Time per Output Token (excl. 1st token)", Summary::tpot),
            new Latency("itl", "ITL", "Inter-token Latency", Summary::itl),
            new Latency("e2el", "E2EL", "End-to-end Latency", Summary::e2el));

    private LoadView() {}

    /** The percentiles vLLM reports unless told others: the 99th. */
    public static double[] defaultPercentiles() {
        return DEFAULT_PERCENTILES.clone();
    }

    /** A percentile as vLLM writes it in a key or a label: 99 for 99.0, 99.9 as it is. */
    static String percentileWord(double p) {
        return ServeView.number(p);
    }

    public static ObjectNode json(LoadOutcome o) {
        return json(o, DEFAULT_PERCENTILES);
    }

    /** The JSON of a load run: vLLM's keys in vLLM's order, then collsim's. */
    public static ObjectNode json(LoadOutcome o, double[] percentiles) {
        Summary s = o.summary();
        ObjectNode j = Json.object();
        j.put("duration", s.durationS());
        j.put("completed", s.completed());
        j.put("failed", s.failed());
        j.put("total_input_tokens", s.inputTokens());
        j.put("total_output_tokens", s.outputTokens());
        j.put("request_throughput", s.requestThroughput());
        // vLLM writes the key always, null without --goodput.
        Json.put(j, "request_goodput", s.goodput());
        j.put("output_throughput", s.outputThroughput());
        j.put("total_token_throughput", s.totalTokenThroughput());
        j.put("output_throughput_per_gpu", s.outputThroughputPerGpu());
        j.put("total_token_throughput_per_gpu", s.totalTokenThroughputPerGpu());
        j.put("tokens_per_s_per_user", s.tokensPerSPerUser());
        for (Latency l : LATENCIES) {
            Distribution d = l.of().apply(s);
            j.put("mean_" + l.key() + "_ms", d.mean());
            j.put("median_" + l.key() + "_ms", d.median());
            j.put("std_" + l.key() + "_ms", d.std());
            for (double p : percentiles) {
                j.put("p" + percentileWord(p) + "_" + l.key() + "_ms", d.percentile(p));
            }
        }
        j.put("preemptions", s.preemptions());
        j.put("prefix_cache_hit_rate", s.prefixCacheHitRate());
        LoadOutcome.Setup setup = o.setup();
        ObjectNode u = j.putObject("setup");
        u.put("model", setup.model());
        u.put("system", setup.system());
        u.put("deployment", setup.deployment());
        u.put("engine", setup.engine());
        u.put("request_overhead_ms", setup.requestMs());
        u.put("scheduler", setup.scheduler());
        u.put("workload", setup.workload());
        u.put("gpus", setup.gpus());
        ArrayNode blocks = u.putArray("kv_blocks");
        setup.kvBlocks().forEach(blocks::add);
        u.put("block_tokens", setup.blockTokens());
        u.put("seed", setup.seed());
        ObjectNode series = j.putObject("series");
        ArrayNode time = series.putArray("time_ms");
        ArrayNode running = series.putArray("running");
        ArrayNode queued = series.putArray("queued");
        ArrayNode kv = series.putArray("kv_use");
        ArrayNode preemptions = series.putArray("preemptions");
        for (LoadOutcome.Sample x : o.series()) {
            time.add(x.timeMs());
            running.add(x.running());
            queued.add(x.queued());
            kv.add(x.kvUse());
            preemptions.add(x.preemptions());
        }
        return j;
    }

    public static Table table(LoadOutcome o) {
        return table(o, DEFAULT_PERCENTILES);
    }

    /**
     * The summary as vLLM prints it: its labels, in its sections and order, each value with two decimals (a
     * count whole); collsim's figures after vLLM's in each part, and the scheduler's in a section of its own.
     */
    public static Table table(LoadOutcome o, double[] percentiles) {
        Summary s = o.summary();
        LoadOutcome.Setup setup = o.setup();
        Table t = new Table("Serving Benchmark Result", List.of(Column.label("metric", "metric", LINE), Column.number("value", "value", "", 10, 2)),
                Map.of("command", "serve", "model", setup.model(), "system", setup.system()));
        t.note(String.format(Locale.ROOT, "%s on %s: %s, %d GPUs; %s (%s)", setup.model(), setup.system(), setup.deployment(), setup.gpus(),
                setup.engine(), setup.scheduler()));
        t.note("workload: " + setup.workload());
        t.note(String.format(Locale.ROOT, "KV cache: %s blocks of %d tokens per replica; seed %d",
                setup.kvBlocks().stream().map(String::valueOf).collect(Collectors.joining(" / ")), setup.blockTokens(), setup.seed()));
        t.note(String.format(Locale.ROOT, "the server's time per request before the scheduler (HTTP, tokenisation, the engine's IPC;"
                + " --request-overhead): %.1f ms, in every TTFT and E2EL", setup.requestMs()));
        t.row(section(" Serving Benchmark Result ", '='), "");
        t.row("Successful requests:", s.completed());
        t.row("Failed requests:", s.failed());
        t.row("Benchmark duration (s):", s.durationS());
        t.row("Total input tokens:", s.inputTokens());
        t.row("Total generated tokens:", s.outputTokens());
        t.row("Request throughput (req/s):", s.requestThroughput());
        if (s.goodput() != null) {
            t.row("Request goodput (req/s):", s.goodput());
        }
        t.row("Output token throughput (tok/s):", s.outputThroughput());
        t.row("Total token throughput (tok/s):", s.totalTokenThroughput());
        t.row("Output token throughput per GPU (tok/s):", s.outputThroughputPerGpu());
        t.row("Total token throughput per GPU (tok/s):", s.totalTokenThroughputPerGpu());
        t.row("Output tokens/s per user:", s.tokensPerSPerUser());
        for (Latency l : LATENCIES) {
            Distribution d = l.of().apply(s);
            t.row(section(l.header(), '-'), "");
            t.row("Mean " + l.name() + " (ms):", d.mean());
            t.row("Median " + l.name() + " (ms):", d.median());
            for (double p : percentiles) {
                t.row("P" + percentileWord(p) + " " + l.name() + " (ms):", d.percentile(p));
            }
        }
        t.row(section("Scheduler", '-'), "");
        t.row("Preemptions:", s.preemptions());
        t.row("Prefix cache hit rate (%):", 100 * s.prefixCacheHitRate());
        t.row("=".repeat(LINE), "");
        return t;
    }

    /** {@code text} centred in a line of {@code fill}, as Python's {@code "{s:{c}^{n}}"} centres it (the odd one on the right). */
    static String section(String text, char fill) {
        int pad = Math.max(0, LINE - text.length());
        return String.valueOf(fill).repeat(pad / 2) + text + String.valueOf(fill).repeat(pad - pad / 2);
    }
}
