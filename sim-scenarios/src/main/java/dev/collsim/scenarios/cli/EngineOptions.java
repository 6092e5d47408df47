package dev.collsim.scenarios.cli;

import dev.collsim.scenarios.decode.EngineSetup;
import dev.collsim.scenarios.decode.Precision;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code --engine}, {@code --kv-dtype} and {@code --overlap-scheduler}, shared by decode, prefill,
 * serve and compare: whose kernels and host loop a step follows, and the choices a user makes of it.
 * The commands that report a time to first token add {@link RequestOverheadFlag} to {@link #setup()}.
 */
final class EngineOptions {
    @Mixin
    EngineFlag engine;

    @Option(names = "--kv-dtype", paramLabel = "TYPE", defaultValue = "auto",
            description = "the KV cache's elements: bf16, fp8, or auto for the engine's default (BF16; FP8 with FP8 weights under trtllm)")
    String kvDtype;

    @Option(names = "--overlap-scheduler", paramLabel = "auto|on|off", defaultValue = "auto",
            description = "the host prepares the next step while the GPU runs this one (SGLang's and TensorRT-LLM's overlap"
                    + " scheduler, vLLM's --async-scheduling); auto: as the engine does by default (default: ${DEFAULT-VALUE})")
    String overlapScheduler;

    EngineSetup setup() {
        return new EngineSetup(engine.orDefault(), kvCache(), overlapScheduler(), null);
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
