package dev.collsim.scenarios.load;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.scenarios.decode.Overlap;
import dev.collsim.scenarios.decode.ServingEngine;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The engines' CUDA-graph capture and padding, as their defaults and {@code --cuda-graph-padding} set them. */
class EngineSchedulerTest {
    private static final Deployment.Role ONE = new Deployment.Role(Deployment.Kind.AGGREGATED, 1, 1, 1, 1, 1, 256, 0, 0, Overlap.NONE);

    private static SchedulerKnobs padding(Boolean on) {
        return new SchedulerKnobs(null, null, null, null, null, null, null, on, null);
    }

    /**
     * TensorRT-LLM captures 1-31, 32, 64 and 128 without padding by default, so a batch of 40 runs eagerly; with padding
     * (aiconfigurator's deployments) it captures 1, 2, 4, every 8 to 128, then every 64, and a batch of 40 replays 40's graph.
     */
    @Test
    void tensorRtLlmPadsOnlyWhenAsked() {
        EngineScheduler unpadded = EngineScheduler.of(ServingEngine.TRTLLM, SchedulerKnobs.DEFAULTS, ONE);
        assertFalse(unpadded.padsToGraph());
        assertTrue(Arrays.stream(unpadded.graphSizes()).noneMatch(b -> b == 40));
        EngineScheduler padded = EngineScheduler.of(ServingEngine.TRTLLM, padding(true), ONE);
        assertTrue(padded.padsToGraph());
        assertArrayEquals(new int[] {1, 2, 4, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 104, 112, 120, 128, 192, 256}, padded.graphSizes());
        assertTrue(EngineScheduler.of(ServingEngine.SGLANG, SchedulerKnobs.DEFAULTS, ONE).padsToGraph());
        EngineScheduler sglangOff = EngineScheduler.of(ServingEngine.SGLANG, padding(false), ONE);
        assertFalse(sglangOff.padsToGraph());
        assertEquals(0, EngineScheduler.of(ServingEngine.TRTLLM_TENSORRT, padding(true), ONE).graphSizes().length,
                "TensorRT-LLM's TensorRT backend captures no graphs by default: nothing to pad to");
    }
}
