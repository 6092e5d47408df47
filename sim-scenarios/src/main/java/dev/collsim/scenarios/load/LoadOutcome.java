package dev.collsim.scenarios.load;

import java.util.List;

/**
 * What a load run gives, as a serving benchmark reports it, with every request and the instances'
 * state over time behind it.
 *
 * @param setup    what ran
 * @param summary  the benchmark's figures over the measured requests (warm-up left out)
 * @param requests every request, warm-up included ({@link RequestRecord#measured} tells them apart)
 * @param series   the deployment's state over time, sampled at even intervals
 * @param steps    every step of every instance, for a trace; empty unless asked for
 */
public record LoadOutcome(Setup setup, Summary summary, List<RequestRecord> requests, List<Sample> series, List<StepRecord> steps) {
    /**
     * @param model       the model's name
     * @param system      the system's name
     * @param deployment  the deployment as serve prints it
     * @param engine      the engine's label
     * @param requestMs   the server's time per request beyond the forwards: every request reaches the scheduler that long
     *                    after the client sent it
     * @param scheduler   the scheduler's settings in force, in words (max_num_seqs=256, max_num_batched_tokens=8192, ...)
     * @param workload    the workload in words
     * @param gpus        GPUs of the deployment
     * @param kvBlocks    KV-cache blocks of each replica, by role (agg, or prefill then decode)
     * @param blockTokens tokens per KV-cache block
     * @param seed        the random streams' seed
     */
    public record Setup(String model, String system, String deployment, String engine, double requestMs, String scheduler, String workload, int gpus,
                        List<Integer> kvBlocks, int blockTokens, long seed) {}

    /**
     * vLLM's {@code bench serve} figures. Throughputs over {@code durationS}, from the first measured
     * request's arrival to the last one's end.
     *
     * @param goodput requests/s that met every --goodput target (DistServe's definition), or null where none was given
     * @param tpot    time per output token after the first: (e2el - ttft) / (osl - 1), requests of one output token left out
     * @param itl     every gap between two successive tokens of a request
     * @param meanInSystem requests in the deployment on average over the whole run (warm-up included), as its queues held
     *                     them from the scheduler's first sight: by Little's law the whole run's throughput times its mean
     *                     end-to-end latency less the server's time per request (Setup's requestMs)
     */
    public record Summary(int completed, int failed, double durationS, long inputTokens, long outputTokens, double requestThroughput,
                          Double goodput, double outputThroughput, double totalTokenThroughput, int gpus, Distribution ttft,
                          Distribution tpot, Distribution itl, Distribution e2el, int preemptions, double prefixCacheHitRate,
                          double meanInSystem) {
        public double outputThroughputPerGpu() {
            return outputThroughput / gpus;
        }

        public double totalTokenThroughputPerGpu() {
            return totalTokenThroughput / gpus;
        }

        /** Output tokens/s one user sees: 1000 / mean TPOT. */
        public double tokensPerSPerUser() {
            return tpot.mean() > 0 ? 1000 / tpot.mean() : 0;
        }
    }

    /**
     * One request's life, ms from the run's start; a phase it did not have is NaN (a prefill's KV move in an
     * aggregated run).
     *
     * @param instance        the instance that decoded it (aggregated: the one that ran it)
     * @param prefillInstance the prefill instance that ran its prompt (disaggregated), else -1
     * @param scheduledMs     when its first prefill tokens ran (after the queue)
     * @param prefillEndMs    when its prompt was done
     * @param kvArrivedMs     when its KV cache reached the decode instance (disaggregated)
     * @param cachedTokens    prompt tokens found in the prefix cache, not prefilled again
     * @param failed          it could never run (its prompt and output exceed the KV cache); its times are NaN
     */
    public record RequestRecord(int id, int instance, int prefillInstance, double arrivalMs, double scheduledMs, double prefillEndMs,
                                double kvArrivedMs, double firstTokenMs, double endMs, int isl, int osl, int cachedTokens, int preemptions,
                                boolean measured, boolean failed) {
        public double ttftMs() {
            return firstTokenMs - arrivalMs;
        }

        public double e2elMs() {
            return endMs - arrivalMs;
        }

        public double tpotMs() {
            return osl > 1 ? (endMs - firstTokenMs) / (osl - 1) : Double.NaN;
        }
    }

    /**
     * The deployment at one time: sequences running and requests waiting, summed over instances;
     * the KV cache's use as the fraction of all blocks held; preemptions so far.
     */
    public record Sample(double timeMs, int running, int queued, double kvUse, int preemptions) {}

    /**
     * One step of one instance: its decode sequences (the largest replica's under DP attention) and prefill
     * tokens, and the batch size it ran at (the next captured CUDA graph's, or the batch where it ran eagerly).
     */
    public record StepRecord(int instance, Deployment.Kind kind, double startMs, double endMs, int decodes, int prefillTokens, int graphBatch) {}
}
