package dev.collsim.scenarios.views;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.collsim.reports.HtmlReport;
import dev.collsim.reports.ReportFormat;
import dev.collsim.scenarios.load.LoadOutcome;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class LoadViewTest {
    private static final double EPS = 1e-9;

    private static List<String> keys(JsonNode node) {
        List<String> keys = new ArrayList<>();
        node.fieldNames().forEachRemaining(keys::add);
        return keys;
    }

    /** vLLM's result keys, in vllm/benchmarks/serve.py's order, for the latencies at the given percentile words. */
    private static List<String> vllmKeys(String... percentiles) {
        List<String> keys = new ArrayList<>(List.of("duration", "completed", "failed", "total_input_tokens", "total_output_tokens",
                "request_throughput", "request_goodput", "output_throughput", "total_token_throughput", "output_throughput_per_gpu",
                "total_token_throughput_per_gpu", "tokens_per_s_per_user"));
        for (String m : List.of("ttft", "tpot", "itl", "e2el")) {
            keys.addAll(List.of("mean_" + m + "_ms", "median_" + m + "_ms", "std_" + m + "_ms"));
            Arrays.stream(percentiles).forEach(p -> keys.add("p" + p + "_" + m + "_ms"));
        }
        keys.addAll(List.of("preemptions", "prefix_cache_hit_rate", "setup", "series"));
        return keys;
    }

    @Test
    void jsonHasVllmsKeysInVllmsOrder() {
        assertEquals(vllmKeys("99"), keys(LoadView.json(LoadSamples.disaggregated())));
        // vLLM's p_word: str(int(p)) for a whole p, str(p) else: p99.9_ttft_ms, never p99.0_ttft_ms.
        assertEquals(vllmKeys("50", "90", "99", "99.9"), keys(LoadView.json(LoadSamples.disaggregated(), new double[] {50, 90.0, 99, 99.9})));
        ObjectNode j = LoadView.json(LoadSamples.disaggregated());
        assertEquals(List.of("model", "system", "deployment", "engine", "request_overhead_ms", "scheduler", "workload", "gpus", "kv_blocks",
                        "block_tokens", "seed"),
                keys(j.get("setup")));
        assertEquals(List.of("time_ms", "running", "queued", "kv_use", "preemptions"), keys(j.get("series")));
    }

    /**
     * The measured requests 1 and 2 (TTFT 100 and 140 ms, E2EL 130 and 170, TPOT 30 / 3 = 10 each) over the
     * 0.18 s from request 1's arrival to request 2's end; request 3 failed, request 0 warmed up.
     */
    @Test
    void jsonValuesAreTheSummarysAsVllmWritesThem() {
        ObjectNode j = LoadView.json(LoadSamples.disaggregated(), new double[] {50, 99});
        assertEquals(0.18, j.get("duration").asDouble(), EPS);
        assertTrue(j.get("completed").isInt());
        assertEquals(2, j.get("completed").asInt());
        assertEquals(1, j.get("failed").asInt());
        assertTrue(j.get("total_input_tokens").isIntegralNumber());
        assertEquals(2048, j.get("total_input_tokens").asLong());
        assertEquals(8, j.get("total_output_tokens").asLong());
        assertEquals(2 / 0.18, j.get("request_throughput").asDouble(), EPS);
        assertEquals(5.5, j.get("request_goodput").asDouble(), EPS);
        assertEquals(8 / 0.18, j.get("output_throughput").asDouble(), EPS);
        assertEquals(2056 / 0.18, j.get("total_token_throughput").asDouble(), EPS);
        assertEquals(8 / 0.18 / 8, j.get("output_throughput_per_gpu").asDouble(), EPS);
        assertEquals(2056 / 0.18 / 8, j.get("total_token_throughput_per_gpu").asDouble(), EPS);
        assertEquals(100, j.get("tokens_per_s_per_user").asDouble(), EPS);
        assertEquals(120, j.get("mean_ttft_ms").asDouble(), EPS);
        assertEquals(120, j.get("median_ttft_ms").asDouble(), EPS);
        assertEquals(20, j.get("std_ttft_ms").asDouble(), EPS);
        assertEquals(120, j.get("p50_ttft_ms").asDouble(), EPS);
        // np.percentile([100, 140], 99) = 100 + 0.99 * 40
        assertEquals(139.6, j.get("p99_ttft_ms").asDouble(), EPS);
        assertEquals(10, j.get("p99_tpot_ms").asDouble(), EPS);
        assertEquals(10, j.get("mean_itl_ms").asDouble(), EPS);
        assertEquals(169.6, j.get("p99_e2el_ms").asDouble(), EPS);
        assertEquals(1, j.get("preemptions").asInt());
        assertEquals(0.125, j.get("prefix_cache_hit_rate").asDouble(), EPS);
        assertEquals("[4000,8000]", j.get("setup").get("kv_blocks").toString());
        assertEquals(7, j.get("setup").get("seed").asLong());
        assertEquals("[0.0,50.0,100.0,150.0]", j.get("series").get("time_ms").toString());
        assertEquals("[1,2,2,1]", j.get("series").get("running").toString());
        assertEquals("[0.1,0.25,0.5,0.375]", j.get("series").get("kv_use").toString());
    }

    /** Without --goodput vLLM writes "request_goodput": null; so does collsim. */
    @Test
    void goodputIsNullWithoutTargets() {
        ObjectNode j = LoadView.json(LoadSamples.aggregated(10));
        assertTrue(j.has("request_goodput"));
        assertTrue(j.get("request_goodput").isNull());
        assertFalse(ReportFormat.TABLE.render(LoadView.table(LoadSamples.aggregated(10))).contains("goodput"));
    }

    /** The CSV is one row under the JSON's scalar keys (the setup's among them; lists and nulls are the JSON's). */
    @Test
    void csvIsOneRowOfTheJsonsScalars() {
        String csv = ReportFormat.CSV.render(Json.row("serve", LoadView.json(LoadSamples.disaggregated())));
        String[] lines = csv.split("\n");
        assertEquals(2, lines.length);
        List<String> expected = new ArrayList<>(vllmKeys("99"));
        expected.removeAll(List.of("setup", "series"));
        expected.addAll(List.of("model", "system", "deployment", "engine", "request_overhead_ms", "scheduler", "workload", "gpus", "block_tokens",
                "seed"));
        assertEquals(expected, List.of(lines[0].split(",")));
        assertTrue(lines[1].startsWith("0.18,2,1,2048,8,11.1111,5.5,"), lines[1]);
        List<String> noGoodput = List.of(ReportFormat.CSV.render(Json.row("serve", LoadView.json(LoadSamples.aggregated(10)))).split("\n")[0].split(","));
        assertFalse(noGoodput.contains("request_goodput"));
    }

    @Test
    void sectionsAreCentredAsPythonCentresThem() {
        assertEquals("============ Serving Benchmark Result ============", LoadView.section(" Serving Benchmark Result ", '='));
        assertEquals("---------------Time to First Token----------------", LoadView.section("Time to First Token", '-'));
        assertEquals("-----Time per Output Token (excl. 1st token)------", LoadView.section("Time per Output Token (excl. 1st token)", '-'));
    }

    /** The text table is vLLM's printed summary: its labels in its order and sections, values with two decimals. */
    @Test
    void tableIsVllmsPrintedLayout() {
        String text = ReportFormat.TABLE.render(LoadView.table(LoadSamples.disaggregated(), new double[] {90, 99}));
        List<String> labels = text.lines().filter(l -> l.startsWith(" ")).map(l -> l.substring(1, 51).strip()).toList();
        assertEquals(List.of("============ Serving Benchmark Result ============", "Successful requests:", "Failed requests:",
                "Benchmark duration (s):", "Total input tokens:", "Total generated tokens:", "Request throughput (req/s):",
                "Request goodput (req/s):", "Output token throughput (tok/s):", "Total token throughput (tok/s):",
                "Output token throughput per GPU (tok/s):", "Total token throughput per GPU (tok/s):", "Output tokens/s per user:",
                "---------------Time to First Token----------------", "Mean TTFT (ms):", "Median TTFT (ms):", "P90 TTFT (ms):", "P99 TTFT (ms):",
                "-----Time per Output Token (excl. 1st token)------", "Mean TPOT (ms):", "Median TPOT (ms):", "P90 TPOT (ms):", "P99 TPOT (ms):",
                "---------------Inter-token Latency----------------", "Mean ITL (ms):", "Median ITL (ms):", "P90 ITL (ms):", "P99 ITL (ms):",
                "----------------End-to-end Latency----------------", "Mean E2EL (ms):", "Median E2EL (ms):", "P90 E2EL (ms):", "P99 E2EL (ms):",
                "--------------------Scheduler---------------------", "Preemptions:", "Prefix cache hit rate (%):",
                "=================================================="), labels);
        assertTrue(text.contains("\n Successful requests:                                         2\n"), text);
        assertTrue(text.contains("\n Benchmark duration (s):                                   0.18\n"), text);
        assertTrue(text.contains("\n P99 TTFT (ms):                                          139.60\n"), text);
        assertTrue(text.contains("\n Prefix cache hit rate (%):                               12.50\n"), text);
        assertTrue(text.startsWith("# llama-3-70b on hgx-h100: 1P tp4 + 1D tp4 b64, 8 GPUs; vllm (max_num_seqs=256, max_num_batched_tokens=8192)\n"
                + "# workload: concurrency 2, ISL 1024, OSL 4, 3 requests after 1 warm-up\n"
                + "# KV cache: 4000 / 8000 blocks of 16 tokens per replica; seed 7\n"
                + "# the server's time per request before the scheduler (HTTP, tokenisation, the engine's IPC; --request-overhead): 0.0 ms,"
                + " in every TTFT and E2EL\n"), text);
        String md = ReportFormat.MARKDOWN.render(LoadView.table(LoadSamples.disaggregated()));
        assertTrue(md.contains("| Mean TTFT (ms): | 120.00 |"), md);
    }

    /** The same outcome renders to the same bytes, every format. */
    @Test
    void renderingIsDeterministic() {
        for (LoadOutcome o : List.of(LoadSamples.disaggregated(), LoadSamples.aggregated(3000))) {
            double[] p = {50, 90, 99, 99.9};
            assertEquals(Json.pretty(LoadView.json(o, p)), Json.pretty(LoadView.json(o, p)));
            for (ReportFormat f : ReportFormat.values()) {
                assertEquals(f.render(LoadView.table(o, p)), f.render(LoadView.table(o, p)));
            }
            assertEquals(LoadTrace.json(o), LoadTrace.json(o));
            HtmlReport a = new HtmlReport("load");
            HtmlReport b = new HtmlReport("load");
            LoadHtml.add(a, o, p);
            LoadHtml.add(b, o, p);
            assertEquals(a.render(), b.render());
        }
    }
}
