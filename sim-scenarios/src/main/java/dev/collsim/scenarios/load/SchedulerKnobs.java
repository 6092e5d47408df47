package dev.collsim.scenarios.load;

/**
 * The scheduler settings a user gave; each null one takes the engine's default ({@link EngineScheduler}).
 *
 * @param maxNumSeqs          sequences a replica runs at once (vLLM max_num_seqs, SGLang max_running_requests,
 *                            TensorRT-LLM max_batch_size)
 * @param maxNumBatchedTokens tokens a step takes (vLLM max_num_batched_tokens, TensorRT-LLM max_num_tokens)
 * @param chunkSize           prefill tokens of one request a step takes (SGLang chunked_prefill_size); 0: whole prompts
 * @param policy              which waiting request goes first
 * @param prefixCaching       whether blocks already cached are reused
 * @param memoryFraction      the share of a GPU's memory the engine takes for weights and KV cache
 * @param blockTokens         tokens per KV-cache block
 * @param graphPadding        whether a decode batch pads up to the next captured CUDA graph (TensorRT-LLM's
 *                            cuda_graph_config.enable_padding; SGLang's --disable-cuda-graph-padding turns it off)
 * @param mixedChunk          whether prompt chunks run in the decode steps (SGLang's --enable-mixed-chunk; vLLM and
 *                            TensorRT-LLM always mix) or a step is all prefill or all decode
 */
public record SchedulerKnobs(Integer maxNumSeqs, Integer maxNumBatchedTokens, Integer chunkSize, Policy policy, Boolean prefixCaching,
                             Double memoryFraction, Integer blockTokens, Boolean graphPadding, Boolean mixedChunk) {
    public static final SchedulerKnobs DEFAULTS = new SchedulerKnobs(null, null, null, null, null, null, null, null, null);

    /** First come first served, or longest prefix match first (SGLang's lpm: the request with most cached blocks). */
    public enum Policy {
        FCFS, LPM;

        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }
}
