package dev.collsim.scenarios.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.scenarios.decode.EngineSetup;
import dev.collsim.scenarios.decode.ExpertParallel;
import dev.collsim.scenarios.decode.ServingEngine;
import dev.collsim.scenarios.decode.Speculation;
import dev.collsim.scenarios.load.workload.Workload;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;
import umontreal.ssj.randvar.ExponentialGen;
import umontreal.ssj.rng.MRG32k3a;

class LoadSimulationTest {
    private static final SchedulerKnobs ONE_AT_A_TIME = new SchedulerKnobs(1, null, null, null, null, null, null, null, null);

    /** One request alone: its time in the server, a prefill of its prompt and its only token. */
    private static double serviceMs(int isl) {
        LoadOutcome o = Loads.run(Loads.spec("llama-3-8b", "hgx-h100", "tp1", ServingEngine.VLLM, Loads.closed(1, 3, isl, 1, 0), ONE_AT_A_TIME));
        double s = o.requests().get(0).e2elMs();
        for (LoadOutcome.RequestRecord r : o.requests()) {
            assertEquals(s, r.e2elMs(), 1e-9, "every request of one fixed size takes the same time alone");
        }
        return s;
    }

    private static double[] poisson(double ratePerMs, int n, long seed) {
        MRG32k3a stream = new MRG32k3a();
        stream.setSeed(new long[] {seed, 12345, 12345, 12345, 12345, 12345});
        ExponentialGen gaps = new ExponentialGen(stream, ratePerMs);
        double[] out = new double[n];
        double t = 0;
        for (int i = 0; i < n; i++) {
            t += gaps.nextDouble();
            out[i] = t;
        }
        return out;
    }

    /** M/D/1: Pollaczek-Khinchine's mean wait rho S / (2 (1 - rho)) over 100,000 requests, within 3 %. */
    @Test
    void oneServerOfFixedServiceWaitsAsPollaczekKhinchineSays() {
        int isl = 512;
        double s = serviceMs(isl);
        for (double rho : new double[] {0.5, 0.8}) {
            double[] arrivals = poisson(rho / s, 100_000, 7);
            LoadOutcome o = Loads.run(Loads.spec("llama-3-8b", "hgx-h100", "tp1", ServingEngine.VLLM, Loads.open(arrivals, isl, 1, 0), ONE_AT_A_TIME));
            double wait = o.requests().stream().mapToDouble(r -> r.scheduledMs() - r.arrivalMs()).average().orElseThrow();
            double theory = rho * s / (2 * (1 - rho));
            assertEquals(theory, wait, 0.03 * theory, "rho " + rho + ": service " + s + " ms");
            littlesLaw(o);
        }
    }

    /**
     * Little's law: the mean number in the deployment (from its queues) is the throughput times the mean time in it, from
     * the scheduler's first sight of a request (the server's time per request before it is not in the queues).
     */
    static void littlesLaw(LoadOutcome o) {
        List<LoadOutcome.RequestRecord> done = o.requests().stream().filter(r -> !r.failed()).toList();
        double span = done.stream().mapToDouble(LoadOutcome.RequestRecord::endMs).max().orElseThrow();
        double lambda = done.size() / span;
        double w = done.stream().mapToDouble(LoadOutcome.RequestRecord::e2elMs).average().orElseThrow() - o.setup().requestMs();
        assertEquals(lambda * w, o.summary().meanInSystem(), 0.01 * lambda * w, "L = lambda W");
    }

    /**
     * SGLang runs a prompt's chunk in a step of its own, the decodes waiting, unless --enable-mixed-chunk puts them in one
     * forward (as aiconfigurator deploys it); vLLM always mixes.
     */
    @Test
    void sglangMixesPromptChunksIntoDecodeStepsOnlyWhenAsked() {
        for (Boolean mixed : new Boolean[] {null, true}) {
            SchedulerKnobs knobs = new SchedulerKnobs(null, null, null, null, null, null, null, null, mixed);
            LoadSpec s = Loads.spec("llama-3-8b", "hgx-h100", "tp1", ServingEngine.SGLANG, Loads.closed(8, 40, 1500, 200, 0), knobs);
            LoadSpec spec = new LoadSpec(s.model(), s.system(), s.precision(), s.engine(), s.deployment(), s.workload(), knobs, s.router(),
                    s.kvTransfer(), null, 0, true);
            long both = Loads.run(spec).steps().stream().filter(x -> x.decodes() > 0 && x.prefillTokens() > 0).count();
            if (mixed == null) {
                assertEquals(0, both, "SGLang's default: a step is all prefill or all decode");
            } else {
                assertTrue(both >= 5, "steps with decodes and a prompt chunk: " + both);
            }
        }
    }

    /** Within each phase (the warm-up, then the measured requests) exactly N are in flight until the last is sent. */
    @Test
    void aClosedLoopKeepsExactlyNInFlight() {
        for (ServingEngine engine : new ServingEngine[] {ServingEngine.VLLM, ServingEngine.SGLANG, ServingEngine.TRTLLM}) {
            int n = 24;
            LoadOutcome o = Loads.run(Loads.spec("llama-3-8b", "hgx-h100", "tp1", engine, Loads.closed(n, 120, 700, 60, 48), SchedulerKnobs.DEFAULTS));
            double lastWarmupSent = o.requests().stream().filter(r -> !r.measured()).mapToDouble(LoadOutcome.RequestRecord::arrivalMs).max().orElseThrow();
            double measuredFrom = o.requests().stream().filter(LoadOutcome.RequestRecord::measured).mapToDouble(LoadOutcome.RequestRecord::arrivalMs)
                    .min().orElseThrow();
            double lastSent = o.requests().stream().mapToDouble(LoadOutcome.RequestRecord::arrivalMs).max().orElseThrow();
            long checked = o.series().stream().filter(x -> x.timeMs() < lastWarmupSent || x.timeMs() >= measuredFrom && x.timeMs() < lastSent)
                    .peek(x -> assertEquals(n, x.running() + x.queued(), engine.label() + " at " + x.timeMs() + " ms")).count();
            assertTrue(checked > 10, "samples before the last request of a phase was sent: " + checked);
            assertEquals(72, o.summary().completed());
            littlesLaw(o);
        }
    }

    /**
     * The warm-up is a phase of its own, as AIPerf's and vllm bench serve's: the measured requests are sent when its
     * last request ends, N at once, into an idle engine, so the first of them queue behind each other's prompts.
     */
    @Test
    void theMeasuredRequestsStartTogetherOnceTheWarmupHasEnded() {
        int n = 16;
        LoadOutcome o = Loads.run(Loads.spec("llama-3-8b", "hgx-h100", "tp1", ServingEngine.VLLM, Loads.closed(n, 80, 2000, 50, 32),
                SchedulerKnobs.DEFAULTS));
        double warmupEnd = o.requests().stream().filter(r -> !r.measured()).mapToDouble(LoadOutcome.RequestRecord::endMs).max().orElseThrow();
        List<LoadOutcome.RequestRecord> measured = o.requests().stream().filter(LoadOutcome.RequestRecord::measured)
                .sorted(Comparator.comparingDouble(LoadOutcome.RequestRecord::arrivalMs).thenComparingInt(LoadOutcome.RequestRecord::id)).toList();
        for (int i = 0; i < n; i++) {
            assertEquals(warmupEnd, measured.get(i).arrivalMs(), 1e-9, "measured request " + i + " is sent when the warm-up's last one ends");
        }
        assertTrue(measured.get(n).arrivalMs() > warmupEnd, "the next measured request waits for one of the first to end");
        // Sixteen 2,000-token prompts fill vLLM's steps of 8,192 tokens four at a time: the burst's last first token comes
        // three prefill steps after its first.
        double firstTtft = measured.subList(0, n).stream().mapToDouble(LoadOutcome.RequestRecord::ttftMs).min().orElseThrow();
        double lastTtft = measured.subList(0, n).stream().mapToDouble(LoadOutcome.RequestRecord::ttftMs).max().orElseThrow();
        assertTrue(lastTtft > 3 * firstTtft, "the burst queues: first TTFT " + firstTtft + " ms, last " + lastTtft + " ms");
    }

    /**
     * The server's time per request (HTTP, tokenisation, IPC) comes before the scheduler sees a request: every TTFT and
     * end-to-end latency grows by exactly that time and the engine's schedule does not move, in a closed loop (the next
     * request reaches the scheduler as the last one ends) and in an open one (each reaches it that time after it is sent);
     * the engine's default is its own constant.
     */
    @Test
    void theServersTimePerRequestComesBeforeTheScheduler() {
        double overhead = 25;
        for (Workload w : List.of(Loads.closed(3, 12, 512, 8, 0), Loads.open(new double[] {0, 5, 40, 41, 90, 300}, 512, 8, 0))) {
            LoadOutcome without = Loads.run(Loads.spec("llama-3-8b", "hgx-h100", "tp1", ServingEngine.SGLANG, w, SchedulerKnobs.DEFAULTS));
            LoadOutcome with = Loads.run(Loads.spec("llama-3-8b", "hgx-h100", "tp1", new EngineSetup(ServingEngine.SGLANG, null, null, overhead),
                    w, SchedulerKnobs.DEFAULTS));
            for (int i = 0; i < w.requests().size(); i++) {
                LoadOutcome.RequestRecord a = without.requests().get(i);
                LoadOutcome.RequestRecord b = with.requests().get(i);
                assertEquals(a.ttftMs() + overhead, b.ttftMs(), 1e-6, w.describe() + ": request " + i + "'s TTFT");
                assertEquals(a.e2elMs() + overhead, b.e2elMs(), 1e-6, w.describe() + ": request " + i + "'s end-to-end latency");
                assertEquals(a.scheduledMs() - a.arrivalMs() + overhead, b.scheduledMs() - b.arrivalMs(), 1e-6, w.describe() + ": request " + i);
            }
            assertEquals(without.summary().tpot().mean(), with.summary().tpot().mean(), 1e-9, w.describe() + ": TPOT");
            littlesLaw(with);
        }
        assertEquals(ServingEngine.SGLANG.requestMs(), new EngineSetup(ServingEngine.SGLANG, null, null, null).requestMs());
        assertTrue(ServingEngine.SGLANG.requestMs() > ServingEngine.VLLM.requestMs(), "fitted: SGLang's client-side TTFTs hold more");
    }

    @Test
    void theSameRunTwiceIsTheSame() {
        LoadSpec spec = Loads.spec("llama-3-8b", "hgx-h100", "tp2", ServingEngine.VLLM, Loads.open(poisson(0.02, 300, 3), 900, 80, 10),
                SchedulerKnobs.DEFAULTS);
        assertEquals(Loads.run(spec).requests(), Loads.run(spec).requests());
    }

    /** A KV cache too small for the batch preempts; every request still gets all its tokens, and the queue law still holds. */
    @Test
    void aSmallCachePreemptsAndEveryRequestStillEnds() {
        SchedulerKnobs tight = new SchedulerKnobs(null, null, null, null, null, 0.25, null, null, null);
        LoadOutcome o = Loads.run(Loads.spec("llama-3-8b", "hgx-h100", "tp1", ServingEngine.VLLM, Loads.closed(256, 600, 2000, 400, 0), tight));
        assertTrue(o.summary().preemptions() > 0, "preemptions " + o.summary().preemptions() + " with " + o.setup().kvBlocks() + " blocks");
        assertEquals(600, o.summary().completed());
        o.requests().forEach(r -> assertTrue(r.endMs() > r.firstTokenMs() && r.firstTokenMs() >= r.arrivalMs()));
        littlesLaw(o);
    }

    /** Disaggregated: the first token comes after the prompt, its KV cache's move and a decode step. */
    @Test
    void aDisaggregatedRequestWaitsForItsCache() {
        LoadOutcome o = Loads.run(Loads.spec("llama-3-70b", "hgx-h100", "1P tp8 + 1D tp8", ServingEngine.SGLANG, Loads.closed(16, 80, 3000, 100, 16),
                SchedulerKnobs.DEFAULTS));
        for (LoadOutcome.RequestRecord r : o.requests()) {
            assertTrue(r.prefillEndMs() > r.arrivalMs() && r.kvArrivedMs() > r.prefillEndMs() && r.firstTokenMs() > r.kvArrivedMs(), r.toString());
            assertTrue(r.prefillInstance() == 0 && r.instance() == 1, r.toString());
        }
        littlesLaw(o);
    }

    /**
     * A TP 4 prefill instance and its TP 4 decode peer in one HGX node: the KV cache crosses the GPUs' NVLink ports, which
     * the prefill's all-reduces also use. A move made while the instance prefills the next prompts takes longer than the
     * same move made once it has nothing left to prefill, by less than the contention while both run.
     */
    @Test
    void aKvMoveBesideTheNextForwardsTakesLonger() {
        LoadOutcome o = Loads.run(Loads.spec("llama-3-70b", "hgx-h100", "1P tp4 + 1D tp4", ServingEngine.VLLM,
                Loads.open(new double[8], 4096, 2, 0), SchedulerKnobs.DEFAULTS));
        List<LoadOutcome.RequestRecord> byPrefill = o.requests().stream().sorted(Comparator.comparingDouble(LoadOutcome.RequestRecord::prefillEndMs)).toList();
        LoadOutcome.RequestRecord first = byPrefill.get(0);
        LoadOutcome.RequestRecord last = byPrefill.get(byPrefill.size() - 1);
        double beside = first.kvArrivedMs() - first.prefillEndMs();
        double alone = last.kvArrivedMs() - last.prefillEndMs();
        assertTrue(beside > 1.02 * alone && beside < 1.6 * alone, beside + " ms beside the forwards, " + alone + " ms alone");
        littlesLaw(o);
    }

    /**
     * A prefill instance of four pipeline stages takes the next forward once its first stage is free: alone a prompt
     * waits for all four stages, under a queue of prompts the instance ends about four forwards in the time of one.
     */
    @Test
    void aPipelinedPrefillInstanceHasAForwardInEachStage() {
        double[] together = new double[64];
        LoadOutcome alone = Loads.run(Loads.spec("llama-3-8b", "hgx-h100", "1P tp1 pp4 x1 + 1D tp4 b64", ServingEngine.VLLM,
                Loads.open(new double[] {0}, 2048, 2, 0), SchedulerKnobs.DEFAULTS));
        LoadOutcome queued = Loads.run(Loads.spec("llama-3-8b", "hgx-h100", "1P tp1 pp4 x1 + 1D tp4 b64", ServingEngine.VLLM,
                Loads.open(together, 2048, 2, 0), SchedulerKnobs.DEFAULTS));
        double forward = alone.requests().get(0).prefillEndMs() - alone.requests().get(0).scheduledMs();
        double lastPrompt = queued.requests().stream().mapToDouble(LoadOutcome.RequestRecord::prefillEndMs).max().orElseThrow();
        // 64 prompts, one a forward: 63 quarter-forwards to enter the pipeline, then the last one's whole forward
        assertEquals((63 / 4.0 + 1) * forward, lastPrompt, 0.02 * lastPrompt);
        littlesLaw(queued);
    }

    /** More load, longer waits: TTFT and TPOT grow with the concurrency. */
    @Test
    void latenciesGrowWithLoad() {
        double ttft = 0;
        double tpot = 0;
        for (int c : new int[] {1, 8, 64}) {
            LoadOutcome.Summary s = Loads.run(Loads.spec("llama-3-8b", "hgx-h100", "tp1", ServingEngine.VLLM, Loads.closed(c, 4 * c + 20, 1000, 200, c),
                    SchedulerKnobs.DEFAULTS)).summary();
            assertTrue(s.ttft().mean() > ttft && s.tpot().mean() > tpot, "c" + c + ": " + s.ttft().mean() + " " + s.tpot().mean());
            ttft = s.ttft().mean();
            tpot = s.tpot().mean();
        }
    }

    /**
     * Under speculative decoding each decoding request keeps 1 to K + 1 tokens a step, drawn i.i.d. as Speculation says, their
     * mean the acceptance: 8 requests of 400 output tokens decode 8 x 399 tokens after their first, in about 3,192 / 2.5
     * request-steps. At acceptance 1 every step keeps one token, as plain decoding does: exactly 3,192 request-steps, the
     * same count, only each step longer (it verifies and drafts).
     */
    @Test
    void speculativeStepsKeepTheAcceptanceOfTokensOnAverage() {
        double[] plainStepMs = new double[1];
        long plainSteps = 0;
        for (Speculation spec : new Speculation[] {Speculation.NONE, Speculation.parse("eagle:3", 1.0), Speculation.parse("eagle:3", 2.5)}) {
            LoadSpec s = Loads.spec("llama-3-8b", "hgx-h100", "tp1", new EngineSetup(ServingEngine.VLLM, null, null, 0.0, spec, ExpertParallel.DEFAULT),
                    Loads.closed(8, 8, 256, 400, 0), SchedulerKnobs.DEFAULTS);
            LoadOutcome o = Loads.run(new LoadSpec(s.model(), s.system(), s.precision(), s.engine(), s.deployment(), s.workload(), s.scheduler(),
                    s.router(), s.kvTransfer(), null, 0, true));
            List<LoadOutcome.StepRecord> decodeSteps = o.steps().stream().filter(x -> x.decodes() > 0 && x.prefillTokens() == 0).toList();
            long requestSteps = o.steps().stream().mapToLong(LoadOutcome.StepRecord::decodes).sum();
            double stepMs = decodeSteps.stream().mapToDouble(x -> x.endMs() - x.startMs()).max().orElseThrow();
            assertEquals(8, o.summary().completed());
            if (!spec.speculates()) {
                plainSteps = requestSteps;
                plainStepMs[0] = stepMs;
                assertEquals(8 * 399, requestSteps);
            } else if (spec.acceptance() == 1) {
                assertEquals(plainSteps, requestSteps, "one token a step, as plain decoding");
                assertTrue(stepMs > plainStepMs[0], stepMs + " vs " + plainStepMs[0]);
            } else {
                assertEquals(2.5, 8.0 * 399 / requestSteps, 0.1, requestSteps + " request-steps");
            }
        }
    }

    /** A role's exchange word (a2a: NCCL's all-to-all; deepep: DeepEP's kernels) prints where --deployment reads it back. */
    @Test
    void exchangeWordsPasteBack() {
        Deployment d = Deployment.parse("1P tp1 dp8 ep8 x2 a2a + 1D tp1 dp8 ep8 b32 two-batch deepep");
        assertEquals(ExpertParallel.Exchange.ALLTOALL, d.roles().get(0).exchange());
        assertEquals(ExpertParallel.Exchange.DEEPEP, d.roles().get(1).exchange());
        assertEquals("1P tp1 dp8 ep8 x2 a2a + 1D tp1 dp8 ep8 b32 two-batch deepep", d.label());
        assertEquals(d, Deployment.parse(d.label()));
        assertNull(Deployment.parse("tp1 dp8 ep8 b32").roles().get(0).exchange());
    }
}
