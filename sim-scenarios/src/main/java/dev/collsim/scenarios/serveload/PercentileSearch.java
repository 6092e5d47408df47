package dev.collsim.scenarios.serveload;

import dev.collsim.core.input.InputException;
import dev.collsim.core.units.Duration;
import dev.collsim.scenarios.decode.DecodeSystem;
import dev.collsim.scenarios.load.Deployment;
import dev.collsim.scenarios.load.Distribution;
import dev.collsim.scenarios.load.EngineScheduler;
import dev.collsim.scenarios.load.LoadOutcome;
import dev.collsim.scenarios.load.LoadSimulation;
import dev.collsim.scenarios.load.LoadSpec;
import dev.collsim.scenarios.load.Router;
import dev.collsim.scenarios.load.SchedulerKnobs;
import dev.collsim.scenarios.load.workload.Lengths;
import dev.collsim.scenarios.load.workload.WorkloadBuilder;
import dev.collsim.scenarios.serve.ServingPlan;
import dev.collsim.scenarios.serve.ServingPlan.Run;
import dev.collsim.scenarios.serve.ServingPlan.Shortfall;
import dev.collsim.scenarios.serve.ServingSearch;
import dev.collsim.scenarios.serve.ServingSpec;
import dev.collsim.scenarios.serve.Slo;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;

/**
 * A serving plan at percentile targets ({@code --ttft-slo p99:2s}): the estimate's search proposes,
 * load runs decide. A tail has no closed form under chunked prefill, continuous batching and a
 * bounded KV cache, so each candidate the estimate finds within the targets (read as means: a
 * percentile is at least its mean for TTFT, and the pruning below assumes the same of ITL, which is a
 * rule of thumb: pooled ITL's p90 can sit below the mean TPOT) is simulated request by request.
 *
 * <p>For each system and mode, up to {@link #CANDIDATES} candidates are run, most estimated tokens/s per GPU first
 * (one the load simulation refuses, for want of room for its KV cache at the engine's memory share, gives its place to
 * the next). Each
 * runs as an open loop of Poisson arrivals at the rate its estimate allows; if it misses a target,
 * at half that rate, then at three quarters or a quarter (a bisection of the load). The best measured
 * tokens/s per GPU within both targets wins. Once one meets them, candidates whose estimate is below
 * that measured figure are not run: they would have to beat their own estimate. Candidates run in
 * rounds of {@link #ROUND} whatever the threads, so the runs made, and the answer, do not depend on
 * the thread count.
 *
 * <p>Every run is also a point of the throughput-versus-interactivity frontier (output tokens/s per
 * GPU against tokens/s per user, as InferenceX and aiconfigurator draw it).
 */
public final class PercentileSearch {
    /** Requests of one load run that are measured, after a warm-up of as many as the deployment holds at that rate (at least {@link #MIN_WARMUP}). */
    public static final int MEASURED = 1000;
    static final int MIN_WARMUP = 100;
    /** A bound on the warm-up, for a rate and a request's life that would hold more at once. */
    static final int MAX_WARMUP = 20_000;
    /** Candidates simulated at most per system and mode. */
    static final int CANDIDATES = 8;
    /** Candidates simulated at once, fixed so that the runs made do not depend on the threads. */
    static final int ROUND = 4;

    private PercentileSearch() {}

    /**
     * Plans {@code spec} on simulated load runs; {@code estimates} hears the estimate's progress,
     * {@code runs} (done, most) the load runs'.
     */
    public static ServingPlan run(ServingSpec spec, int threads, BiConsumer<Integer, Integer> estimates, BiConsumer<Integer, Integer> runs) {
        List<ServingSearch.Searched> searched = ServingSearch.search(spec, threads, EngineScheduler.room(spec.engine().engine()), estimates);
        int most = spec.systems().size() * 2 * CANDIDATES * 3;
        AtomicInteger done = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, threads));
        try {
            List<ServingPlan.SystemPlan> plans = new ArrayList<>();
            List<Run> all = new ArrayList<>();
            int refused = 0;
            for (int i = 0; i < searched.size(); i++) {
                ServingSearch.Searched s = searched.get(i);
                DecodeSystem where = spec.systems().get(i);
                Decided agg = decide(spec, where, s.system(), s.aggregated(), pool, () -> runs.accept(done.incrementAndGet(), most));
                Decided dis = decide(spec, where, s.system(), s.disaggregated(), pool, () -> runs.accept(done.incrementAndGet(), most));
                plans.add(new ServingPlan.SystemPlan(s.system(), s.fitting(), agg.best, agg.why, dis.best, dis.why));
                List<Run> system = new ArrayList<>(agg.runs);
                system.addAll(dis.runs);
                all.addAll(markFrontier(system));
                refused += agg.refused + dis.refused;
            }
            return ServingPlan.of(spec, plans, new ServingPlan.Simulated(MEASURED, all, refused));
        } finally {
            pool.shutdownNow();
        }
    }

    /** A mode's answer on one system: the deployment chosen (or why none), and the runs made. */
    private record Decided(ServingPlan.Deployment best, Shortfall why, List<Run> runs, int refused) {}

    /** A candidate's runs, or null where the load simulation refused it. */
    private record Tried(ServingPlan.Deployment candidate, List<Run> runs) {
        Run bestMeeting() {
            return runs.stream().filter(Run::meets).max(Comparator.comparingDouble(Run::tokensPerSPerGpu)).orElse(null);
        }
    }

    private static Decided decide(ServingSpec spec, DecodeSystem where, String system, ServingSearch.Ranked ranked, ExecutorService pool,
                                  Runnable ranOne) {
        if (ranked.deployments().isEmpty()) {
            return new Decided(null, ranked.why(), List.of(), 0);
        }
        List<ServingPlan.Deployment> candidates = ranked.deployments();
        List<Run> runs = new ArrayList<>();
        Run best = null;
        ServingPlan.Deployment bestCandidate = null;
        int refused = 0;
        int simulated = 0;
        int next = 0;
        // A refused candidate (the engine's scheduler finds no room for its KV cache) costs one build, not a run: the
        // next in rank takes its place.
        while (next < candidates.size() && simulated < CANDIDATES) {
            double bar = best == null ? 0 : best.tokensPerSPerGpu();
            List<Future<Tried>> round = new ArrayList<>();
            while (next < candidates.size() && round.size() < Math.min(ROUND, CANDIDATES - simulated)
                    && candidates.get(next).tokensPerSPerGpu() > bar) {
                ServingPlan.Deployment c = candidates.get(next++);
                round.add(pool.submit(() -> ladder(spec, where, system, c, ranOne)));
            }
            if (round.isEmpty()) {
                break;
            }
            for (Future<Tried> f : round) {
                Tried t = join(f);
                if (t.runs() == null) {
                    refused++;
                    continue;
                }
                simulated++;
                runs.addAll(t.runs());
                Run r = t.bestMeeting();
                if (r != null && (best == null || r.tokensPerSPerGpu() > best.tokensPerSPerGpu())) {
                    best = r;
                    bestCandidate = t.candidate();
                }
            }
        }
        if (best == null) {
            return new Decided(null, shortfall(spec, runs, refused), runs, refused);
        }
        return new Decided(asDeployment(spec, bestCandidate, best), null, runs, refused);
    }

    /** The candidate at the full rate; missing, at half, then three quarters or a quarter. */
    private static Tried ladder(ServingSpec spec, DecodeSystem where, String system, ServingPlan.Deployment c, Runnable ranOne) {
        List<Run> runs = new ArrayList<>();
        try {
            Run full = runAt(spec, where, system, c, 1, ranOne);
            runs.add(full);
            if (!full.meets()) {
                Run half = runAt(spec, where, system, c, 0.5, ranOne);
                runs.add(half);
                runs.add(runAt(spec, where, system, c, half.meets() ? 0.75 : 0.25, ranOne));
            }
            return new Tried(c, runs);
        } catch (InputException refusedByTheLoadRun) {
            return new Tried(c, null);
        }
    }

    /**
     * One load run of candidate {@code c} at {@code load} times the rate its estimate allows. The warm-up is as many
     * requests as the deployment holds at once at that rate (its estimate's TTFT plus OSL steps of its ITL, times the
     * rate), so that the measured requests meet the queues and batches of a steady state, not of a filling or a draining
     * deployment; the throughput is counted over the measured requests' arrivals for the same reason.
     */
    static Run runAt(ServingSpec spec, DecodeSystem where, String system, ServingPlan.Deployment c, double load, Runnable ranOne) {
        double rate = load * c.load().requestsPerS();
        double lifeMs = c.ttft().ms() + spec.osl() * c.itl().ms();
        int warmup = (int) Math.min(MAX_WARMUP, Math.max(MIN_WARMUP, Math.ceil(rate * lifeMs / 1000)));
        WorkloadBuilder workload = new WorkloadBuilder().rate(rate).requests(warmup + MEASURED).warmup(warmup).seed(0)
                .isl(new Lengths.Fixed(spec.isl())).osl(new Lengths.Fixed(spec.osl()));
        LoadSpec run = new LoadSpec(spec.model(), where, spec.precision(), spec.engine(), Deployment.parse(c.deployment()),
                workload.build(spec.model().maxContext() > 0 ? spec.model().maxContext() : Lengths.MAX_TOKENS), SchedulerKnobs.DEFAULTS,
                Router.byName("round-robin"), spec.kvTransfer(), null, 0, false);
        LoadOutcome o = LoadSimulation.run(run, (d, t) -> { });
        ranOne.run();
        LoadOutcome.Summary s = o.summary();
        double ttft = statistic(spec.ttftSlo(), s.ttft().mean(), s.ttft());
        double itl = statistic(spec.itlSlo(), s.tpot().mean(), s.itl());
        return new Run(system, c.mode(), c.deployment(), load, rate, ttft, itl, s.tokensPerSPerUser(), steadyTokensPerS(o) / s.gpus(),
                ttft <= spec.ttftSloMs() && itl <= spec.itlSloMs() && s.failed() == 0, false);
    }

    /**
     * Output tokens/s from the first measured request's arrival to the last one's, every request's tokens counted where
     * they fall (its first at its first token, the others spread evenly to its end): what the deployment gives at that rate
     * while loaded, without the tail of a run whose arrivals have stopped.
     */
    static double steadyTokensPerS(LoadOutcome o) {
        double from = Double.POSITIVE_INFINITY;
        double to = Double.NEGATIVE_INFINITY;
        for (LoadOutcome.RequestRecord r : o.requests()) {
            if (r.measured()) {
                from = Math.min(from, r.arrivalMs());
                to = Math.max(to, r.arrivalMs());
            }
        }
        if (!(to > from)) {
            return o.summary().outputThroughput();
        }
        double tokens = 0;
        for (LoadOutcome.RequestRecord r : o.requests()) {
            if (r.failed()) {
                continue;
            }
            tokens += r.firstTokenMs() >= from && r.firstTokenMs() <= to ? 1 : 0;
            double life = r.endMs() - r.firstTokenMs();
            if (r.osl() > 1 && life > 0) {
                tokens += (r.osl() - 1) * Math.max(0, Math.min(r.endMs(), to) - Math.max(r.firstTokenMs(), from)) / life;
            }
        }
        return tokens * 1000 / (to - from);
    }

    /** The target's statistic: the mean given (TTFT's mean, or the mean TPOT for ITL), or a percentile of {@code d}. */
    private static double statistic(Slo slo, double mean, Distribution d) {
        return slo.isMean() ? mean : d.percentile(slo.percentile());
    }

    /** The chosen candidate as the plan reports it: its measured load, its estimate's parts. */
    private static ServingPlan.Deployment asDeployment(ServingSpec spec, ServingPlan.Deployment c, Run r) {
        Integer forRate = spec.rate() == null ? null : (int) Math.ceil(spec.rate() / r.ratePerS() - 1e-9) * c.gpus();
        return new ServingPlan.Deployment(c.mode(), c.deployment(), c.gpus(), new ServingPlan.Load(Duration.ofMillis(r.ttftMs()),
                Duration.ofMillis(r.itlMs()), r.tokensPerSPerGpu(), r.ratePerS()), c.parts(), forRate);
    }

    /** Why no candidate met both targets when simulated: the closest ITL, or the best TTFT among runs within the ITL target. */
    private static Shortfall shortfall(ServingSpec spec, List<Run> runs, int refused) {
        if (runs.isEmpty()) {
            return new Shortfall(refused > 0 ? Shortfall.Reason.REFUSED : Shortfall.Reason.NOTHING_FITS, null);
        }
        double bestItl = runs.stream().mapToDouble(Run::itlMs).min().orElseThrow();
        if (bestItl > spec.itlSloMs()) {
            return new Shortfall(Shortfall.Reason.ITL, Duration.ofMillis(bestItl));
        }
        double bestTtft = runs.stream().filter(r -> r.itlMs() <= spec.itlSloMs()).mapToDouble(Run::ttftMs).min().orElseThrow();
        return new Shortfall(Shortfall.Reason.TTFT_WITHIN_ITL, Duration.ofMillis(bestTtft));
    }

    /** The runs, each marked on the frontier where no other run gives both more tokens/s per user and more per GPU. */
    static List<Run> markFrontier(List<Run> runs) {
        List<Run> out = new ArrayList<>();
        for (Run r : runs) {
            boolean beaten = runs.stream().anyMatch(o -> o.tokensPerSPerUser() >= r.tokensPerSPerUser() && o.tokensPerSPerGpu() >= r.tokensPerSPerGpu()
                    && (o.tokensPerSPerUser() > r.tokensPerSPerUser() || o.tokensPerSPerGpu() > r.tokensPerSPerGpu()));
            out.add(new Run(r.system(), r.mode(), r.deployment(), r.load(), r.ratePerS(), r.ttftMs(), r.itlMs(), r.tokensPerSPerUser(),
                    r.tokensPerSPerGpu(), r.meets(), !beaten));
        }
        return out;
    }

    private static <T> T join(Future<T> f) {
        try {
            return f.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new IllegalStateException(e.getCause());
        }
    }
}
