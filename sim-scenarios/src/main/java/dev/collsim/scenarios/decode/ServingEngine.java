package dev.collsim.scenarios.decode;

import dev.collsim.core.input.InputException;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * {@code --engine}: the serving engine whose decode step is simulated. An engine decides which of a
 * layer's operations run as kernels of their own and which it fuses into a neighbour, how fast its
 * host issues kernels when they are not replayed from a CUDA graph, what its host does between two
 * steps (scheduling, sampling's bookkeeping, output processing) and whether that host work overlaps
 * the GPU's step, and the KV cache's element type when none is named. docs/decode.md says, per
 * model family, which kernels each engine fuses and where the host figures come from.
 *
 * <p>What each engine does is a set of {@link Trait}s and its {@link Host} loop.
 */
public enum ServingEngine {
    /** vLLM V1 (0.8 and later): torch.compile'd layers, FlashAttention/FlashInfer, custom all-reduce, CUDA graphs. */
    VLLM("vllm", EnumSet.of(Trait.COMPILES_QUANTIZE_INTO_ELEMENTWISE, Trait.SPLIT_KV_ATTENTION, Trait.CUSTOM_ALL_REDUCE, Trait.CUDA_GRAPHS,
            Trait.FLASHINFER_FP4_GEMM), new Host(9.0, 2_000, 10, false), 14.2),
    /** vLLM V0 (0.7 and earlier): the same kernels, with a host loop that builds every sequence's metadata each step. */
    VLLM_V0("vllm-v0", EnumSet.of(Trait.SPLIT_KV_ATTENTION, Trait.CUSTOM_ALL_REDUCE, Trait.CUDA_GRAPHS, Trait.FLASHINFER_FP4_GEMM),
            new Host(9.0, 6_100, 110, false), 14.2),
    /**
     * SGLang: FlashInfer/FlashAttention-3 kernels, shared-experts fusion, and the overlap scheduler. Its prefill runs the
     * model's Python modules eagerly (piecewise CUDA graphs, the default from 2026 for some models, are not modelled: SGLang
     * turns them off for DP attention, expert parallelism, multimodal and hybrid models and disaggregated prefill).
     */
    SGLANG("sglang", EnumSet.of(Trait.FUSES_SHARED_EXPERTS, Trait.SPLIT_KV_ATTENTION, Trait.CUSTOM_ALL_REDUCE, Trait.CUDA_GRAPHS,
            Trait.FLASHINFER_FP4_GEMM), new Host(50.0, 1_500, 10, true), 71.9),
    /**
     * TensorRT-LLM's PyTorch backend (the default from 1.0, trtllm-serve's {@code --backend pytorch}): fused attention
     * preprocessing, all-reduce + norm fusion, overlap scheduler; Python modules issue the kernels of a context phase.
     */
    TRTLLM("trtllm", EnumSet.of(Trait.FUSES_ROPE_AND_CACHE_WRITE, Trait.FUSES_NORM_INTO_ALL_REDUCE, Trait.FUSES_ACTIVATION,
            Trait.FUSES_QUANTIZE, Trait.SPLIT_KV_ATTENTION, Trait.XQA_DECODE_ATTENTION, Trait.CUSTOM_ALL_REDUCE,
            Trait.FP8_CACHE_WITH_FP8_WEIGHTS, Trait.CUDA_GRAPHS), new Host(35.0, 1_000, 5, true), 46.9),
    /**
     * TensorRT-LLM's TensorRT backend (engines built by trtllm-build and run by its C++ runtime, the only backend before
     * 0.17; {@code --backend tensorrt}): the plugins' fused attention preprocessing, gated activation and quantisation, its
     * own all-reduce, kernels enqueued from C++ and no CUDA graphs unless asked; no all-reduce + norm fusion (reduce_fusion
     * came with 0.12).
     */
    TRTLLM_TENSORRT("trtllm-tensorrt", EnumSet.of(Trait.FUSES_ROPE_AND_CACHE_WRITE, Trait.FUSES_ACTIVATION, Trait.FUSES_QUANTIZE,
            Trait.SPLIT_KV_ATTENTION, Trait.XQA_DECODE_ATTENTION, Trait.CUSTOM_ALL_REDUCE, Trait.FP8_CACHE_WITH_FP8_WEIGHTS),
            new Host(4.0, 1_000, 5, false), 46.9),
    /**
     * LMDeploy's TurboMind (2023): FasterTransformer-style fused kernels launched from C++, without CUDA graphs, NCCL's
     * all-reduce, and the first token from a decode step.
     */
    LMDEPLOY("lmdeploy", EnumSet.of(Trait.FUSES_ROPE_AND_CACHE_WRITE, Trait.FUSES_ACTIVATION, Trait.FUSES_QUANTIZE,
            Trait.FIRST_TOKEN_FROM_DECODE_STEP), new Host(4.0, 800, 100, false), 0);

    /** What an engine does, where engines differ. */
    public enum Trait {
        /** Rotary embedding and the KV-cache write run inside the attention kernel's preprocessing instead of as two kernels. */
        FUSES_ROPE_AND_CACHE_WRITE,
        /** The TP all-reduce adds the residual and applies the next RMSNorm in the same kernel (TensorRT-LLM's all-reduce fusion). */
        FUSES_NORM_INTO_ALL_REDUCE,
        /** The gated activation runs in the gate/up GEMM's epilogue. */
        FUSES_ACTIVATION,
        /** FP8/FP4 activations are quantised in the kernel before the GEMM (norm, activation, all-reduce), not by one of their own. */
        FUSES_QUANTIZE,
        /**
         * torch.compile's Inductor generates the RMSNorms and gated activations with the FP8/FP4 quantisation of their output
         * in the same kernel (vLLM V1, whose default compilation leaves them to Inductor); after attention, and in the fused
         * MoE's own kernels, the quantisation stays a kernel of its own.
         */
        COMPILES_QUANTIZE_INTO_ELEMENTWISE,
        /** Shared experts run as extra experts inside the routed experts' grouped GEMM (SGLang's shared-experts fusion). */
        FUSES_SHARED_EXPERTS,
        /**
         * Decode attention splits each sequence's context over several CTAs (FlashDecoding, as FlashInfer,
         * FlashAttention and FlashMLA do), so even one sequence fills the GPU; without it one CTA per
         * sequence and query head streams the whole context.
         */
        SPLIT_KV_ATTENTION,
        /**
         * Grouped-query decode before Blackwell runs TensorRT-LLM's XQA kernel, whose multi-block mode splits a context
         * into far fewer CTAs than would fill the GPU: one per 128 tokens, at most the square root of 8 x that many
         * (decoderXQAImplCommon.h, computeMultiBlockCount: "otherwise the final reduction may dominate").
         */
        XQA_DECODE_ATTENTION,
        /** The engine's own one-shot/two-shot all-reduce inside an NVLink domain (vLLM's rule, {@code --allreduce auto}); else NCCL's. */
        CUSTOM_ALL_REDUCE,
        /** With FP8 or FP4 weights the KV cache is FP8 by default (the quantised checkpoints TensorRT-LLM serves); else BF16. */
        FP8_CACHE_WITH_FP8_WEIGHTS,
        /** Decode steps are replayed from CUDA graphs. */
        CUDA_GRAPHS,
        /**
         * NVFP4 linear layers run the CUTLASS FP4 GEMM of FlashInfer (or vLLM's own, cutlass_scaled_fp4_mm) in 128 x 128 tiles,
         * not TensorRT-LLM's, whose 128 x 256 tiles run a K loop at a third of the rate at decode's few tokens (aiconfigurator's
         * B200 tables: 1 x 2048 x 16384 takes 17 us under vLLM and SGLang, 37 us under TensorRT-LLM).
         */
        FLASHINFER_FP4_GEMM,
        /**
         * The prompt but its last token is prefilled, and the last token goes through the decoder with the running batch,
         * in the same iteration: that decode step makes the first token (FasterTransformer's design, as TurboMind v0.1
         * ran it: LlamaBatch::ContextDecode leaves the last input token out, "will process with decoder later").
         */
        FIRST_TOKEN_FROM_DECODE_STEP
    }

    /**
     * The engine's host loop.
     *
     * @param eagerLaunchUs     host time to issue one kernel without CUDA graphs (for the PyTorch engines the Python of the
     *                          model's modules and the framework's dispatch between two kernels; C++ for TurboMind and
     *                          TensorRT-LLM's TensorRT backend)
     * @param stepUs            host time per step that does not depend on the batch
     * @param perSequenceUs     host time per step and sequence in the batch
     * @param overlapped        the next step is scheduled while the GPU runs this one, so only host time beyond the
     *                          GPU's step is exposed
     */
    public record Host(double eagerLaunchUs, double stepUs, double perSequenceUs, boolean overlapped) {}

    /**
     * The time a request takes at the server beyond its forwards, as a client sees it in its TTFT: HTTP, the chat template
     * and tokenisation, the IPC between the engine's front end and its scheduler, the scheduler's turn, and the first
     * token's way back. Fitted per engine by tools/fit_request_overhead.py: the median of measured minus simulated TTFT over
     * the calibration's client-side runs with at most 8 requests in flight and prompts of at most 2,048 tokens (vLLM: 51
     * runs; SGLang: 18; TensorRT-LLM: 2, one user's LLMPerf runs). Engines without a client-side run take the front end they
     * are served by (vLLM V0 vLLM's, the TensorRT backend trtllm-serve's); LMDeploy has none: 0. SGLang's 72 ms is far more
     * than its front end alone (about 7 ms with a mock model, tt-sglang-plugin's profile): the rest is time the forwards
     * as simulated leave out, seen on DeepSeek-R1, DeepSeek-V3 and Qwen3.5 alike (docs/model.md).
     */
    private final double requestMs;

    private final String label;
    final boolean fusesRopeAndCacheWrite;
    final boolean fusesNormIntoAllReduce;
    final boolean fusesActivation;
    final boolean fusesQuantize;
    private final boolean compilesQuantizeIntoElementwise;
    final boolean fusesSharedExperts;
    final boolean splitsKv;
    final boolean xqaDecode;
    final boolean customAllReduce;
    final double eagerLaunchUs;
    final double hostStepUs;
    final double hostPerSequenceUs;
    final boolean hostOverlapped;
    final boolean fp8CacheWithFp8Weights;
    final boolean cudaGraphsByDefault;
    private final boolean firstTokenFromDecodeStep;
    private final boolean flashInferFp4Gemm;

    ServingEngine(String label, Set<Trait> traits, Host host, double requestMs) {
        this.label = label;
        this.requestMs = requestMs;
        this.fusesRopeAndCacheWrite = traits.contains(Trait.FUSES_ROPE_AND_CACHE_WRITE);
        this.fusesNormIntoAllReduce = traits.contains(Trait.FUSES_NORM_INTO_ALL_REDUCE);
        this.fusesActivation = traits.contains(Trait.FUSES_ACTIVATION);
        this.fusesQuantize = traits.contains(Trait.FUSES_QUANTIZE);
        this.compilesQuantizeIntoElementwise = traits.contains(Trait.COMPILES_QUANTIZE_INTO_ELEMENTWISE);
        this.fusesSharedExperts = traits.contains(Trait.FUSES_SHARED_EXPERTS);
        this.splitsKv = traits.contains(Trait.SPLIT_KV_ATTENTION);
        this.xqaDecode = traits.contains(Trait.XQA_DECODE_ATTENTION);
        this.customAllReduce = traits.contains(Trait.CUSTOM_ALL_REDUCE);
        this.fp8CacheWithFp8Weights = traits.contains(Trait.FP8_CACHE_WITH_FP8_WEIGHTS);
        this.cudaGraphsByDefault = traits.contains(Trait.CUDA_GRAPHS);
        this.firstTokenFromDecodeStep = traits.contains(Trait.FIRST_TOKEN_FROM_DECODE_STEP);
        this.flashInferFp4Gemm = traits.contains(Trait.FLASHINFER_FP4_GEMM);
        this.eagerLaunchUs = host.eagerLaunchUs();
        this.hostStepUs = host.stepUs();
        this.hostPerSequenceUs = host.perSequenceUs();
        this.hostOverlapped = host.overlapped();
    }

    /**
     * Refuses an engine that has no ROCm build for an AMD Instinct system: vLLM (V1 and V0) and SGLang run on ROCm, their
     * kernels from AMD's AITER library where they use them; TensorRT-LLM and LMDeploy's TurboMind are CUDA only.
     */
    void requireRocm(String system) {
        if (this != VLLM && this != VLLM_V0 && this != SGLANG) {
            throw new InputException("--engine " + label + ": " + system + " is an AMD Instinct system, which " + label
                    + " does not run on (CUDA only); expected vllm, vllm-v0 or sglang");
        }
    }

    /** The engine {@code --engine} defaults to: the one whose kernel set fits the calibration best (docs/decode.md). */
    public static final ServingEngine DEFAULT = VLLM;

    public boolean cudaGraphsByDefault() {
        return cudaGraphsByDefault;
    }

    public String label() {
        return label;
    }

    /** Whether a prompt's last token is left to the decode step that makes the first token ({@link Trait#FIRST_TOKEN_FROM_DECODE_STEP}). */
    public boolean firstTokenFromDecodeStep() {
        return firstTokenFromDecodeStep;
    }

    /** Whether the gated activation runs in the GEMM's epilogue rather than as a kernel of its own. */
    public boolean fusesActivation() {
        return fusesActivation;
    }

    /** Whether activations are quantised inside the kernel before rather than by a kernel of their own. */
    public boolean fusesQuantize() {
        return fusesQuantize;
    }

    /** Whether an RMSNorm's or a gated activation's output is quantised in that kernel ({@link Trait#COMPILES_QUANTIZE_INTO_ELEMENTWISE}). */
    public boolean compilesQuantizeIntoElementwise() {
        return compilesQuantizeIntoElementwise;
    }

    /** Whether NVFP4 linear layers run FlashInfer's CUTLASS FP4 GEMM rather than TensorRT-LLM's ({@link Trait#FLASHINFER_FP4_GEMM}). */
    public boolean flashInferFp4Gemm() {
        return flashInferFp4Gemm;
    }

    /** The time a request takes at the server beyond its forwards, as a client sees it in its TTFT, in ms. */
    public double requestMs() {
        return requestMs;
    }

    /** The host's time between two steps of {@code batch} sequences, in us. */
    public double hostMicros(int batch) {
        return hostStepUs + hostPerSequenceUs * batch;
    }

    /** The KV cache's bytes per element for weights in {@code weights}, when {@code --kv-dtype} is auto. */
    public int defaultKvBytes(Precision weights) {
        return weights.quantizesActivations() && fp8CacheWithFp8Weights ? 1 : 2;
    }

    public static ServingEngine fromName(String name) {
        for (ServingEngine e : values()) {
            if (e.label.equals(name.toLowerCase(Locale.ROOT))) {
                return e;
            }
        }
        throw new InputException("--engine '" + name + "': expected " + names());
    }

    public static String names() {
        return Arrays.stream(values()).map(ServingEngine::label).collect(Collectors.joining(", "));
    }
}
