package dev.collsim.scenarios.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.core.input.InputException;
import dev.collsim.scenarios.decode.DecodeStep;
import dev.collsim.scenarios.decode.DecodeSystem;
import dev.collsim.scenarios.decode.EngineSetup;
import dev.collsim.scenarios.decode.ModelConfig;
import dev.collsim.scenarios.decode.Overlap;
import dev.collsim.scenarios.decode.Precision;
import dev.collsim.scenarios.views.ServeView;
import java.util.List;
import org.junit.jupiter.api.Test;

class ServingTest {
    private static final ModelConfig LLAMA_8B = ModelConfig.load("llama-3-8b");
    private static final DecodeSystem HGX = DecodeSystem.preset("hgx-h100");

    private static ServingSpec spec(int gpus, int isl, int osl, double ttftMs, double itlMs) {
        return new ServingSpec(LLAMA_8B, List.of(HGX), gpus, isl, osl, Slo.mean(ttftMs), Slo.mean(itlMs), 10.0, Precision.BF16, EngineSetup.DEFAULT,
                KvTransfer.AFTER_PREFILL);
    }

    private static ServingSearch.DecodePoint decodePoint(ServingSpec s, ServingSearch.Instance at, int batch, double itl, double weights) {
        return new ServingSearch.DecodePoint(at, at.spec(s, HGX, batch, s.decodeContext(), Overlap.NONE), itl, weights);
    }

    @Test
    void theQueuesWaitIsPollaczekKhinchinesAndTheSlackItAllowsInvertsIt() {
        assertEquals(0, PrefillQueue.waitMs(0, 100), 1e-12);
        assertEquals(50, PrefillQueue.waitMs(0.5, 100), 1e-12);
        assertEquals(Double.POSITIVE_INFINITY, PrefillQueue.waitMs(1, 100));
        for (double slack : new double[] {1, 30, 400, 5000}) {
            double rho = PrefillQueue.maxUtilization(100, slack);
            assertTrue(rho > 0 && rho < 1);
            assertEquals(slack, PrefillQueue.waitMs(rho, 100), 1e-9 * slack);
        }
        assertEquals(0, PrefillQueue.maxUtilization(100, -5));
    }

    @Test
    void aChunkAddsOnlyWhatItTakesBeyondTheWeightReadsTheStepAlreadyPays() {
        ServingSpec s = spec(8, 2048, 256, 2000, 50);
        ServingSearch.Instance tp1 = new ServingSearch.Instance(1, 1, 1, 1);
        // Chunks as light as the weight reads ride free: every step is the decode step.
        ServingPlan.Deployment free = ServingSearch.aggregatedAt(s, decodePoint(s, tp1, 32, 10, 6), 1024, new double[] {5, 6});
        assertEquals(10, free.itl().ms(), 1e-12);
        assertEquals(10, free.parts().stepWithChunk().ms(), 1e-12);
        // Two chunks of 46 ms each add 40 ms to the step they ride in; a step starts 32 / 256 prompts, 2 x 40 ms each.
        ServingPlan.Deployment heavy = ServingSearch.aggregatedAt(s, decodePoint(s, tp1, 32, 10, 6), 1024, new double[] {46, 46});
        assertEquals(50, heavy.parts().stepWithChunk().ms(), 1e-12);
        assertEquals(10 + 32.0 / 256 * 80, heavy.itl().ms(), 1e-12);
        assertEquals(100, heavy.parts().prefill().ms(), 1e-12);
        double perS = 32 * 1000 / (256 * heavy.itl().ms());
        assertEquals(perS, heavy.load().requestsPerS(), 1e-9);
        double server = s.engine().requestMs();
        assertTrue(server > 0, "vLLM's front end takes time");
        assertEquals(server + heavy.itl().ms() / 2 + PrefillQueue.waitMs(perS * 0.1, 100) + 100, heavy.ttft().ms(), 1e-9);
        ServingSpec direct = new ServingSpec(LLAMA_8B, List.of(HGX), 8, 2048, 256, Slo.mean(2000), Slo.mean(50), 10.0, Precision.BF16,
                EngineSetup.DEFAULT.withRequestOverhead(0.0), KvTransfer.AFTER_PREFILL);
        assertEquals(heavy.ttft().ms() - server,
                ServingSearch.aggregatedAt(direct, decodePoint(direct, tp1, 32, 10, 6), 1024, new double[] {46, 46}).ttft().ms(), 1e-9,
                "the server's time per request is in the TTFT and nowhere else");
        // A batch whose prompts need more than every step: the prefills cannot keep up.
        assertNull(ServingSearch.aggregatedAt(s, decodePoint(s, tp1, 512, 10, 6), 1024, new double[] {500, 500}));
    }

    @Test
    void aDisaggregatedUnitBalancesItsPrefillAndDecodeInstancesWithinTheBudget() {
        ServingSpec s = spec(16, 2048, 256, 1000, 50);
        ServingSearch.Instance one = new ServingSearch.Instance(1, 1, 1, 1);
        ServingSearch.Instance two = new ServingSearch.Instance(2, 1, 1, 1);
        // Prefill: 100 ms a prompt; decode: 64 sequences at 20 ms a step on 2 GPUs = 12.5 requests/s.
        ServingSearch.PrefillPoint p = new ServingSearch.PrefillPoint(one, 1, 100, 5.0, "NVLink");
        ServingSearch.DecodePoint d = decodePoint(s, two, 64, 20, 5);
        ServingPlan.Deployment unit = ServingSearch.pair(s, p, d);
        assertNotNull(unit);
        double slack = 1000 - s.engine().requestMs() - 100 - 5 - 20;
        double cp = PrefillQueue.maxUtilization(100, slack) * 10;
        assertEquals(12.5, d.requestsPerS(256), 1e-12);
        assertTrue(unit.gpus() <= 16);
        assertTrue(unit.ttft().ms() <= 1000 + 1e-9, unit.ttft().ms() + " ms");
        assertEquals(unit.load().requestsPerS() * 256 / unit.gpus(), unit.tokensPerSPerGpu(), 1e-9);
        // No unit within 16 GPUs does better per GPU.
        for (int x = 1; x <= 14; x++) {
            for (int y = 1; x + 2 * y <= 16; y++) {
                assertTrue(Math.min(x * cp, y * 12.5) / (x + 2 * y) <= unit.load().requestsPerS() / unit.gpus() + 1e-9);
            }
        }
        // GPUs for 10 requests/s: enough prefill and decode instances each.
        assertEquals((int) Math.ceil(10 / cp) + 2 * (int) Math.ceil(10 / 12.5), unit.gpusForRate());
        // A target the unloaded prefill already misses leaves nothing.
        assertNull(ServingSearch.pair(spec(16, 2048, 256, 120, 50), p, d));
    }

    @Test
    void bothModesMeetBothTargetsAndAggregatedPaysForItsPrefillsInItsSteps() {
        ServingSpec s = spec(16, 2048, 256, 1500, 40);
        ServingPlan plan = ServingSearch.run(s, 2);
        ServingPlan.SystemPlan hgx = plan.systems().get(0);
        for (ServingPlan.Deployment d : List.of(hgx.aggregated(), hgx.disaggregated())) {
            assertTrue(d.ttft().ms() <= 1500 + 1e-9 && d.itl().ms() <= 40 + 1e-9, d.toString());
            assertTrue(d.gpus() <= 16);
            assertTrue(d.gpusForRate() * d.load().requestsPerS() / d.gpus() >= 10 - 1e-9, d.toString());
        }
        ServingPlan.Deployment agg = hgx.aggregated();
        assertTrue(agg.itl().ms() > agg.parts().decodeStep().ms(), "the prompts' chunks lengthen the mean step");
        assertTrue(agg.parts().stepWithChunk().ms() > agg.itl().ms());
        assertEquals(hgx.disaggregated().itl().ms(), hgx.disaggregated().parts().decodeStep().ms(), 0);
        assertTrue(ServeView.verdict(plan, hgx).startsWith("hgx-h100: "), ServeView.verdict(plan, hgx));
    }

    @Test
    void theChosenDecodeStepIsSimulatedInFull() {
        ServingSpec s = spec(8, 1024, 128, 1000, 30);
        ServingPlan.Deployment d = ServingSearch.run(s, 2).systems().get(0).disaggregated();
        String decode = d.deployment().substring(d.deployment().indexOf("D ") + 2);
        int tp = Integer.parseInt(decode.substring(2, decode.indexOf(' ')));
        int batch = Integer.parseInt(decode.substring(decode.indexOf(" b") + 2));
        ServingSearch.Instance at = new ServingSearch.Instance(tp, 1, 1, 1);
        assertEquals(DecodeStep.run(at.spec(s, HGX, batch, s.decodeContext(), Overlap.NONE)).itl().ms(), d.parts().decodeStep().ms(), 0);
    }

    /** With the room an engine leaves for the KV cache, no decode batch and no prefill forward is planned beyond it. */
    @Test
    void aPlanStaysWithinTheKvCachesRoom() {
        ServingSpec s = spec(8, 2048, 256, 1500, 40);
        long room = 5 * (long) s.decodeContext();
        ServingPlan.SystemPlan hgx = ServingSearch.run(s, 2, layout -> room, (a, b) -> { }).systems().get(0);
        ServingPlan.Deployment agg = hgx.aggregated();
        int batch = Integer.parseInt(agg.deployment().replaceAll(".* b(\\d+).*", "$1"));
        assertTrue(batch * (long) s.decodeContext() <= room, agg.deployment());
        assertNotNull(ServingSearch.run(s, 2).systems().get(0).aggregated());
        assertThrows(InputException.class, () -> ServingSearch.run(s, 2, layout -> 0, (a, b) -> { }), "no room, nothing fits");
    }
}
