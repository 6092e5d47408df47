package dev.collsim.scenarios.cli;

import dev.collsim.scenarios.decode.Engine;
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

    Engine engine() {
        return Engine.fromName(engine);
    }

    /** The KV cache's type, or null for the engine's default. */
    Precision kvCache() {
        return kvDtype.equalsIgnoreCase("auto") ? null : Precision.fromName(kvDtype, "--kv-dtype");
    }
}
