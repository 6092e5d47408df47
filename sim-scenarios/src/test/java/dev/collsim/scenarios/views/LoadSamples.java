package dev.collsim.scenarios.views;

import dev.collsim.scenarios.load.Deployment;
import dev.collsim.scenarios.load.Distribution;
import dev.collsim.scenarios.load.LoadOutcome;
import dev.collsim.scenarios.load.LoadOutcome.RequestRecord;
import dev.collsim.scenarios.load.LoadOutcome.Sample;
import dev.collsim.scenarios.load.LoadOutcome.StepRecord;
import java.util.ArrayList;
import java.util.List;

/**
 * Load runs built by hand, for the views' tests (no simulation): the summary computed from the requests as
 * vLLM's benchmark computes it, the series and steps as a run would record them.
 */
public final class LoadSamples {
    private static final double NAN = Double.NaN;

    private LoadSamples() {}

    /**
     * One prefill instance (0) and one decode instance (1): request 0 warms up, 1 and 2 are measured, 3 cannot
     * run; listed out of id order, as the trace must not rely on.
     */
    public static LoadOutcome disaggregated() {
        List<RequestRecord> requests = List.of(
                new RequestRecord(2, 1, 0, 20, 100, 150, 152, 160, 190, 1024, 4, 256, 1, true, false),
                new RequestRecord(0, 1, 0, 0, 0, 50, 52, 60, 90, 1024, 4, 0, 0, false, false),
                new RequestRecord(1, 1, 0, 10, 50, 100, 103, 110, 140, 1024, 4, 0, 0, true, false),
                new RequestRecord(3, -1, -1, 30, NAN, NAN, NAN, NAN, NAN, 200_000, 4, 0, 0, true, true));
        List<StepRecord> steps = List.of(new StepRecord(1, Deployment.Kind.DECODE, 60, 70, 2, 0, 2),
                new StepRecord(0, Deployment.Kind.PREFILL, 0, 50, 0, 1024, 0), new StepRecord(0, Deployment.Kind.PREFILL, 50, 100, 0, 1024, 0),
                new StepRecord(0, Deployment.Kind.PREFILL, 100, 150, 0, 768, 0), new StepRecord(1, Deployment.Kind.DECODE, 52, 60, 1, 0, 1));
        List<Sample> series = List.of(new Sample(0, 1, 3, 0.1, 0), new Sample(50, 2, 2, 0.25, 0), new Sample(100, 2, 1, 0.5, 1),
                new Sample(150, 1, 0, 0.375, 1));
        LoadOutcome.Setup setup = new LoadOutcome.Setup("llama-3-70b", "hgx-h100", "1P tp4 + 1D tp4 b64", "vllm", 0,
                "max_num_seqs=256, max_num_batched_tokens=8192", "concurrency 2, ISL 1024, OSL 4, 3 requests after 1 warm-up", 8,
                List.of(4000, 8000), 16, 7);
        return new LoadOutcome(setup, summary(requests, 8, 5.5), requests, series, steps);
    }

    /**
     * {@code n} requests on one aggregated instance, one after another, their times spread (a TTFT of 10 to
     * 10 + n / 100 ms): enough values for the charts to thin.
     */
    public static LoadOutcome aggregated(int n) {
        List<RequestRecord> requests = new ArrayList<>();
        List<StepRecord> steps = new ArrayList<>();
        List<Sample> series = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            double arrival = 20.0 * i;
            double ttft = 10 + (i * 7919 % n) / 100.0;
            double first = arrival + ttft;
            requests.add(new RequestRecord(i, 0, -1, arrival, arrival + ttft / 2, first, NAN, first, first + 9, 512, 10, 0, 0, true, false));
            steps.add(new StepRecord(0, Deployment.Kind.AGGREGATED, arrival + ttft / 2, first, 0, 512, 0));
            steps.add(new StepRecord(0, Deployment.Kind.AGGREGATED, first, first + 9, 1, 0, 1));
            series.add(new Sample(arrival, 1, i % 3, (i % 10) / 10.0, 0));
        }
        LoadOutcome.Setup setup = new LoadOutcome.Setup("llama-3-8b", "hgx-h100", "tp1 b64", "vllm", 2.0, "max_num_seqs=256", "rate 50/s", 1,
                List.of(10_000), 16, 1);
        return new LoadOutcome(setup, summary(requests, 1, null), requests, series, steps);
    }

    /** The figures of the measured requests as vLLM's calculate_metrics makes them; each request's tokens evenly spaced after its first. */
    static LoadOutcome.Summary summary(List<RequestRecord> requests, int gpus, Double goodput) {
        List<RequestRecord> done = requests.stream().filter(r -> r.measured() && !r.failed()).toList();
        int failed = (int) requests.stream().filter(r -> r.measured() && r.failed()).count();
        double start = done.stream().mapToDouble(RequestRecord::arrivalMs).min().orElse(0);
        double end = done.stream().mapToDouble(RequestRecord::endMs).max().orElse(0);
        double seconds = (end - start) / 1000;
        long in = done.stream().mapToLong(RequestRecord::isl).sum();
        long out = done.stream().mapToLong(RequestRecord::osl).sum();
        double[] tpots = done.stream().mapToDouble(RequestRecord::tpotMs).toArray();
        long[] gaps = done.stream().mapToLong(r -> r.osl() - 1).toArray();
        return new LoadOutcome.Summary(done.size(), failed, seconds, in, out, done.size() / seconds, goodput, out / seconds, (in + out) / seconds,
                gpus, Distribution.of(done.stream().mapToDouble(RequestRecord::ttftMs).toArray()), Distribution.of(tpots),
                Distribution.weighted(tpots, gaps), Distribution.of(done.stream().mapToDouble(RequestRecord::e2elMs).toArray()),
                done.stream().mapToInt(RequestRecord::preemptions).sum(), 0.125,
                done.stream().mapToDouble(RequestRecord::e2elMs).sum() / (end - start));
    }
}
