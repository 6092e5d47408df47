package dev.collsim.scenarios.cli;

import dev.collsim.scenarios.decode.EngineSetup;
import dev.collsim.scenarios.decode.ExpertParallel;
import dev.collsim.scenarios.decode.Precision;
import dev.collsim.scenarios.decode.Speculation;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code --engine}, {@code --kv-dtype}, {@code --overlap-scheduler}, speculative decoding ({@code --spec}, {@code
 * --accept}) and expert parallelism ({@code --all2all}, {@code --expert-skew}, {@code --eplb}), shared by decode, prefill, serve and compare:
 * whose kernels and host loop a step follows, and the choices a user makes of it.
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

    @Option(names = "--spec", paramLabel = "METHOD:K", defaultValue = "none",
            description = "speculative decoding: mtp:K drafts K tokens a step with the checkpoint's multi-token-prediction layer"
                    + " (DeepSeek, GLM, Qwen3.5, MiniMax-M2), eagle:K with an EAGLE-3 head; each step verifies K + 1 tokens a"
                    + " sequence (default: ${DEFAULT-VALUE})")
    String spec;

    @Option(names = "--accept", paramLabel = "TOKENS",
            description = "with --spec: the tokens a step keeps on average, 1 to K + 1 (the verified token and the accepted drafts;"
                    + " SGLang's and vLLM's accept length)")
    Double accept;

    @Option(names = "--all2all", paramLabel = "KIND", defaultValue = "auto",
            description = "how a MoE layer's tokens reach experts on other EP ranks: allgather (with attention DP every"
                    + " replica's tokens gathered to every rank, the outputs reduce-scattered back: the engines' default), alltoall"
                    + " (each token sent to its top-k experts' ranks by NCCL's all-to-all), deepep (the same by DeepEP's kernels),"
                    + " or auto: allgather for a layout given; serve and compare try it and a sending exchange, DeepEP's where the"
                    + " GPUs have NVLink (default: ${DEFAULT-VALUE})")
    String all2all;

    @Option(names = "--expert-skew", paramLabel = "S", defaultValue = "0",
            description = "what-if: a MoE layer's tokens pick its j-th most popular expert in proportion to j^-S (Zipf), so the"
                    + " busiest EP rank gets more than its share; 0: every expert alike (default: ${DEFAULT-VALUE})")
    double expertSkew;

    @Option(names = "--eplb", paramLabel = "off|R", defaultValue = "off",
            description = "DeepSeek's expert-parallel load balancer places the experts, with R redundant ones (SGLang's"
                    + " --ep-num-redundant-experts; 0: rebalance only); (E + R) must split evenly over --ep (default: ${DEFAULT-VALUE})")
    String eplb;

    EngineSetup setup() {
        return new EngineSetup(engine.orDefault(), kvCache(), overlapScheduler(), null, speculation(), experts());
    }

    /** How tokens reach the experts, fall on them, and the experts on the ranks. */
    ExpertParallel experts() {
        return ExpertParallel.parse(all2all, expertSkew, eplb);
    }

    /** The speculative decoding asked for, or {@link Speculation#NONE}. */
    Speculation speculation() {
        return Speculation.parse(spec, accept);
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
