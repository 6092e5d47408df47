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
            assertEquals(r.itlMs(), sum, 1e-9, spec.overlap() + " pp " + spec.pp());
        }
    }
}
