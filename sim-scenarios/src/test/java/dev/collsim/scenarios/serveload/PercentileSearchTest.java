package dev.collsim.scenarios.serveload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.scenarios.decode.DecodeSystem;
import dev.collsim.scenarios.decode.EngineSetup;
import dev.collsim.scenarios.decode.ModelConfig;
import dev.collsim.scenarios.decode.Precision;
import dev.collsim.scenarios.load.Deployment;
import dev.collsim.scenarios.load.LoadOutcome;
import dev.collsim.scenarios.load.LoadSimulation;
import dev.collsim.scenarios.load.LoadSpec;
import dev.collsim.scenarios.load.Router;
import dev.collsim.scenarios.load.SchedulerKnobs;
import dev.collsim.scenarios.load.workload.Lengths;
import dev.collsim.scenarios.load.workload.WorkloadBuilder;
import dev.collsim.scenarios.serve.KvTransfer;
import dev.collsim.scenarios.serve.ServingPlan;
import dev.collsim.scenarios.serve.ServingPlan.Mode;
import dev.collsim.scenarios.serve.ServingPlan.Run;
import dev.collsim.scenarios.serve.ServingSearch;
import dev.collsim.scenarios.serve.ServingSpec;
import dev.collsim.scenarios.serve.Slo;
import java.util.List;
import org.junit.jupiter.api.Test;

class PercentileSearchTest {
    private static final ModelConfig LLAMA_8B = ModelConfig.load("llama-3-8b");
    private static final DecodeSystem HGX = DecodeSystem.preset("hgx-h100");

    private static ServingSpec spec(Slo ttft, Slo itl) {
        return new ServingSpec(LLAMA_8B, List.of(HGX), 8, 2048, 256, ttft, itl, null, Precision.BF16, EngineSetup.DEFAULT,
                KvTransfer.AFTER_PREFILL);
    }

    private static Run run(double perUser, double perGpu) {
        return new Run("s", Mode.AGGREGATED, "tp1 b8", 1, 1, 1, 1, perUser, perGpu, true, false);
    }

    @Test
    void theFrontierIsTheRunsNoOtherBeatsOnBothAxes() {
        List<Run> marked = PercentileSearch.markFrontier(List.of(run(10, 100), run(20, 80), run(15, 70), run(20, 80), run(5, 100)));
        assertEquals(List.of(true, true, false, true, false), marked.stream().map(Run::onFrontier).toList());
    }

    /** Below saturation a deployment serves what arrives: over the measured arrivals, output tokens/s are the rate times OSL. */
    @Test
    void theSteadyThroughputOfAnUnsaturatedDeploymentIsItsOfferedLoad() {
        double rate = 20;
        LoadSpec run = new LoadSpec(LLAMA_8B, HGX, Precision.BF16, EngineSetup.DEFAULT, Deployment.parse("tp1 b64"),
                new WorkloadBuilder().rate(rate).requests(2200).warmup(200).seed(0).isl(new Lengths.Fixed(512)).osl(new Lengths.Fixed(128))
                        .build(8192), SchedulerKnobs.DEFAULTS, Router.byName("round-robin"), KvTransfer.AFTER_PREFILL, null, 0, false);
        LoadOutcome o = LoadSimulation.run(run, (d, t) -> { });
        assertEquals(rate * 128, PercentileSearch.steadyTokensPerS(o), 0.05 * rate * 128);
    }

    @Test
    void eachModesChoiceIsItsBestRunWithinBothTargetsAndTheThreadsChangeNothing() {
        ServingSpec spec = spec(new Slo(99, 1500), new Slo(90, 40));
        ServingPlan one = PercentileSearch.run(spec, 1, (d, t) -> { }, (d, t) -> { });
        ServingPlan two = PercentileSearch.run(spec, 2, (d, t) -> { }, (d, t) -> { });
        assertEquals(one, two);
        List<Run> runs = one.simulated().runs();
        assertFalse(runs.isEmpty());
        for (Run r : runs) {
            assertEquals(r.ttftMs() <= 1500 && r.itlMs() <= 40, r.meets(), r.toString());
        }
        ServingPlan.SystemPlan plan = one.systems().get(0);
        for (Mode mode : Mode.values()) {
            ServingPlan.Deployment chosen = mode == Mode.AGGREGATED ? plan.aggregated() : plan.disaggregated();
            double best = runs.stream().filter(r -> r.mode() == mode && r.meets()).mapToDouble(Run::tokensPerSPerGpu).max().orElse(-1);
            if (chosen == null) {
                assertEquals(-1, best, mode + ": nothing chosen, yet a run met both targets");
                continue;
            }
            assertEquals(best, chosen.tokensPerSPerGpu(), 1e-9, mode.label());
            assertTrue(chosen.ttft().ms() <= 1500 && chosen.itl().ms() <= 40, chosen.toString());
        }
    }

    @Test
    void aTighterTailTargetNeverBuysMoreTokensPerGpu() {
        ServingPlan loose = PercentileSearch.run(spec(new Slo(99, 3000), Slo.mean(50)), 2, (d, t) -> { }, (d, t) -> { });
        ServingPlan tight = PercentileSearch.run(spec(new Slo(99, 300), Slo.mean(50)), 2, (d, t) -> { }, (d, t) -> { });
        ServingPlan.Deployment l = loose.systems().get(0).best();
        ServingPlan.Deployment t = tight.systems().get(0).best();
        assertNotNull(l);
        if (t != null) {
            assertTrue(t.tokensPerSPerGpu() <= l.tokensPerSPerGpu() * 1.001, t + " against " + l);
        }
    }

    @Test
    void aPlanAtMeanTargetsIsTheEstimatesAlone() {
        ServingPlan mean = ServingSearch.run(spec(Slo.mean(1500), Slo.mean(40)), 2);
        assertNull(mean.simulated());
        assertFalse(spec(Slo.mean(1500), Slo.mean(40)).atPercentiles());
        assertTrue(spec(Slo.mean(1500), new Slo(90, 40)).atPercentiles());
    }
}
