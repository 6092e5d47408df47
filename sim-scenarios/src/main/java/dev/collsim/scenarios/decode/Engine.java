package dev.collsim.scenarios.decode;

import dev.collsim.core.input.InputException;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * {@code --engine}: the serving engine whose decode step is simulated. An engine decides which of a
 * layer's operations run as kernels of their own and which it fuses into a neighbour, how fast its
 * host issues kernels when they are not replayed from a CUDA graph, what its host does between two
 * steps (scheduling, sampling's bookkeeping, output processing) and whether that host work overlaps
 * the GPU's step, and the KV cache's element type when none is named. docs/decode.md says, per
 * model family, which kernels each engine fuses and where the host figures come from.
 *
 * @param fusesRopeAndCacheWrite  rotary embedding and the KV-cache write run inside the attention
 *                                kernel's preprocessing (TensorRT-LLM) instead of as two kernels
 * @param fusesNormIntoAllReduce  the TP all-reduce adds the residual and applies the next RMSNorm
 *                                in the same kernel (TensorRT-LLM's all-reduce fusion)
 * @param fusesActivation         the gated activation runs in the gate/up GEMM's epilogue
 * @param fusesQuantize           FP8/FP4 activations are quantised in the kernel before the GEMM
 *                                (norm, activation, all-reduce) instead of by a kernel of their own
 * @param fusesSharedExperts      shared experts run as extra experts inside the routed experts'
 *                                grouped GEMM (SGLang's shared-experts fusion for DeepSeek)
 * @param splitsKv               decode attention splits each sequence's context over several CTAs
 *                                (FlashDecoding, as FlashInfer, FlashAttention and FlashMLA do), so
 *                                even one sequence fills the GPU; without it one CTA per sequence and
 *                                query head streams the whole context
 * @param customAllReduce        the engine's own one-shot/two-shot all-reduce inside an NVLink domain
 *                                (vLLM's rule, {@code --allreduce auto}); without it NCCL's
 * @param eagerLaunchUs           host time to issue one kernel without CUDA graphs (Python and the
 *                                framework's dispatch for the PyTorch engines, C++ for TurboMind)
 * @param hostStepUs              host time per step that does not depend on the batch
 * @param hostPerSequenceUs       host time per step and sequence in the batch
 * @param hostOverlapped          the next step is scheduled while the GPU runs this one, so only host
 *                                time beyond the GPU's step is exposed
 * @param fp8CacheWithFp8Weights  with FP8 or FP4 weights the KV cache is FP8 by default (the
 *                                quantised checkpoints TensorRT-LLM serves); the others keep the
 *                                model's activation type (BF16) unless told
 * @param cudaGraphsByDefault     whether the engine replays decode steps from CUDA graphs
 */
public enum Engine {
    /** vLLM V1 (0.8 and later): torch.compile'd layers, FlashAttention/FlashInfer, custom all-reduce, CUDA graphs. */
    VLLM("vllm", false, false, false, false, false, true, true, 9.0, 2_000, 10, false, false, true),
    /** vLLM V0 (0.7 and earlier): the same kernels, with a host loop that builds every sequence's metadata each step. */
    VLLM_V0("vllm-v0", false, false, false, false, false, true, true, 9.0, 5_000, 200, false, false, true),
    /** SGLang: FlashInfer/FlashAttention-3 kernels, shared-experts fusion, and the overlap scheduler. */
    SGLANG("sglang", false, false, false, false, true, true, true, 9.0, 1_500, 10, true, false, true),
    /** TensorRT-LLM (PyTorch backend): fused attention preprocessing, all-reduce + norm fusion, overlap scheduler. */
    TRTLLM("trtllm", true, true, true, true, false, true, true, 4.0, 1_000, 5, true, true, true),
    /** LMDeploy's TurboMind (2023): FasterTransformer-style fused kernels launched from C++, without CUDA graphs, NCCL's all-reduce. */
    LMDEPLOY("lmdeploy", true, false, true, true, false, false, false, 4.0, 2_000, 150, false, false, false);

    private final String label;
    final boolean fusesRopeAndCacheWrite;
    final boolean fusesNormIntoAllReduce;
    final boolean fusesActivation;
    final boolean fusesQuantize;
    final boolean fusesSharedExperts;
    final boolean splitsKv;
    final boolean customAllReduce;
    final double eagerLaunchUs;
    final double hostStepUs;
    final double hostPerSequenceUs;
    final boolean hostOverlapped;
    final boolean fp8CacheWithFp8Weights;
    final boolean cudaGraphsByDefault;

    Engine(String label, boolean fusesRopeAndCacheWrite, boolean fusesNormIntoAllReduce, boolean fusesActivation, boolean fusesQuantize,
           boolean fusesSharedExperts, boolean splitsKv, boolean customAllReduce, double eagerLaunchUs, double hostStepUs, double hostPerSequenceUs, boolean hostOverlapped,
           boolean fp8CacheWithFp8Weights, boolean cudaGraphsByDefault) {
        this.label = label;
        this.fusesRopeAndCacheWrite = fusesRopeAndCacheWrite;
        this.fusesNormIntoAllReduce = fusesNormIntoAllReduce;
        this.fusesActivation = fusesActivation;
        this.fusesQuantize = fusesQuantize;
        this.fusesSharedExperts = fusesSharedExperts;
        this.splitsKv = splitsKv;
        this.customAllReduce = customAllReduce;
        this.eagerLaunchUs = eagerLaunchUs;
        this.hostStepUs = hostStepUs;
        this.hostPerSequenceUs = hostPerSequenceUs;
        this.hostOverlapped = hostOverlapped;
        this.fp8CacheWithFp8Weights = fp8CacheWithFp8Weights;
        this.cudaGraphsByDefault = cudaGraphsByDefault;
    }

    /** The engine {@code --engine} defaults to: the one whose kernel set fits the calibration best (docs/decode.md). */
    public static final Engine DEFAULT = VLLM;

    public boolean cudaGraphsByDefault() {
        return cudaGraphsByDefault;
    }

    public String label() {
        return label;
    }

    /** The host's time between two steps of {@code batch} sequences, in us. */
    public double hostMicros(int batch) {
        return hostStepUs + hostPerSequenceUs * batch;
    }

    /** The KV cache's bytes per element for weights in {@code weights}, when {@code --kv-dtype} is auto. */
    public int defaultKvBytes(Precision weights) {
        return weights != Precision.BF16 && fp8CacheWithFp8Weights ? 1 : 2;
    }

    public static Engine fromName(String name) {
        for (Engine e : values()) {
            if (e.label.equals(name.toLowerCase(Locale.ROOT))) {
                return e;
            }
        }
        throw new InputException("--engine '" + name + "': expected " + names());
    }

    public static String names() {
        return Arrays.stream(values()).map(Engine::label).collect(Collectors.joining(", "));
    }
}
