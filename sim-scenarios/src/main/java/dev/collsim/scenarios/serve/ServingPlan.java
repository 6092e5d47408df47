package dev.collsim.scenarios.serve;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import dev.collsim.reports.Column;
import dev.collsim.reports.Table;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The answer to a serving question: for each system, the best aggregated and the best disaggregated
 * deployment that meets both targets (or why none does), what each is made of, and a verdict.
 */
public record ServingPlan(String model, int isl, int osl, @JsonProperty("ttft_slo_ms") double ttftSloMs,
                          @JsonProperty("itl_slo_ms") double itlSloMs,
                          @JsonProperty("rate_per_s") @JsonInclude(JsonInclude.Include.NON_NULL) Double rate,
                          int gpus, String dtype, String engine, @JsonProperty("kv_transfer") String kvTransfer,
                          List<SystemPlan> systems, List<String> verdicts) {

    /**
     * One system's two answers; either is null where no deployment meets both targets, and {@code why}
     * says what binds. {@code fitting}: the decode instances and batches that fit in memory and were simulated.
     */
    public record SystemPlan(String system, int fitting, @JsonInclude(JsonInclude.Include.NON_NULL) Deployment aggregated,
                             @JsonProperty("aggregated_why") @JsonInclude(JsonInclude.Include.NON_NULL) String aggregatedWhy,
                             @JsonInclude(JsonInclude.Include.NON_NULL) Deployment disaggregated,
                             @JsonProperty("disaggregated_why") @JsonInclude(JsonInclude.Include.NON_NULL) String disaggregatedWhy,
                             String verdict) {
        /** The better of the two, or null. */
        Deployment best() {
            if (aggregated == null || disaggregated == null) {
                return aggregated == null ? disaggregated : aggregated;
            }
            return disaggregated.tokensPerSPerGpu() > aggregated.tokensPerSPerGpu() ? disaggregated : aggregated;
        }
    }

    /**
     * A deployment at the load where it still meets both targets.
     *
     * @param deployment       what runs where, in words
     * @param gpus             GPUs of the deployment's unit (aggregated: one instance; disaggregated: its xP and yD instances)
     * @param ttftMs           mean time to first token at that load
     * @param itlMs            mean time per output token
     * @param tokensPerSPerGpu output tokens/s per GPU of the unit
     * @param requestsPerS     requests/s the unit serves
     * @param prefillMs        one prefill forward (aggregated: the prompt's chunks inside decode steps, back to back)
     * @param queueMs          the mean wait for it
     * @param kvMs             the KV cache's move that the first token waits for (disaggregated)
     * @param decodeStepMs     a decode step without prefill work
     * @param stepWithChunkMs  a decode step that carries a prefill chunk (aggregated)
     * @param gpusForRate      GPUs for the asked request rate, units rounded up per instance kind; null without {@code --rate}
     */
    public record Deployment(String mode, String deployment, int gpus,
                             @JsonProperty("ttft_ms") double ttftMs, @JsonProperty("itl_ms") double itlMs,
                             @JsonProperty("tokens_per_s_per_gpu") double tokensPerSPerGpu,
                             @JsonProperty("requests_per_s") double requestsPerS,
                             @JsonProperty("prefill_ms") double prefillMs, @JsonProperty("queue_ms") double queueMs,
                             @JsonProperty("kv_ms") double kvMs, @JsonProperty("kv_over") @JsonInclude(JsonInclude.Include.NON_EMPTY) String kvOver,
                             @JsonProperty("decode_step_ms") double decodeStepMs,
                             @JsonProperty("step_with_chunk_ms") double stepWithChunkMs,
                             @JsonProperty("gpus_for_rate") @JsonInclude(JsonInclude.Include.NON_NULL) Integer gpusForRate) {}

    public List<Table> tables() {
        List<Column> columns = new ArrayList<>(List.of(Column.text("system", "system", width()), Column.text("mode", "mode", 15),
                Column.text("deployment", "deployment", 44), Column.number("gpus", "GPUs", "", 5, 0),
                Column.number("ttft_ms", "TTFT", "(ms)", 9, 1), Column.number("itl_ms", "ITL", "(ms)", 8, 2),
                Column.number("tok_s_gpu", "tok/s/GPU", "", 10, 1), Column.number("req_s", "req/s", "", 8, 2)));
        if (rate != null) {
            columns.add(Column.number("gpus_for_rate", "GPUs for rate", "", 14, 0));
        }
        Table plans = new Table("Serving at both targets", columns, Map.of("command", "serve", "model", model));
        plans.note(String.format(Locale.ROOT, "%s, ISL %d, OSL %d, %s, %s's kernels: the most output tokens/s per GPU with a mean TTFT of at"
                + " most %s ms and a mean ITL of at most %s ms, each deployment's unit within %d GPUs%s", model, isl, osl, dtype, engine,
                number(ttftSloMs), number(itlSloMs), gpus, rate == null ? "" : String.format(Locale.ROOT, "; GPUs for %s requests/s", number(rate))));
        Table parts = new Table("What each deployment is made of", List.of(Column.text("system", "system", width()),
                Column.text("mode", "mode", 15), Column.number("prefill_ms", "prefill", "(ms)", 9, 1),
                Column.number("queue_ms", "queue", "(ms)", 8, 1), Column.number("kv_ms", "KV move", "(ms)", 8, 2),
                Column.text("kv_over", "KV over", 12), Column.number("decode_step_ms", "decode step", "(ms)", 12, 2),
                Column.number("step_with_chunk_ms", "with a chunk", "(ms)", 13, 2)), Map.of("command", "serve", "model", model));
        parts.note("TTFT = queue + prefill + KV move (+ one decode step, disaggregated; + half a step, aggregated); the queue is M/D/1 at the"
                + " load the targets allow");
        for (SystemPlan s : systems) {
            add(plans, parts, s.system(), s.aggregated(), s.aggregatedWhy(), "aggregated");
            add(plans, parts, s.system(), s.disaggregated(), s.disaggregatedWhy(), "disaggregated");
        }
        systems.forEach(s -> plans.footnote(s.verdict()));
        verdicts.forEach(plans::footnote);
        return List.of(plans, parts);
    }

    private void add(Table plans, Table parts, String system, Deployment d, String why, String mode) {
        if (d == null) {
            plans.note(system + ", " + mode + ": " + why);
            return;
        }
        List<Object> cells = new ArrayList<>(List.of(system, d.mode(), d.deployment(), d.gpus(), d.ttftMs(), d.itlMs(), d.tokensPerSPerGpu(),
                d.requestsPerS()));
        if (rate != null) {
            cells.add(d.gpusForRate());
        }
        plans.row(cells.toArray());
        parts.row(system, d.mode(), d.prefillMs(), d.queueMs(), d.kvMs(), d.kvOver().isEmpty() ? "-" : d.kvOver(), d.decodeStepMs(),
                d.stepWithChunkMs());
    }

    private int width() {
        return Math.max(14, systems.stream().mapToInt(s -> s.system().length() + 1).max().orElse(0));
    }

    /** A target as written: 2000, 50, 0.5. */
    public static String number(double v) {
        return v == Math.rint(v) ? String.valueOf((long) v) : String.valueOf(v);
    }
}
