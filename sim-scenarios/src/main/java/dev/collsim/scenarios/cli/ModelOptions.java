package dev.collsim.scenarios.cli;

import dev.collsim.scenarios.decode.ModelConfig;
import dev.collsim.scenarios.decode.Precision;
import picocli.CommandLine.Option;

/** {@code --model} and {@code --dtype}, shared by decode, prefill, serve and compare: which model, in which weights. */
final class ModelOptions {
    @Option(names = "--model", paramLabel = "NAME|config.json", required = true, completionCandidates = Catalogue.Models.class,
            description = "${COMPLETION-CANDIDATES}, or a Hugging Face config.json")
    String name;

    /** Kept as given: compare's error repeats it. */
    @Option(names = "--dtype", paramLabel = "TYPE", defaultValue = "bf16", description = "bf16, fp8 or fp4 weights (default: ${DEFAULT-VALUE})")
    String dtype;

    /** The model, loaded when a command asks, so its errors come where they did. */
    ModelConfig config() {
        return ModelConfig.load(name);
    }

    /** The weights' type. */
    Precision weights() {
        return Precision.fromName(dtype);
    }
}
