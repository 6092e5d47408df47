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
    private static final Deployment.Role ONE = new Deployment.Role(Deployment.Kind.AGGREGATED, 1, 1, 1, 1, 1, 256, 0, 0, Overlap.NONE, null);

    private static final double H100 = 80.0 * (1L << 30);
    private static final double B300 = 288.0 * (1L << 30);

    private static SchedulerKnobs padding(Boolean on) {
        return new SchedulerKnobs(null, null, null, null, null, null, null, on, null);
    }

    /**
     * TensorRT-LLM captures 1-31, 32, 64 and 128 without padding by default, so a batch of 40 runs eagerly; with padding
     * (aiconfigurator's deployments) it captures 1, 2, 4, every 8 to 128, then every 64, and a batch of 40 replays 40's graph.
     */
    @Test
    void tensorRtLlmPadsOnlyWhenAsked() {
        EngineScheduler unpadded = EngineScheduler.of(ServingEngine.TRTLLM, SchedulerKnobs.DEFAULTS, ONE, H100);
        assertFalse(unpadded.padsToGraph());
        assertTrue(Arrays.stream(unpadded.graphSizes()).noneMatch(b -> b == 40));
        EngineScheduler padded = EngineScheduler.of(ServingEngine.TRTLLM, padding(true), ONE, H100);
        assertTrue(padded.padsToGraph());
        assertArrayEquals(new int[] {1, 2, 4, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 104, 112, 120, 128, 192, 256}, padded.graphSizes());
        assertTrue(EngineScheduler.of(ServingEngine.SGLANG, SchedulerKnobs.DEFAULTS, ONE, H100).padsToGraph());
        EngineScheduler sglangOff = EngineScheduler.of(ServingEngine.SGLANG, padding(false), ONE, H100);
        assertFalse(sglangOff.padsToGraph());
        assertEquals(0, EngineScheduler.of(ServingEngine.TRTLLM_TENSORRT, padding(true), ONE, H100).graphSizes().length,
                "TensorRT-LLM's TensorRT backend captures no graphs by default: nothing to pad to");
    }

    /**
     * SGLang sizes its prompt chunks and captured batches by the GPU's memory (server_args): 8,192 tokens and batches to
     * 256 (512 at TP 4 and more) below 160 GiB, 16,384 and 512 from it.
     */
    @Test
    void sglangSizesItsChunksAndGraphsByTheGpusMemory() {
        Deployment.Role tp8 = new Deployment.Role(Deployment.Kind.AGGREGATED, 1, 8, 1, 1, 1, 1024, 0, 0, Overlap.NONE, null);
        Deployment.Role tp1 = new Deployment.Role(Deployment.Kind.AGGREGATED, 1, 1, 1, 1, 1, 1024, 0, 0, Overlap.NONE, null);
        EngineScheduler h100 = EngineScheduler.of(ServingEngine.SGLANG, SchedulerKnobs.DEFAULTS, tp1, H100);
        assertEquals(8192, h100.chunkSize());
        assertEquals(256, largest(h100));
        EngineScheduler h100tp8 = EngineScheduler.of(ServingEngine.SGLANG, SchedulerKnobs.DEFAULTS, tp8, H100);
        assertEquals(512, largest(h100tp8));
        assertTrue(Arrays.stream(h100tp8.graphSizes()).anyMatch(b -> b == 272) && Arrays.stream(h100tp8.graphSizes()).noneMatch(b -> b == 264),
                "every 16 above 256");
        EngineScheduler b300 = EngineScheduler.of(ServingEngine.SGLANG, SchedulerKnobs.DEFAULTS, tp1, B300);
        assertEquals(16384, b300.chunkSize());
        assertEquals(512, largest(b300));
        assertEquals(256, largest(EngineScheduler.of(ServingEngine.SGLANG, SchedulerKnobs.DEFAULTS, ONE, B300)), "a batch of 256 caps them");
    }

    private static int largest(EngineScheduler s) {
        return s.graphSizes()[s.graphSizes().length - 1];
    }
}
