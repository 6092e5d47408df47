package dev.collsim.scenarios.views;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.scenarios.decode.AllReduceKind;
import dev.collsim.scenarios.decode.DecodeResult;
import dev.collsim.scenarios.decode.DecodeSpec;
import dev.collsim.scenarios.decode.DecodeStep;
import dev.collsim.scenarios.decode.DecodeSystem;
import dev.collsim.scenarios.decode.ModelConfig;
import dev.collsim.scenarios.decode.Overlap;
import dev.collsim.scenarios.decode.Precision;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class DecodeHtmlTest {
    private static DecodeSpec spec(ModelConfig model, int pp, int batch, Overlap overlap) {
        return new DecodeSpec(model, DecodeSystem.preset("hgx-h100"), OptionalInt.empty(), 8, pp, 1, 1, batch, 4096, Precision.BF16,
                AllReduceKind.AUTO, overlap, true);
    }

    /** The report's breakdown partitions the step: its slices, host time and bubbles included, add up to the ITL. */
    @Test
    void theBreakdownPartitionsTheStep() {
        ModelConfig llama = ModelConfig.load("llama-3-70b");
        for (DecodeSpec spec : List.of(spec(llama, 1, 32, Overlap.NONE), spec(llama, 1, 32, Overlap.FUSED),
                spec(llama, 1, 32, Overlap.TWO_BATCH), spec(llama, 2, 64, Overlap.NONE))) {
            DecodeResult r = DecodeStep.run(spec);
            double sum = 0;
            for (var slice : DecodeHtml.breakdown(r).get("series").get(0).get("data")) {
                assertTrue(slice.get("value").asDouble() >= 0, slice.toString());
                sum += slice.get("value").asDouble();
            }
            // Each slice is rounded to the microsecond for its label: the slices add up to the step within a microsecond each.
            assertEquals(r.itl().ms(), sum, 0.0005 * DecodeHtml.breakdown(r).get("series").get(0).get("data").size(), spec.overlap() + " pp " + spec.pp());
        }
    }

    /** DeepSeek's first three layers are dense: the timeline shows the first layer and then MoE layers, so both kinds show. */
    @Test
    void theTimelineShowsMoeLayersWhereTheFirstAreDense() {
        DecodeSpec ds = new DecodeSpec(ModelConfig.load("deepseek-v3"), dev.collsim.scenarios.decode.DecodeSystem.preset("gb200-nvl72"),
                java.util.OptionalInt.empty(), 1, 1, 8, 8, 1, 4096, dev.collsim.scenarios.decode.Precision.FP8,
                dev.collsim.scenarios.decode.AllReduceKind.AUTO, Overlap.NONE, true, dev.collsim.scenarios.decode.ServingEngine.DEFAULT, null, null);
        List<DecodeResult.Layer> shown = DecodeHtml.timelineLayers(DecodeStep.run(ds).layers());
        assertEquals(List.of(0, 3, 4), shown.stream().map(DecodeResult.Layer::index).toList());
        List<DecodeResult.Layer> dense = DecodeHtml.timelineLayers(DecodeStep.run(spec(ModelConfig.load("llama-3-70b"), 1, 32, Overlap.NONE)).layers());
        assertEquals(List.of(0, 1, 2), dense.stream().map(DecodeResult.Layer::index).toList());
    }
}
