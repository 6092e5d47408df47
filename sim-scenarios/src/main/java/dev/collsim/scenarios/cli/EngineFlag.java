package dev.collsim.scenarios.cli;

import dev.collsim.scenarios.decode.ServingEngine;
import picocli.CommandLine.Option;

/**
 * {@code --engine}, declared once: in {@link EngineOptions} for the commands that run steps, and in
 * validate, where leaving it out means each measured row's own engine, so picocli holds no default.
 */
final class EngineFlag {
    /** The engine a step follows when none is given: the one that fits the calibration best. */
    static final String DEFAULT = "vllm";

    @Option(names = "--engine", paramLabel = "NAME",
            description = "the serving engine whose kernels and host loop the step follows: vllm, vllm-v0, sglang, trtllm (its PyTorch backend), trtllm-tensorrt (its TensorRT backend) or lmdeploy"
                    + " (default: " + DEFAULT + ", the one that fits the calibration best)")
    String name;

    boolean given() {
        return name != null;
    }

    /** The engine named, or the default. */
    ServingEngine orDefault() {
        return ServingEngine.fromName(name == null ? DEFAULT : name);
    }

    /** The engine named, or null where the command has its own answer (validate: each row's framework). */
    ServingEngine forced() {
        return name == null ? null : ServingEngine.fromName(name);
    }
}
