package dev.collsim.scenarios.cli;

import dev.collsim.scenarios.decode.ModelConfig;
import dev.collsim.scenarios.decode.Precision;
import picocli.CommandLine.Option;

/** {@code --model} and {@code --dtype}, shared by decode, prefill, serve and compare: which model, in which weights. */
final class ModelOptions {
    @Option(names = "--model", paramLabel = "NAME|config.json", required = true, completionCandidates = Catalogue.Models.class,
            description = "${COMPLETION-CANDIDATES}, or a Hugging Face config.json")
    String name;

    @Option(names = "--dtype", paramLabel = "TYPE",
            description = "bf16, fp8, fp4 (NVFP4), mxfp4 or int4 (MXFP4 or INT4 routed experts, the rest BF16) weights (default: the"
                    + " checkpoint's own, as its config.json's quantization_config says: fp8 for DeepSeek-V3 and R1, mxfp4 for gpt-oss;"
                    + " bf16 for the others)")
    String dtype;

    /** The model, loaded when a command asks, so its errors come where they did. */
    ModelConfig config() {
        return ModelConfig.load(name);
    }

    /** The weights' type: as given, or the checkpoint's. */
    Precision weights() {
        return dtype == null ? config().weights() : Precision.fromName(dtype);
    }
}
