package dev.collsim.scenarios.load;

import dev.collsim.core.input.InputException;
import dev.collsim.scenarios.decode.DecodeStep;
import dev.collsim.scenarios.decode.ServingEngine;
import dev.collsim.scenarios.serve.KvRoom;
import java.util.Locale;
import java.util.stream.IntStream;
import java.util.stream.Stream;

/**
 * An engine's scheduler as it runs by default, with the user's knobs applied: how many sequences a
 * replica runs, how many tokens a step takes, whether prompt chunks ride with decodes, the KV cache's
 * blocks and share of memory, the CUDA graphs it captured, and how it admits requests against the
 * cache. Sources per setting in docs/serving.md ("Engines").
 *
 * @param maxNumSeqs          sequences a replica runs at once
 * @param maxNumBatchedTokens tokens one step takes, prompt and decode together
 * @param chunkSize           prompt tokens of one request a step takes ({@link Integer#MAX_VALUE}: as many as the budget leaves)
 * @param mixed               prompt chunks and decodes run in one forward; else a step is all prefill or all decode,
 *                            prefill first (SGLang without --enable-mixed-chunk)
 * @param blockTokens         tokens per KV-cache block (a page)
 * @param memoryFraction      the share of each GPU's memory the engine takes for weights, buffers and KV cache
 * @param ofFreeMemory        {@code memoryFraction} is a share of what the weights leave free (TensorRT-LLM's
 *                            free_gpu_memory_fraction), not of all memory
 * @param graphSizes          the decode batch sizes captured as CUDA graphs, ascending
 * @param padsToGraph         a step pads its batch up to the next captured size (vLLM, SGLang); else a batch not
 *                            captured runs eagerly (TensorRT-LLM without enable_padding)
 * @param admission           how it admits a request against the cache
 * @param newTokenRatio       under {@link Admission#RESERVE_RATIO}, the share of each running request's remaining output
 *                            kept free for it
 */
public record EngineScheduler(int maxNumSeqs, int maxNumBatchedTokens, int chunkSize, boolean mixed, int blockTokens,
                              double memoryFraction, boolean ofFreeMemory, int[] graphSizes, boolean padsToGraph, Admission admission,
                              double newTokenRatio, SchedulerKnobs.Policy policy, boolean prefixCaching) {
    /** How a scheduler admits requests against its KV cache. */
    public enum Admission {
        /**
         * Admit while the prompt's blocks are free; when a running request's next token finds no block, preempt
         * the request admitted last (its blocks freed, its tokens recomputed later): vLLM V1.
         */
        PREEMPT_ON_OVERFLOW,
        /**
         * Admit while the prompt's blocks fit beside a reserve of every running request's remaining output times
         * new_token_ratio; retract (as preemption) when decoding overflows anyway: SGLang.
         */
        RESERVE_RATIO,
        /** Admit only where the request's whole prompt and output fit beside every running request's: TensorRT-LLM's GUARANTEED_NO_EVICT. */
        GUARANTEED_NO_EVICT
    }

    /** Tokens a TensorRT-LLM KV-cache block holds (tokens_per_block), which its max_num_tokens is a multiple of. */
    public static final int TRTLLM_BLOCK_TOKENS = 32;
    /** SGLang's larger defaults start at GPUs of this much memory (server_args: B200, B300, MI300; not H200). */
    static final double SGLANG_LARGE_GPU_BYTES = 160.0 * (1L << 30);

    /** The KV-cache room of a layout under {@code engine}'s default memory share, as a load run of it would have. */
    public static KvRoom room(ServingEngine engine) {
        EngineScheduler d = defaults(engine, 0, 1); // the memory share is the same on every GPU and TP
        return layout -> DecodeStep.kvTokenCapacity(layout, d.memoryFraction, d.ofFreeMemory);
    }

    /**
     * The engine's defaults for the OpenAI-compatible server on a data-centre GPU of {@code gpuMemoryBytes}, the user's
     * knobs over them.
     */
    static EngineScheduler of(ServingEngine engine, SchedulerKnobs knobs, Deployment.Role role, double gpuMemoryBytes) {
        return of(engine, knobs, role, defaults(engine, gpuMemoryBytes, role.tp()));
    }

    /** The engine's defaults for the OpenAI-compatible server on a data-centre GPU of {@code gpuMemoryBytes}, at TP {@code tp}. */
    private static EngineScheduler defaults(ServingEngine engine, double gpuMemoryBytes, int tp) {
        boolean largeGpu = gpuMemoryBytes >= SGLANG_LARGE_GPU_BYTES;
        return switch (engine) {
            // vLLM V1 arg_utils: 1,024 sequences and 8,192 tokens for the API server on GPUs of 70 GiB or more; blocks of 16;
            // gpu_memory_utilization 0.9 (0.10, 0.11); CUDA graphs (0.11) for 1, 2, 4, by 8 to 256, by 16 to 512; prefix caching on.
            case VLLM, VLLM_V0 -> new EngineScheduler(1024, 8192, Integer.MAX_VALUE, true, 16, 0.9, false, vllmGraphs(512), true,
                    Admission.PREEMPT_ON_OVERFLOW, 0, SchedulerKnobs.Policy.FCFS, true);
            // SGLang server_args: max_prefill_tokens 16,384; chunked_prefill_size and cuda_graph_max_bs by GPU memory (8,192
            // and 256, or 512 at TP 4 and more, below 160 GiB: H100, H200; 16,384 and 512 from it: B200, B300); pages of one
            // token, mem_fraction_static about 0.85, CUDA graphs 1, 2, 4, 8, 12, by 8 to 256, by 16 to 512, radix cache on;
            // new_token_ratio starts at 0.7 (it decays towards 0.1 as decoding goes well: held at its start here).
            case SGLANG -> new EngineScheduler(4096, 16384, largeGpu ? 16384 : 8192, false, 1, 0.85, false,
                    sglangGraphs(largeGpu || tp >= 4 ? 512 : 256), true, Admission.RESERVE_RATIO, 0.7, SchedulerKnobs.Policy.FCFS, true);
            // TensorRT-LLM (PyTorch backend, LLM API args): max_batch_size 2,048, max_num_tokens 8,192, chunked context off,
            // 32 tokens a block, free_gpu_memory_fraction 0.9 (of what the weights leave), CUDA graphs of 1 to 31, 32, 64 and
            // 128 sequences without padding (another batch runs eagerly), GUARANTEED_NO_EVICT.
            case TRTLLM -> new EngineScheduler(2048, 8192, Integer.MAX_VALUE, true, TRTLLM_BLOCK_TOKENS, 0.9, true, trtllmGraphs(), false,
                    Admission.GUARANTEED_NO_EVICT, 0, SchedulerKnobs.Policy.FCFS, true);
            // TensorRT-LLM's TensorRT backend (executor API, gptManagerBenchmark): in-flight batching as the PyTorch backend's
            // limits have it, no CUDA graphs (cuda_graph_mode off by default), KV cache reuse off (enable_kv_cache_reuse).
            case TRTLLM_TENSORRT -> new EngineScheduler(2048, 8192, Integer.MAX_VALUE, true, TRTLLM_BLOCK_TOKENS, 0.9, true, new int[0], false,
                    Admission.GUARANTEED_NO_EVICT, 0, SchedulerKnobs.Policy.FCFS, false);
            // TurboMind: no CUDA graphs; its batch and blocks as vLLM's for want of published defaults of its own.
            case LMDEPLOY -> new EngineScheduler(256, 8192, Integer.MAX_VALUE, true, 64, 0.8, false, new int[0], true, Admission.PREEMPT_ON_OVERFLOW,
                    0, SchedulerKnobs.Policy.FCFS, false);
        };
    }

    private static EngineScheduler of(ServingEngine engine, SchedulerKnobs knobs, Deployment.Role role, EngineScheduler d) {
        int seqs = knobs.maxNumSeqs() != null ? knobs.maxNumSeqs() : role.maxBatch() > 0 ? role.maxBatch() : d.maxNumSeqs;
        if (role.kind() == Deployment.Kind.PREFILL && role.prompts() > 0) {
            seqs = role.prompts();
        }
        int budget = knobs.maxNumBatchedTokens() != null ? knobs.maxNumBatchedTokens() : d.maxNumBatchedTokens;
        int chunk = role.chunk() == Deployment.Role.WHOLE ? Integer.MAX_VALUE
                : role.chunk() > 0 ? role.chunk() : knobs.chunkSize() != null ? positiveOrWhole(knobs.chunkSize()) : d.chunkSize;
        if (role.chunk() > 0 && role.chunk() != Deployment.Role.WHOLE && knobs.maxNumBatchedTokens() == null) {
            // "chunks of N" (serve's plan): a step carries its decodes and a prompt chunk of N.
            budget = role.chunk() + seqs;
        }
        if (budget < 1 || seqs < 1) {
            throw new InputException("--max-num-batched-tokens and --max-num-seqs: expected at least 1");
        }
        int block = knobs.blockTokens() != null ? knobs.blockTokens() : d.blockTokens;
        double fraction = knobs.memoryFraction() != null ? knobs.memoryFraction() : d.memoryFraction;
        boolean pads = knobs.graphPadding() != null ? knobs.graphPadding() : d.padsToGraph;
        // TensorRT-LLM captures another set of sizes, up to its max_batch_size, when it pads (CudaGraphConfig).
        int[] sizes = pads && engine == ServingEngine.TRTLLM ? trtllmPaddedGraphs(seqs) : d.graphSizes;
        int[] graphs = capped(sizes, seqs);
        boolean mixed = knobs.mixedChunk() != null ? knobs.mixedChunk() : d.mixed;
        return new EngineScheduler(seqs, budget, chunk, mixed, block, fraction, d.ofFreeMemory, graphs, pads, d.admission, d.newTokenRatio,
                knobs.policy() != null ? knobs.policy() : d.policy, knobs.prefixCaching() != null ? knobs.prefixCaching() : d.prefixCaching);
    }

    private static int positiveOrWhole(int chunk) {
        return chunk <= 0 ? Integer.MAX_VALUE : chunk;
    }

    /** vLLM 0.11's capture sizes: 1, 2, 4, every multiple of 8 below 256, then every multiple of 16 up to {@code max}. */
    static int[] vllmGraphs(int max) {
        return join(IntStream.of(1, 2, 4), every(8, 8, Math.min(248, max)), every(256, 16, max));
    }

    /** SGLang 0.5's: 1, 2, 4, 8, 12, every multiple of 8 from 16 to 256, then every multiple of 16 up to {@code max}. */
    static int[] sglangGraphs(int max) {
        return join(IntStream.of(1, 2, 4, 8, 12), every(16, 8, Math.min(256, max)), every(272, 16, max));
    }

    /** TensorRT-LLM's: 1 to 31, 32, 64 and 128. A batch it did not capture runs eagerly (no padding by default). */
    static int[] trtllmGraphs() {
        return join(every(1, 1, 32), IntStream.of(64, 128));
    }

    /** TensorRT-LLM's with enable_padding: 1, 2, 4, every multiple of 8 to 128, then every 64 more up to {@code max}. */
    static int[] trtllmPaddedGraphs(int max) {
        return join(IntStream.of(1, 2, 4), every(8, 8, 128), every(192, 64, max));
    }

    /** {@code from}, then every {@code step} more while at most {@code to}. */
    private static IntStream every(int from, int step, int to) {
        return IntStream.iterate(from, b -> b <= to, b -> b + step);
    }

    private static int[] join(IntStream... parts) {
        return Stream.of(parts).flatMapToInt(p -> p).toArray();
    }

    /** The captured sizes a replica of at most {@code seqs} sequences can use. */
    private static int[] capped(int[] sizes, int seqs) {
        return java.util.Arrays.stream(sizes).filter(b -> b <= seqs || b == firstAtLeast(sizes, seqs)).toArray();
    }

    private static int firstAtLeast(int[] sizes, int n) {
        for (int b : sizes) {
            if (b >= n) {
                return b;
            }
        }
        return -1;
    }

    /** In words, for the outputs. */
    public String describe() {
        return String.format(Locale.ROOT, "max_num_seqs=%d, max_num_batched_tokens=%d, chunk=%s, %s, block=%d tokens, memory=%.2f,"
                        + " graphs to %s, %s, %s, prefix caching %s", maxNumSeqs, maxNumBatchedTokens,
                chunkSize == Integer.MAX_VALUE ? "budget" : Integer.toString(chunkSize), mixed ? "mixed prefill+decode" : "prefill steps apart",
                blockTokens, memoryFraction, graphSizes.length == 0 ? "none" : Integer.toString(graphSizes[graphSizes.length - 1]),
                admission.name().toLowerCase(Locale.ROOT).replace('_', '-'), policy.label(), prefixCaching ? "on" : "off");
    }
}
