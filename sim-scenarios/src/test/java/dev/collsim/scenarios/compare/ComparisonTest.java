package dev.collsim.scenarios.compare;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.core.units.TimeSpan;
import dev.collsim.scenarios.decode.EngineSetup;
import dev.collsim.scenarios.decode.ModelConfig;
import dev.collsim.scenarios.decode.Precision;
import dev.collsim.topologies.systems.SystemPreset;
import java.util.List;
import org.junit.jupiter.api.Test;

class ComparisonTest {
    private static final ModelConfig LLAMA_70B = ModelConfig.load("llama-3-70b");
    private static final List<SystemPreset> HGX_H100 = List.of(SystemPreset.HGX_H100);

    /** An MoE model's replicas are also tried within whole NVLink domains: 73 GPUs of NVL72 racks keep the 72-GPU layouts. */
    @Test
    void aGpuMoreThanARackDoesNotPushTheExpertsAcrossRacks() {
        ModelConfig deepseek = ModelConfig.load("deepseek-v3");
        List<String> layouts = LayoutSearch.candidates(deepseek, SystemPreset.GB200_NVL72, 73, 4096, Precision.FP8, EngineSetup.DEFAULT).stream()
                .map(s -> s.tp() + "/" + s.dp() + "/" + s.ep()).distinct().toList();
        assertTrue(layouts.contains("1/73/73") && layouts.contains("1/72/72"), layouts.toString());
        assertFalse(LayoutSearch.candidates(LLAMA_70B, SystemPreset.GB200_NVL72, 73, 4096, Precision.FP8, EngineSetup.DEFAULT).stream().anyMatch(s -> s.tp() == 1 && s.dp() == 72),
                "dense models keep one replica count per TP and PP");
    }

    /** No frontier point is beaten on both axes by any layout that ran, and the frontier trades one for the other. */
    @Test
    void theFrontierIsNotDominated() {
        List<LayoutSearch.Point> points = LayoutSearch.run(LLAMA_70B, new dev.collsim.scenarios.decode.DecodeSystem.Preset(SystemPreset.HGX_H100, null, java.util.OptionalInt.empty()), 16, 2048, Precision.FP8, 2, EngineSetup.DEFAULT, 50);
        List<LayoutSearch.Point> frontier = LayoutSearch.pareto(points);
        assertFalse(frontier.isEmpty());
        for (LayoutSearch.Point f : frontier) {
            for (LayoutSearch.Point p : points) {
                boolean beaten = p.result().tokensPerSPerGpu() > f.result().tokensPerSPerGpu()
                        && p.result().tokensPerSPerUser() > f.result().tokensPerSPerUser();
                assertFalse(beaten, p.label() + " beats " + f.label());
            }
        }
        for (int i = 1; i < frontier.size(); i++) {
            assertTrue(frontier.get(i).result().tokensPerSPerUser() <= frontier.get(i - 1).result().tokensPerSPerUser());
            assertTrue(frontier.get(i).result().tokensPerSPerGpu() > frontier.get(i - 1).result().tokensPerSPerGpu());
        }
    }

    /**
     * The search ranks by estimates (collectives alone) and simulates in full only what it shows: on
     * Mixtral 8x7B over two HGX H100 nodes, whose two-batch layouts' all-to-alls contend, the
     * frontier and the best are those of simulating every layout in full, point for point.
     */
    @Test
    void theSearchShowsWhatSimulatingEveryLayoutInFullWouldShow() {
        ModelConfig mixtral = ModelConfig.load("mixtral-8x7b");
        var system = new dev.collsim.scenarios.decode.DecodeSystem.Preset(SystemPreset.HGX_H100, null, java.util.OptionalInt.empty());
        List<LayoutSearch.Point> searched = LayoutSearch.run(mixtral, system, 16, 2048, Precision.FP8, 2, EngineSetup.DEFAULT, 20);
        dev.collsim.scenarios.decode.CommModel.Cache cache = new dev.collsim.scenarios.decode.CommModel.Cache();
        List<LayoutSearch.Point> full = new java.util.ArrayList<>();
        for (var spec : LayoutSearch.candidates(mixtral, SystemPreset.HGX_H100, 16, 2048, Precision.FP8, EngineSetup.DEFAULT)) {
            if (dev.collsim.scenarios.decode.DecodeStep.fits(spec)) {
                try {
                    full.add(new LayoutSearch.Point(spec, dev.collsim.scenarios.decode.DecodeStep.run(spec, cache)));
                } catch (dev.collsim.core.input.InputException cannotPlace) {
                    // not a candidate, as in the search
                }
            }
        }
        assertTrue(full.stream().anyMatch(p -> !p.result().setup().contention().isEmpty()), "some layout's collectives contend");
        assertEquals(LayoutSearch.pareto(full), LayoutSearch.pareto(searched));
        assertEquals(LayoutSearch.best(full, 20), LayoutSearch.best(searched, 20));
    }

    /** The winner meets the SLO and nothing that meets it gives more per GPU; a tighter SLO costs throughput. */
    @Test
    void theBestLayoutMeetsTheSlo() {
        Comparison loose = Comparison.run(new CompareSpec(LLAMA_70B, HGX_H100, 16, 2048, Precision.FP8, TimeSpan.ofMicros(100_000), EngineSetup.DEFAULT), 2);
        Comparison tight = Comparison.run(new CompareSpec(LLAMA_70B, HGX_H100, 16, 2048, Precision.FP8, TimeSpan.ofMicros(15_000), EngineSetup.DEFAULT), 2);
        Comparison.Row a = loose.systems().get(0).best();
        Comparison.Row b = tight.systems().get(0).best();
        assertNotNull(a);
        assertNotNull(b);
        assertTrue(a.step().itl().ms() <= 100 && b.step().itl().ms() <= 15);
        assertTrue(b.step().tokensPerSPerGpu() < a.step().tokensPerSPerGpu());
    }

    /** The layouts run on several threads; the answer is the same as on one. */
    @Test
    void threadsDoNotChangeTheAnswer() {
        assertEquals(Comparison.run(new CompareSpec(LLAMA_70B, HGX_H100, 8, 2048, Precision.FP8, TimeSpan.ofMicros(50_000), EngineSetup.DEFAULT), 1),
                Comparison.run(new CompareSpec(LLAMA_70B, HGX_H100, 8, 2048, Precision.FP8, TimeSpan.ofMicros(50_000), EngineSetup.DEFAULT), 2));
    }
}
