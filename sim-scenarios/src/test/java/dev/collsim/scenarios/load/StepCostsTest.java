package dev.collsim.scenarios.load;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.scenarios.decode.CommModel;
import dev.collsim.scenarios.decode.DecodeSpec;
import dev.collsim.scenarios.decode.DecodeStep;
import dev.collsim.scenarios.decode.DecodeSystem;
import dev.collsim.scenarios.decode.EngineSetup;
import dev.collsim.scenarios.decode.ModelConfig;
import dev.collsim.scenarios.decode.Overlap;
import dev.collsim.scenarios.decode.Precision;
import dev.collsim.scenarios.decode.Prefill;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The grid's interpolation against steps simulated in full at the same content. A decode step is
 * linear in its context, so it is exact; a prefill forward is smooth in its tokens for a dense model
 * (within 2 %), but a MoE model's grouped GEMMs pad each expert's rows to the kernel's tile, a
 * staircase in tokens that the grid's nodes 2^(1/4) apart average over (within 3 %).
 */
class StepCostsTest {
    @Test
    void interpolatedStepsMatchSimulatedOnes() {
        for (String[] layout : new String[][] {{"llama-3-70b", "hgx-h100", "8", "1", "1", "0.02"}, {"deepseek-v3", "gb200-nvl72", "1", "8", "8", "0.03"}}) {
            ModelConfig m = ModelConfig.load(layout[0]);
            DecodeSpec spec = EngineSetup.DEFAULT.layout(m, DecodeSystem.preset(layout[1]), Integer.parseInt(layout[2]), 1,
                    Integer.parseInt(layout[4]), Integer.parseInt(layout[3]), 1, 1, m.weights(), Overlap.NONE);
            CommModel.Cache cache = new CommModel.Cache();
            int[] graphs = EngineScheduler.vllmGraphs(512);
            StepCosts costs = new StepCosts(spec, graphs, true, cache);
            SplittableRandom random = new SplittableRandom(42);
            double worstDecode = 0;
            double worstPrefill = 0;
            for (int k = 0; k < 12; k++) {
                int batch = graphs[random.nextInt(graphs.length)];
                int context = 100 + random.nextInt(30_000);
                double simulated = DecodeStep.runInBlockPool(spec.withTokens(batch, context), cache).itl().ms();
                worstDecode = Math.max(worstDecode, Math.abs(costs.decodeMs(batch, context) / simulated - 1));
                int tokens = 20 + random.nextInt(12_000);
                int cached = random.nextInt(20_000);
                double forward = Prefill.forwardCost(spec, tokens, cached, cache).gpuMs();
                double interpolated = costs.prefillGpuMs(new StepCosts.Piece[] {new StepCosts.Piece(tokens, cached)});
                worstPrefill = Math.max(worstPrefill, Math.abs(interpolated / forward - 1));
            }
            assertTrue(worstDecode < 1e-6, layout[0] + ": worst decode error " + worstDecode);
            assertTrue(worstPrefill < Double.parseDouble(layout[5]), layout[0] + ": worst prefill error " + worstPrefill);
        }
    }
}
