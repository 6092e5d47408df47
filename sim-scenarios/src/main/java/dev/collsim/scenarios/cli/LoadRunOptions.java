package dev.collsim.scenarios.cli;

import dev.collsim.core.input.InputException;
import dev.collsim.scenarios.load.LoadSpec;
import dev.collsim.scenarios.load.Router;
import dev.collsim.scenarios.load.SchedulerKnobs;
import dev.collsim.scenarios.views.LoadView;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Option;

/**
 * What {@code serve --deployment} adds to the workload: the deployment itself, the engine scheduler's
 * knobs under vLLM's flag names (SGLang's where only it has one), the router, the goodput targets and
 * the percentiles to report, and the Perfetto trace of the run.
 */
final class LoadRunOptions {
    @Option(names = "--deployment", paramLabel = "SPEC",
            description = "simulate this deployment under load, request by request, in the syntax serve prints:"
                    + " 'tp8 b256', 'tp4 dp2 ep8 b128', '3P tp2 pp4 + 2D tp1 dp16 ep16 b64'")
    String deployment;

    @Option(names = "--max-num-seqs", paramLabel = "N",
            description = "sequences a replica runs at once (vLLM's --max-num-seqs, SGLang's --max-running-requests, TensorRT-LLM's"
                    + " max_batch_size; default: the deployment's batch, else the engine's)")
    Integer maxNumSeqs;

    @Option(names = "--max-num-batched-tokens", paramLabel = "TOKENS", converter = Tokens.class,
            description = "tokens one step takes (vLLM's --max-num-batched-tokens, TensorRT-LLM's max_num_tokens; default: the engine's)")
    Integer maxNumBatchedTokens;

    @Option(names = "--chunked-prefill-size", paramLabel = "TOKENS", converter = Tokens.class,
            description = "prompt tokens of one request a step takes, 0 or less for whole prompts (SGLang's --chunked-prefill-size;"
                    + " default: the engine's)")
    Integer chunkedPrefillSize;

    @Option(names = "--schedule-policy", paramLabel = "fcfs|lpm",
            description = "which waiting request goes first: fcfs, or lpm (SGLang's longest prefix match; default: fcfs)")
    String schedulePolicy;

    @Option(names = "--prefix-caching", paramLabel = "on|off",
            description = "reuse KV-cache blocks earlier requests computed (vLLM's automatic prefix caching, SGLang's radix cache;"
                    + " default: on, as the engines)")
    String prefixCaching;

    @Option(names = "--gpu-memory-utilization", paramLabel = "F",
            description = "share of each GPU's memory the engine takes for weights and KV cache (vLLM's; SGLang's --mem-fraction-static;"
                    + " default: the engine's)")
    Double memoryFraction;

    @Option(names = "--block-size", paramLabel = "TOKENS", converter = Tokens.class, description = "tokens per KV-cache block (default: the engine's: vLLM 16, SGLang 1,"
            + " TensorRT-LLM 32)")
    Integer blockSize;

    @Option(names = "--cuda-graph-padding", paramLabel = "on|off",
            description = "a decode batch pads up to the next captured CUDA graph; off: a batch of a size not captured runs eagerly"
                    + " (TensorRT-LLM's cuda_graph_config.enable_padding, SGLang's --disable-cuda-graph-padding; default: the engine's:"
                    + " on for vLLM and SGLang, off for TensorRT-LLM)")
    String graphPadding;

    @Option(names = "--mixed-chunk", paramLabel = "on|off",
            description = "prompt chunks run in the decode steps; off: a step is all prefill or all decode, prefill first"
                    + " (SGLang's --enable-mixed-chunk; default: the engine's: off for SGLang, on for the others)")
    String mixedChunk;

    @Option(names = "--router", paramLabel = "NAME", defaultValue = "round-robin",
            description = "how a request picks an instance and a DP replica: round-robin, least-loaded or kv-aware (Dynamo's)"
                    + " (default: ${DEFAULT-VALUE})")
    String router;

    @Option(names = "--goodput", paramLabel = "METRIC:MS", split = " |,", splitSynopsisLabel = " ",
            description = "targets a request must meet to count in the goodput (DistServe's), e.g. 'ttft:2000 tpot:50'; metrics ttft,"
                    + " tpot, e2el in ms, as vllm bench serve's --goodput")
    List<String> goodput;

    @Option(names = "--percentiles", paramLabel = "P,...", split = ",",
            description = "the percentiles to report, e.g. 50,90,99 (vllm bench serve's --metric-percentiles; default: 99)")
    List<Double> percentiles;

    @OutputFile(endings = ".json")
    @Option(names = "--perfetto", paramLabel = "FILE.json",
            description = "also write the run as a Perfetto (Chrome trace-event) JSON file: a track per instance (its steps) and per"
                    + " request (queue, prefill, KV move, decode)")
    Path perfetto;

    SchedulerKnobs knobs() {
        if (maxNumSeqs != null && maxNumSeqs < 1) {
            throw new InputException("--max-num-seqs " + maxNumSeqs + ": expected at least 1 sequence");
        }
        if (maxNumBatchedTokens != null && maxNumBatchedTokens < 1) {
            throw new InputException("--max-num-batched-tokens " + maxNumBatchedTokens + ": expected at least 1 token");
        }
        if (memoryFraction != null && !(memoryFraction > 0 && memoryFraction <= 1)) {
            throw new InputException("--gpu-memory-utilization " + memoryFraction + ": expected a share above 0 and at most 1, e.g. 0.9");
        }
        if (blockSize != null && !(blockSize >= 1 && blockSize <= 1024)) {
            throw new InputException("--block-size " + blockSize + ": expected 1 to 1024 tokens a block");
        }
        SchedulerKnobs.Policy policy = null;
        if (schedulePolicy != null) {
            policy = Arrays.stream(SchedulerKnobs.Policy.values()).filter(p -> p.label().equalsIgnoreCase(schedulePolicy.trim())).findFirst()
                    .orElseThrow(() -> new InputException("--schedule-policy '" + schedulePolicy + "': expected fcfs or lpm"));
        }
        Boolean caching = prefixCaching == null ? null : Flags.onOff("--prefix-caching", prefixCaching);
        Boolean padding = graphPadding == null ? null : Flags.onOff("--cuda-graph-padding", graphPadding);
        Boolean mixed = mixedChunk == null ? null : Flags.onOff("--mixed-chunk", mixedChunk);
        return new SchedulerKnobs(maxNumSeqs, maxNumBatchedTokens, chunkedPrefillSize, policy, caching, memoryFraction, blockSize, padding, mixed);
    }

    Router router() {
        return Router.byName(router);
    }

    /** The goodput targets, or null when none were given. */
    LoadSpec.Goodput goodput() {
        if (goodput == null) {
            return null;
        }
        Double ttft = null;
        Double tpot = null;
        Double e2el = null;
        for (String item : goodput) {
            if (item.isBlank()) {
                continue;
            }
            String[] kv = item.split(":", -1);
            double ms = kv.length == 2 ? number(kv[1]) : Double.NaN;
            if (!(ms > 0)) {
                throw new InputException("--goodput '" + item + "': expected METRIC:MS with a time above 0 ms, e.g. ttft:2000");
            }
            switch (kv[0].trim().toLowerCase(Locale.ROOT)) {
                case "ttft" -> ttft = ms;
                case "tpot" -> tpot = ms;
                case "e2el" -> e2el = ms;
                default -> throw new InputException("--goodput '" + item + "': the metric is ttft, tpot or e2el, as vllm bench serve's");
            }
        }
        if (ttft == null && tpot == null && e2el == null) {
            throw new InputException("--goodput: expected at least one METRIC:MS, e.g. 'ttft:2000 tpot:50'");
        }
        return new LoadSpec.Goodput(ttft, tpot, e2el);
    }

    double[] percentiles() {
        if (percentiles == null) {
            return LoadView.defaultPercentiles();
        }
        for (Double p : percentiles) {
            if (p == null || !(p > 0 && p < 100)) {
                throw new InputException("--percentiles " + p + ": expected percentiles above 0 and below 100, e.g. 50,90,99");
            }
        }
        return percentiles.stream().mapToDouble(Double::doubleValue).distinct().sorted().toArray();
    }

    private static double number(String text) {
        try {
            return Double.parseDouble(text.trim());
        } catch (NumberFormatException e) {
            return Double.NaN;
        }
    }
}
