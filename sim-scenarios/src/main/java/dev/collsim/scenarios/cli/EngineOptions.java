package dev.collsim.scenarios.cli;

import dev.collsim.scenarios.decode.ServingEngine;
import dev.collsim.scenarios.decode.EngineSetup;
import dev.collsim.scenarios.decode.Precision;
import picocli.CommandLine.Option;

/** {@code --engine} and {@code --kv-dtype}, shared by decode and compare: whose kernels and host loop a step follows. */
final class EngineOptions {
    @Option(names = "--engine", paramLabel = "NAME", defaultValue = "vllm",
            description = "the serving engine whose kernels and host loop the step follows: vllm, vllm-v0, sglang, trtllm or lmdeploy"
                    + " (default: ${DEFAULT-VALUE}, the one that fits the calibration best)")
    String engine;

    @Option(names = "--kv-dtype", paramLabel = "TYPE", defaultValue = "auto",
            description = "the KV cache's elements: bf16, fp8, or auto for the engine's default (BF16; FP8 with FP8 weights under trtllm)")
    String kvDtype;

    @Option(names = "--overlap-scheduler", paramLabel = "auto|on|off", defaultValue = "auto",
            description = "the host prepares the next step while the GPU runs this one (SGLang's and TensorRT-LLM's overlap"
                    + " scheduler, vLLM's --async-scheduling); auto: as the engine does by default (default: ${DEFAULT-VALUE})")
    String overlapScheduler;

    ServingEngine engine() {
        return ServingEngine.fromName(engine);
    }

    EngineSetup setup() {
        return new EngineSetup(engine(), kvCache(), overlapScheduler());
    }

    /** Whether the host overlaps the GPU's step, or null for the engine's default. */
    Boolean overlapScheduler() {
        return Flags.autoOnOff("--overlap-scheduler", overlapScheduler);
    }

    /** The KV cache's type, or null for the engine's default. */
    Precision kvCache() {
        return kvDtype.equalsIgnoreCase("auto") ? null : Precision.fromName(kvDtype, "--kv-dtype");
    }
}
