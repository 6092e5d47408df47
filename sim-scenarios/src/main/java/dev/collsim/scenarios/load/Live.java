package dev.collsim.scenarios.load;

import dev.collsim.scenarios.load.workload.RequestSpec;

/** A request while it runs: how much of it is computed, and its times so far (ms; NaN until they happen). */
final class Live {
    final RequestSpec spec;
    final boolean measured;
    /** Tokens to have in the cache before the next output token: the prompt, or after a preemption the prompt and the output so far. */
    int promptTokens;
    /** Tokens in the KV cache (computed, found in the prefix cache, or handed over). */
    int kvTokens;
    int generated;
    int blocks;
    int cachedTokens;
    int preemptions;
    int instance = -1;
    int prefillInstance = -1;
    double arrivalMs = Double.NaN;
    double scheduledMs = Double.NaN;
    double prefillEndMs = Double.NaN;
    double kvArrivedMs = Double.NaN;
    double firstTokenMs = Double.NaN;
    double lastTokenMs = Double.NaN;
    double endMs = Double.NaN;
    boolean failed;
    /** In a forward that has not ended: a pipelined prefill instance's next forward leaves it out. */
    boolean inFlight;

    Live(RequestSpec spec, boolean measured) {
        this.spec = spec;
        this.measured = measured;
        this.promptTokens = spec.isl();
    }

    LoadOutcome.RequestRecord record() {
        return new LoadOutcome.RequestRecord(spec.id(), instance, prefillInstance, arrivalMs, scheduledMs, prefillEndMs, kvArrivedMs,
                firstTokenMs, endMs, spec.isl(), spec.osl(), cachedTokens, preemptions, measured, failed);
    }
}
