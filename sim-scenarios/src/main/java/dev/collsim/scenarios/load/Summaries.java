package dev.collsim.scenarios.load;

import java.util.List;

/** A run's benchmark figures over its measured requests, as vLLM's {@code bench serve} computes them. */
final class Summaries {
    private Summaries() {}

    static LoadOutcome.Summary of(List<LoadOutcome.RequestRecord> records, Distribution itl, int gpus, int preemptions, LoadSpec.Goodput goodput,
                                   double meanInSystem) {
        List<LoadOutcome.RequestRecord> measured = records.stream().filter(LoadOutcome.RequestRecord::measured).toList();
        List<LoadOutcome.RequestRecord> done = measured.stream().filter(r -> !r.failed()).toList();
        double start = done.stream().mapToDouble(LoadOutcome.RequestRecord::arrivalMs).min().orElse(0);
        double end = done.stream().mapToDouble(LoadOutcome.RequestRecord::endMs).max().orElse(0);
        double durationS = Math.max(0, end - start) / 1000;
        long in = done.stream().mapToLong(LoadOutcome.RequestRecord::isl).sum();
        long out = done.stream().mapToLong(LoadOutcome.RequestRecord::osl).sum();
        long cached = done.stream().mapToLong(LoadOutcome.RequestRecord::cachedTokens).sum();
        Double good = goodput == null ? null : durationS > 0 ? done.stream().filter(goodput::met).count() / durationS : 0.0;
        double per = durationS > 0 ? 1 / durationS : 0;
        return new LoadOutcome.Summary(done.size(), measured.size() - done.size(), durationS, in, out, done.size() * per, good, out * per,
                (in + out) * per, gpus, Distribution.of(done.stream().mapToDouble(LoadOutcome.RequestRecord::ttftMs).toArray()),
                Distribution.of(done.stream().filter(r -> r.osl() > 1).mapToDouble(LoadOutcome.RequestRecord::tpotMs).toArray()), itl,
                Distribution.of(done.stream().mapToDouble(LoadOutcome.RequestRecord::e2elMs).toArray()), preemptions,
                in == 0 ? 0 : (double) cached / in, meanInSystem);
    }
}
