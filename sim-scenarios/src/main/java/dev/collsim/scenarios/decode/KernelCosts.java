package dev.collsim.scenarios.decode;

import dev.collsim.core.nccl.NcclArch;
import dev.collsim.topologies.catalog.GpuModel;

/**
 * What one kernel of the decode step takes on a GPU. Every kernel pays a fixed time that no amount
 * of bandwidth shortens (the gap between two kernels of a CUDA graph, its prologue, the fill and
 * drain of its memory pipeline, the tail wave), then its math and its memory traffic, each at the
 * efficiency its kind of kernel reaches: an element-wise kernel the traffic alone, a dense GEMM both,
 * combined as its architecture's GEMMs combine them ({@link GemmConstants}). Without CUDA graphs the
 * host issues every kernel and a kernel shorter than the host's issue time waits for it.
 *
 * <p>The constants are named by what they mean and sourced in docs/model.md ("Kernel efficiencies");
 * small GEMVs reach a lower share of HBM bandwidth than large ones because the fixed time weighs more
 * against fewer bytes, not through a factor per size.
 *
 * @param blockScaledFp8 whether the step's FP8 weights carry a scale per 128 x 128 block (the FP8 checkpoints DeepSeek and
 *                       Qwen publish) rather than one per tensor (FP8 quantised at load); it picks the GEMMs' constants
 */
public record KernelCosts(GpuModel model, boolean cudaGraphs, ServingEngine engine, boolean blockScaledFp8) {
    /**
     * Whose measured kernel tables the constants for {@code engine}'s kernels on {@code arch} were fitted to, in words:
     * aiconfigurator's (NVIDIA's, per engine and GPU), or AMD's AITER tuned-kernel tables on Instinct GPUs.
     */
    public static String tableSource(NcclArch arch, ServingEngine engine) {
        if (arch.rccl()) {
            return "AITER's tuned-kernel tables (AMD)";
        }
        boolean own = arch == NcclArch.HOPPER || arch == NcclArch.BLACKWELL;
        return "aiconfigurator's " + (own ? engine.label() : "trtllm") + " tables";
    }

    /** Names this set of constants in every output, so results made with another set can be told apart. */
    public static final String EFFICIENCY_SET = "collsim-kernels-2026-12-aic-gemm-tiles";
    /** Launch gap between two kernels replayed from a CUDA graph. */
    public static final double GRAPH_GAP_US = 1.5;
    /** An element-wise kernel's own fixed time: prologue, pipeline fill and drain, tail wave (fitted to calibration rows 1-2). */
    public static final double FIXED_US = 2.0;
    /** Rows of the tensor cores' smallest tile (Hopper's wgmma and Blackwell's UMMA are 64 rows; Ampere's CTA tiles too). */
    public static final int MMA_TILE_ROWS = 64;
    /** Columns of a grouped GEMM's output tile (the 128-wide N tiles of CUTLASS's, DeepGEMM's and Triton's MoE kernels). */
    public static final int GROUPED_TILE_COLUMNS = 128;
    /** Rows of the Triton fused MoE's tile (vLLM's and SGLang's) up to {@link #TRITON_SMALL_BATCH} tokens: fused_moe.py's BLOCK_SIZE_M. */
    public static final int TRITON_SMALL_TILE_ROWS = 16;
    /** The largest batch, in tokens, that the Triton fused MoE runs in {@link #TRITON_SMALL_TILE_ROWS}-row tiles. */
    public static final int TRITON_SMALL_BATCH = 64;
    /** Rows of AITER's fused-MoE tile up to {@link #AITER_SMALL_BATCH} tokens (its tuned tables' block_m), 64 above. */
    static final int AITER_SMALL_TILE_ROWS = 32;
    static final int AITER_SMALL_BATCH = 256;
    /** Query rows and key columns of a prompt-attention tile (FlashAttention's and TensorRT-LLM's FMHA's 128 x 128 blocks). */
    public static final int ATTENTION_TILE = 128;
    /** Query heads one CTA of an absorbed-MLA decode kernel serves (FlashMLA's and TensorRT-LLM's 64-row blocks). */
    public static final int MLA_HEADS_PER_CTA = 64;
    /** Tokens of context per XQA block and the waves XQA's multi-block count is cut back to (kMinHistoryTokensPerBlock, kTargetWaveFactor). */
    static final double XQA_TOKENS_PER_BLOCK = 128;
    static final double XQA_TARGET_WAVES = 8;
    /** Cached tokens a decode kernel's CTA takes per step of its loop (trtllm-gen's and FlashAttention's 128-token KV tile). */
    static final double KV_STEP = 128;
    /** Share of HBM bandwidth an element-wise kernel (norm, rotary, activation, quantisation, copy) reaches. */
    public static final double STREAM_MEMORY = 0.85;

    /** What a kernel does, which sets how its traffic and math are priced. */
    public enum Kind {
        /** A dense GEMM whose weights stream from HBM; {@code rows} tokens padded to whole tiles ({@link GemmConstants}). */
        GEMM,
        /** An element-wise or reduction kernel: bandwidth only, at {@link #STREAM_MEMORY} of HBM. */
        ELEMENTWISE
    }

    /** Without the weights' block scales: FP8 weights are taken as per-tensor scaled. */
    public KernelCosts(GpuModel model, boolean cudaGraphs, ServingEngine engine) {
        this(model, cudaGraphs, engine, false);
    }

    /** The time between two kernels on a stream: the graph's gap, or the host's issue time without graphs. */
    public double launchMicros() {
        return cudaGraphs ? GRAPH_GAP_US : engine.eagerLaunchUs;
    }

    /**
     * The kernel's time after its launch: its fixed time, then its math (already padded to whole tiles by the caller) at the
     * tensor rate of {@code mathBits}-bit operands and its memory traffic, as its kind combines them. A GEMM whose shape is
     * known takes {@link #gemmMicros(double, double, double, double, double, int)}, which also bounds it by its tiles.
     */
    public double workMicros(Kind kind, double flops, double bytes, int mathBits) {
        GpuModel.Roofline gpu = model.roofline();
        if (kind == Kind.ELEMENTWISE) {
            return FIXED_US + bytes / (gpu.hbmBytesPerSecond() * STREAM_MEMORY) * 1e6;
        }
        return gemmWorkMicros(flops, bytes, 0, mathBits);
    }

    /** A kernel's fixed time, the floor no bandwidth shortens: a GEMM's its format's, any other kernel's {@link #FIXED_US}. */
    public double fixedMicros(Kind kind, int mathBits) {
        return kind == Kind.GEMM ? gemm(mathBits).fixedUs() : FIXED_US;
    }

    /** The dense GEMMs' constants on this GPU for {@code mathBits}-bit operands in this step's weight format and engine. */
    public GemmConstants gemm(int mathBits) {
        return GemmConstants.of(model.arch(), mathBits, blockScaledFp8, engine);
    }

    /**
     * A dense GEMM of {@code rows} tokens through an {@code n} x {@code k} weight, the weight read at {@code bytesPerParam},
     * activations in and out at BF16 ({@link #gemmMicros(double, double, double, double, double, int)}).
     */
    public double gemmMicros(double rows, double n, double k, double bytesPerParam, int mathBits) {
        return gemmMicros(rows, n, k, 1, n * k * bytesPerParam + rows * (n + k) * Precision.ACTIVATION_BYTES, mathBits);
    }

    /**
     * {@code batches} GEMMs (a batched GEMM's heads; 1 for a linear layer) of {@code rows} tokens through an {@code n} x
     * {@code k} weight moving {@code bytes}, as a step prices them ({@code LayerKernels}' GEMMs), launch not included: its
     * fixed time, then its math (rows padded to whole tiles) at the rate of {@code mathBits}-bit operands, its traffic, and
     * where the kernel gives each output tile's whole K loop to one CTA, the waves of those CTAs over the SMs
     * ({@link GemmConstants#tileMicros}), combined as the architecture's GEMMs combine them.
     */
    public double gemmMicros(double rows, double n, double k, double batches, double bytes, int mathBits) {
        double tiles = gemm(mathBits).tileMicros(rows, n, k, batches, model.roofline(), mathBits);
        return gemmWorkMicros(2.0 * paddedRows(rows) * n * k * batches, bytes, tiles, mathBits);
    }

    /** The GEMM form: the fixed time, then the math, the traffic and the tiles' bound ({@code tilesMicros}) combined. */
    private double gemmWorkMicros(double flops, double bytes, double tilesMicros, int mathBits) {
        GemmConstants c = gemm(mathBits);
        GpuModel.Roofline gpu = model.roofline();
        double math = flops / (gpu.tflops(mathBits) * 1e12 * c.math());
        double memory = bytes / (gpu.hbmBytesPerSecond() * c.memory());
        return c.fixedUs() + c.combine(math, memory, tilesMicros * 1e-6) * 1e6;
    }

    /**
     * How dense GEMMs (cuBLAS, CUTLASS and DeepGEMM as TensorRT-LLM launches them) run on an architecture in one weight
     * format, fitted by {@code tools/aic/fit_gemm.py} to aiconfigurator's measured TensorRT-LLM GEMM tables (docs/model.md,
     * "Dense GEMMs"): {@code math}, the share of the format's dense tensor rate; {@code memory}, the share of HBM;
     * {@code fixedUs}, the kernel's fixed time; {@code ridge}, the exponent p of {@link #combine}: how sharply a GEMM turns
     * from one bound to another (the roofline's max as p grows, the sum at p = 1). A kernel that runs each {@code tileRows}
     * x {@code tileColumns} output tile's whole K loop in one CTA (block-scaled FP8 and NVFP4: they do not split K over idle
     * SMs as cuBLAS does) is also bound by those CTAs' waves over the SMs, each tile at {@code tileShare} of an SM's rate;
     * {@code tileShare} 0: the kernel splits K, no such bound.
     */
    public record GemmConstants(double math, double memory, double fixedUs, double ridge, int tileRows, int tileColumns,
                                double tileShare) {
        /** TensorRT-LLM 1.0.0's A100 table; also Volta and Ada (catalogued as Ampere), in any format. */
        static final GemmConstants AMPERE = splitsK(0.847, 0.920, 3.75, 1.42);
        /** TensorRT-LLM 1.3.0rc20's H100 and H200 tables together. */
        static final GemmConstants HOPPER_BF16 = splitsK(0.790, 0.828, 1.86, 3.16);
        static final GemmConstants HOPPER_FP8 = splitsK(0.693, 0.852, 4.11, 2.03);
        static final GemmConstants HOPPER_FP8_BLOCK = new GemmConstants(0.557, 0.750, 0.00, 3.23, 64, 128, 1.000);
        /** TensorRT-LLM 1.3.0rc20's B200 and GB200 tables together. */
        static final GemmConstants BLACKWELL_BF16 = splitsK(0.672, 0.750, 1.35, 2.90);
        static final GemmConstants BLACKWELL_FP8 = splitsK(0.650, 0.850, 6.19, 1.31);
        static final GemmConstants BLACKWELL_FP8_BLOCK = new GemmConstants(0.920, 0.777, 0.67, 2.71, 64, 128, 0.738);
        static final GemmConstants BLACKWELL_FP4 = new GemmConstants(0.593, 0.588, 1.24, 2.50, 128, 256, 0.585);
        /** vLLM 0.24.0's and SGLang 0.5.14's B200 NVFP4 tables together: the CUTLASS FP4 GEMM they run (FlashInfer's, vLLM's own). */
        static final GemmConstants BLACKWELL_FP4_FLASHINFER = new GemmConstants(0.490, 0.727, 1.16, 3.16, 128, 128, 0.897);
        /**
         * AMD Instinct GEMMs as AITER's tuned-GEMM tables time them (the fastest of its kernel libraries per shape, ROCm/aiter
         * @ e4048607, {@code tools/aiter/fit_gemm.py}): MI300X's block-scaled FP8; MI355X's BF16, FP8 with per-token scales
         * and block-scaled FP8. The tables time the kernel alone, so {@code fixedUs} is its own time. MI300X has no BF16 or
         * per-token FP8 table there: MI355X's shares of peak stand in, at MI300X's own rates.
         */
        static final GemmConstants CDNA3_FP8_BLOCK = new GemmConstants(0.832, 0.543, 2.45, 1.00, 32, 128, 0.611);
        static final GemmConstants CDNA4_BF16 = splitsK(0.469, 0.920, 4.64, 1.31);
        static final GemmConstants CDNA4_FP8 = splitsK(0.469, 0.920, 4.11, 1.00);
        static final GemmConstants CDNA4_FP8_BLOCK = new GemmConstants(0.282, 0.920, 2.56, 1.49, 128, 128, 0.888);

        private static GemmConstants splitsK(double math, double memory, double fixedUs, double ridge) {
            return new GemmConstants(math, memory, fixedUs, ridge, 0, 0, 0);
        }

        /**
         * The set for {@code bits}-bit operands under {@code engine}; 4-bit weights on Hopper (no FP4 rate) take block FP8's,
         * as the grouped GEMMs do, and NVFP4 on Blackwell the engine's own FP4 GEMM's.
         */
        public static GemmConstants of(NcclArch arch, int bits, boolean blockScaled, ServingEngine engine) {
            if (arch.rccl()) {
                boolean block = bits <= 4 || blockScaled;
                return bits >= 16 ? CDNA4_BF16 : block ? (arch == NcclArch.CDNA3 ? CDNA3_FP8_BLOCK : CDNA4_FP8_BLOCK) : CDNA4_FP8;
            }
            if (arch == NcclArch.HOPPER) {
                return bits >= 16 ? HOPPER_BF16 : bits <= 4 || blockScaled ? HOPPER_FP8_BLOCK : HOPPER_FP8;
            }
            if (arch == NcclArch.BLACKWELL) {
                return bits >= 16 ? BLACKWELL_BF16
                        : bits <= 4 ? (engine.flashInferFp4Gemm() ? BLACKWELL_FP4_FLASHINFER : BLACKWELL_FP4)
                        : blockScaled ? BLACKWELL_FP8_BLOCK : BLACKWELL_FP8;
            }
            return AMPERE;
        }

        /**
         * The bound of a kernel that gives each output tile's K loop to one CTA: waves of {@code batches} x rows/tileRows x
         * n/tileColumns CTAs over the SMs, each tile's 2 x tileRows x tileColumns x k FLOPs at {@code tileShare} of one SM's
         * rate; 0 for a kernel that splits K.
         */
        public double tileMicros(double rows, double n, double k, double batches, GpuModel.Roofline gpu, int mathBits) {
            if (tileShare <= 0) {
                return 0;
            }
            double tiles = batches * Math.ceil(rows / tileRows) * Math.ceil(n / tileColumns);
            double smRate = gpu.tflops(mathBits) * 1e12 / gpu.sms() * tileShare;
            return Math.ceil(tiles / gpu.sms()) * 2.0 * tileRows * tileColumns * k / smRate * 1e6;
        }

        /** The math, memory and tile bounds combined: (math^p + memory^p + tiles^p)^(1/p). */
        public double combine(double math, double memory, double tiles) {
            double longest = Math.max(Math.max(math, memory), tiles);
            if (longest <= 0) {
                return 0;
            }
            // Scaled by the longest so that the powers stay in range.
            return longest * Math.pow(Math.pow(math / longest, ridge) + Math.pow(memory / longest, ridge) + Math.pow(tiles / longest, ridge),
                    1 / ridge);
        }
    }

    /**
     * A grouped GEMM over {@code groups} experts holding {@code params} weights in all, each expert's {@code k}-deep, as the
     * engine's fused MoE runs it ({@code LayerKernels}' grouped GEMMs), launch not included: {@code rows} routed rows of {@code
     * tokens} tokens shared evenly, each expert's padded to whole tiles ({@link #groupedTileRows}) and its columns to {@link
     * #GROUPED_TILE_COLUMNS};
     * every tile's K loop pays the pipeline fill of {@link MoeConstants#fillK} more elements; the longer of that math and the
     * weights' and the rows' BF16 input and output traffic, plus the fixed time and each routed row's cost.
     */
    public double groupedGemmMicros(double tokens, double rows, double groups, double params, double k, double bytesPerParam,
                                    int mathBits, boolean blockScaled) {
        if (groups <= 0) {
            return 0;
        }
        GpuModel.Roofline gpu = model.roofline();
        MoeConstants c = moe(mathBits, blockScaled);
        double n = params / groups / k;
        double tileRows = groupedTileRows(tokens);
        double tiles = groups * Math.ceil(rows / groups / tileRows) * tileRows * Math.ceil(n / GROUPED_TILE_COLUMNS) * GROUPED_TILE_COLUMNS;
        double math = 2.0 * tiles * (k + c.fillK()) / (gpu.tflops(mathBits) * 1e12 * c.math());
        double memory = groupedGemmBytes(rows, groups, params, k, bytesPerParam) / (gpu.hbmBytesPerSecond() * c.memory());
        return c.fixedUs() + rows * c.rowNs() * 1e-3 + Math.max(math, memory) * 1e6;
    }

    /** What {@link #groupedGemmMicros} moves: the experts' weights once, and every routed row's BF16 input (K wide) and output (N). */
    public static double groupedGemmBytes(double rows, double groups, double params, double k, double bytesPerParam) {
        double n = groups <= 0 ? 0 : params / groups / k;
        return params * bytesPerParam + rows * (n + k) * Precision.ACTIVATION_BYTES;
    }

    /**
     * How an engine's fused-MoE grouped GEMMs run on an architecture in one weight format, fitted by {@code
     * tools/aic/fit_moe.py} to aiconfigurator's measured MoE tables (the GPUs and versions of docs/model.md, "Grouped GEMMs"):
     * {@code memory}, the share of HBM the experts' weights stream at; {@code math}, the share of the dense tensor rate a
     * tile's K loop reaches; {@code fillK}, the pipeline fill and epilogue every tile pays, in K elements; {@code fixedUs},
     * the kernel's fixed time; {@code rowNs}, each routed row's gather, scales and scatter beyond its bytes.
     */
    public record MoeConstants(double memory, double math, double fillK, double fixedUs, double rowNs) {
        /** Where no engine's table exists (Ampere): the dense GEMMs' shares and fixed time. */
        static final MoeConstants DENSE = new MoeConstants(GemmConstants.AMPERE.memory(), GemmConstants.AMPERE.math(), 0,
                GemmConstants.AMPERE.fixedUs(), 0);
        /** TensorRT-LLM 1.3.0rc20's CUTLASS MoE (DeepGEMM for block FP8 on Blackwell). */
        static final MoeConstants TRTLLM_HOPPER_BF16 = new MoeConstants(0.903, 0.870, 467, 8.4, 3.4);
        static final MoeConstants TRTLLM_HOPPER_FP8 = new MoeConstants(0.875, 0.822, 1006, 8.6, 3.3);
        static final MoeConstants TRTLLM_HOPPER_FP8_BLOCK = new MoeConstants(0.873, 0.464, 950, 5.8, 13.8);
        static final MoeConstants TRTLLM_BLACKWELL_BF16 = new MoeConstants(0.877, 0.942, 1077, 8.5, 2.3);
        static final MoeConstants TRTLLM_BLACKWELL_FP8 = new MoeConstants(0.862, 0.878, 1740, 9.0, 3.0);
        static final MoeConstants TRTLLM_BLACKWELL_FP8_BLOCK = new MoeConstants(0.718, 1.000, 5231, 8.9, 0.1);
        static final MoeConstants TRTLLM_BLACKWELL_FP4 = new MoeConstants(0.772, 0.579, 4862, 14.3, 2.6);
        /** vLLM 0.24.0's fused MoE; its per-tensor FP8 table times an untuned path (0.19 of HBM), so block FP8's set stands in. */
        static final MoeConstants VLLM_HOPPER_BF16 = new MoeConstants(0.881, 0.443, 156, 10.1, 0.8);
        static final MoeConstants VLLM_HOPPER_FP8_BLOCK = new MoeConstants(0.858, 0.297, 266, 4.6, 0.9);
        static final MoeConstants VLLM_BLACKWELL_BF16 = new MoeConstants(0.950, 0.360, 0, 1.5, 0.8);
        static final MoeConstants VLLM_BLACKWELL_FP8 = new MoeConstants(0.948, 0.526, 520, 0.0, 0.0);
        static final MoeConstants VLLM_BLACKWELL_FP8_BLOCK = new MoeConstants(0.947, 0.156, 134, 6.4, 0.0);
        static final MoeConstants VLLM_BLACKWELL_FP4 = new MoeConstants(0.941, 0.421, 104, 0.1, 0.0);
        /** SGLang 0.5.14's fused MoE; no per-tensor FP8 table, so block FP8's set stands in. */
        static final MoeConstants SGLANG_HOPPER_BF16 = new MoeConstants(0.883, 0.142, 0, 7.6, 2.3);
        static final MoeConstants SGLANG_HOPPER_FP8_BLOCK = new MoeConstants(0.886, 0.254, 0, 5.3, 0.0);
        static final MoeConstants SGLANG_BLACKWELL_BF16 = new MoeConstants(0.893, 0.313, 230, 1.4, 0.0);
        static final MoeConstants SGLANG_BLACKWELL_FP8_BLOCK = new MoeConstants(0.910, 0.147, 109, 5.9, 0.3);
        static final MoeConstants SGLANG_BLACKWELL_FP4 = new MoeConstants(0.966, 0.869, 1020, 0.3, 0.0);
        /**
         * AITER's fused MoE (both GEMMs, the activation fused in) as its tuned fused-MoE tables time them (ROCm/aiter @
         * e4048607, {@code tools/aiter/fit_moe.py}); vLLM and SGLang on ROCm run it. MI300X has no per-token FP8 table: its
         * block FP8 set stands in.
         */
        static final MoeConstants AITER_CDNA3_BF16 = new MoeConstants(0.703, 0.334, 457, 8.2, 0.6);
        static final MoeConstants AITER_CDNA3_FP8_BLOCK = new MoeConstants(0.898, 0.356, 192, 22.3, 2.9);
        static final MoeConstants AITER_CDNA4_BF16 = new MoeConstants(0.835, 0.545, 337, 11.4, 4.0);
        static final MoeConstants AITER_CDNA4_FP8 = new MoeConstants(0.995, 0.348, 333, 21.9, 3.9);
        static final MoeConstants AITER_CDNA4_FP8_BLOCK = new MoeConstants(0.784, 0.199, 0, 11.5, 1.0);

        /**
         * The fitted set of the engine on the architecture for {@code bits}-bit weights ({@code blockScaled}: FP8 with a scale
         * per 128 x 128 block, as DeepSeek's and Qwen's FP8 checkpoints are; else per tensor). Ampere and older take the
         * dense GEMMs' shares; LMDeploy takes TensorRT-LLM's sets, vLLM V0 vLLM's; 4-bit weights on Hopper (no FP4 rate)
         * take block FP8's.
         */
        public static MoeConstants of(NcclArch arch, ServingEngine engine, int bits, boolean blockScaled) {
            if (arch.rccl()) {
                boolean cdna3 = arch == NcclArch.CDNA3;
                return bits >= 16 ? (cdna3 ? AITER_CDNA3_BF16 : AITER_CDNA4_BF16)
                        : cdna3 ? AITER_CDNA3_FP8_BLOCK : blockScaled || bits <= 4 ? AITER_CDNA4_FP8_BLOCK : AITER_CDNA4_FP8;
            }
            boolean blackwell = arch == NcclArch.BLACKWELL;
            if (!blackwell && arch != NcclArch.HOPPER) {
                return DENSE;
            }
            boolean fp4 = bits <= 4 && blackwell;
            boolean block = bits <= 8 && (blockScaled || bits <= 4);
            return switch (engine) {
                case VLLM, VLLM_V0 -> bits == 16 ? (blackwell ? VLLM_BLACKWELL_BF16 : VLLM_HOPPER_BF16)
                        : fp4 ? VLLM_BLACKWELL_FP4
                        : blackwell ? (block ? VLLM_BLACKWELL_FP8_BLOCK : VLLM_BLACKWELL_FP8) : VLLM_HOPPER_FP8_BLOCK;
                case SGLANG -> bits == 16 ? (blackwell ? SGLANG_BLACKWELL_BF16 : SGLANG_HOPPER_BF16)
                        : fp4 ? SGLANG_BLACKWELL_FP4 : blackwell ? SGLANG_BLACKWELL_FP8_BLOCK : SGLANG_HOPPER_FP8_BLOCK;
                default -> bits == 16 ? (blackwell ? TRTLLM_BLACKWELL_BF16 : TRTLLM_HOPPER_BF16)
                        : fp4 ? TRTLLM_BLACKWELL_FP4
                        : block ? (blackwell ? TRTLLM_BLACKWELL_FP8_BLOCK : TRTLLM_HOPPER_FP8_BLOCK)
                        : blackwell ? TRTLLM_BLACKWELL_FP8 : TRTLLM_HOPPER_FP8;
            };
        }
    }

    /**
     * Rows of the engine's grouped-GEMM tile for a batch of {@code tokens}: vLLM's and SGLang's Triton kernel takes 16-row
     * blocks up to 64 tokens and 64 above (fused_moe.py, get_default_config); CUTLASS and DeepGEMM run 64-row MMA tiles;
     * on Instinct GPUs AITER's fused MoE 32 up to 256 tokens, 64 above.
     */
    double groupedTileRows(double tokens) {
        if (model.arch().rccl()) {
            return tokens <= AITER_SMALL_BATCH ? AITER_SMALL_TILE_ROWS : MMA_TILE_ROWS;
        }
        boolean triton = engine == ServingEngine.VLLM || engine == ServingEngine.VLLM_V0 || engine == ServingEngine.SGLANG;
        return triton && tokens <= TRITON_SMALL_BATCH ? TRITON_SMALL_TILE_ROWS : MMA_TILE_ROWS;
    }

    /** This engine's grouped-GEMM constants on this GPU for {@code mathBits}-bit weights. */
    public MoeConstants moe(int mathBits, boolean blockScaled) {
        return MoeConstants.of(model.arch(), engine, mathBits, blockScaled);
    }

    /**
     * An attention kernel's geometry on one GPU: {@code sequences} each bringing {@code queries} new tokens (1 in decode)
     * after {@code cached} tokens already in the cache, {@code heads} query and {@code kvHeads} KV heads, {@code qkDim}
     * and {@code vDim} wide; {@code latent}: DeepSeek's absorbed MLA, every head reading one shared latent of {@code
     * qkDim} (its first {@code vDim} the values); {@code kvBytes} per cached element.
     */
    public record AttentionShape(double sequences, double queries, double cached, double heads, double kvHeads, double qkDim,
                                 double vDim, int kvBytes, boolean latent, double window) {
        /** Attention to every token before each query ({@code window} 0). */
        public AttentionShape(double sequences, double queries, double cached, double heads, double kvHeads, double qkDim,
                              double vDim, int kvBytes, boolean latent) {
            this(sequences, queries, cached, heads, kvHeads, qkDim, vDim, kvBytes, latent, 0);
        }

        /** The scores' and values' FLOPs, each query over the keys before it (causal among the new tokens), at most its window's. */
        public double flops() {
            double keys = cappedSum(cached, queries, window > 0 ? window : Double.POSITIVE_INFINITY);
            return 2.0 * sequences * keys * heads * (qkDim + vDim);
        }

        /** The cache's bytes a decode step reads: each sequence's keys and values (or latent) once, its window's where it slides. */
        public double cacheBytes() {
            return sequences * context() * cacheWidth() * kvBytes;
        }

        /** The cached tokens each sequence's new tokens attend to: all of them, or its window's where it slides. */
        double context() {
            return window > 0 ? Math.min(cached, window) : cached;
        }

        /** Elements one token adds to the cache on this GPU. */
        double cacheWidth() {
            return latent ? qkDim : kvHeads * (qkDim + vDim);
        }

        /** Decode computes in the cache's type (BF16, or FP8 where the cache is FP8); a prompt's attention in BF16. */
        int mathBits() {
            return kvBytes == 1 && queries == 1 ? 8 : 16;
        }
    }

    /**
     * How an engine's attention kernels run on an architecture, fitted by {@code tools/aic/fit_attention.py} to aiconfigurator's
     * measured tables (TensorRT-LLM 1.3.0rc20, A100 1.0.0; vLLM 0.24.0 and SGLang 0.5.14 on H100 and B200) of the GPUs named
     * in docs/model.md: {@code promptMath}, the share of an SM's dense BF16 rate a prompt's 128 x 128 tile reaches; {@code
     * ctaStartUs}, what each prompt CTA pays to start (its query tile's load, the softmax state's set-up); {@code
     * promptFixedUs}, the op's fixed time (its kernels' prologues and tails); the decode kernels' constants for grouped-query
     * ({@link DecodeKernels}) and latent (MLA) attention.
     */
    public record AttentionConstants(double promptMath, double ctaStartUs, double promptFixedUs, DecodeKernels grouped, Decode latent) {
        /**
         * A decode-attention kernel: {@code memory}, the share of HBM it reaches streaming the cache; {@code waveUs}, what a
         * wave of its CTAs (a sequence's KV head each, or 64 of its query heads under MLA) costs beyond its reads; {@code
         * math}, the share of the tensor rate its few query rows per KV head reach; {@code fixedUs}, its fixed time; {@code
         * tokenUs}, what one CTA's loop spends on each cached token of its split of the context, the bound when few CTAs
         * share HBM (0 where the tables show no such bound: FlashAttention's and FlashInfer's, and the MLA kernels').
         */
        public record Decode(double memory, double waveUs, double math, double fixedUs, double tokenUs) {
            Decode(double memory, double waveUs, double math, double fixedUs) {
                this(memory, waveUs, math, fixedUs, 0);
            }
        }

        /**
         * The grouped-query decode kernels an engine dispatches, each fitted apart: for grouped heads (GQA, MQA) and for one
         * query head per KV head (MHA: TensorRT-LLM runs its masked-MHA kernel there, XQA only for groups), each over a BF16
         * and an FP8 cache (other kernels again: TensorRT-LLM's Hopper XQA in GMMA, FlashInfer's and FlashAttention-3's FP8
         * paths). Where a table has no FP8-cache rows (A100) the BF16 kernel stands for it.
         */
        public record DecodeKernels(Decode gqa, Decode gqaFp8, Decode mha, Decode mhaFp8) {
            /** The kernel for {@code s}: MHA where each KV head serves one query head, the FP8 one where the cache is FP8. */
            public Decode of(AttentionShape s) {
                boolean fp8 = s.kvBytes() == 1;
                if (s.heads() <= s.kvHeads()) {
                    return fp8 ? mhaFp8 : mha;
                }
                return fp8 ? gqaFp8 : gqa;
            }
        }

        /** TensorRT-LLM's FMHA, XQA and masked MHA (trtllm-gen's on Blackwell), and its MLA kernels. */
        static final AttentionConstants TRTLLM_AMPERE = new AttentionConstants(0.539, 0.0, 6.9,
                bf16Only(new Decode(0.942, 6.22, 0.086, 4.2, 0.018), new Decode(0.849, 1.50, 0.011, 8.4, 0.024)),
                new Decode(0.858, 7.97, 0.378, 4.8));
        static final AttentionConstants TRTLLM_HOPPER = new AttentionConstants(0.617, 3.12, 10.8,
                new DecodeKernels(new Decode(0.765, 4.39, 0.039, 4.4, 0), new Decode(0.823, 1.21, 0.027, 3.7, 0.020),
                        new Decode(0.918, 1.11, 0.031, 6.1, 0.017), new Decode(0.673, 1.20, 0.034, 6.4, 0.017)),
                new Decode(0.858, 7.97, 0.378, 4.8));
        static final AttentionConstants TRTLLM_BLACKWELL = new AttentionConstants(0.525, 3.60, 10.5,
                new DecodeKernels(new Decode(0.944, 1.57, 0.047, 8.1, 0.005), new Decode(0.923, 1.28, 0.044, 8.6, 0.003),
                        new Decode(0.950, 1.29, 0.049, 8.5, 0.002), new Decode(0.948, 1.13, 0.043, 8.6, 0.003)),
                new Decode(0.729, 5.49, 0.546, 4.0));
        /** vLLM's attention backends as its tables time them; its MLA (no table) as TensorRT-LLM's. */
        static final AttentionConstants VLLM_HOPPER = new AttentionConstants(0.544, 1.29, 9.6,
                new DecodeKernels(new Decode(0.910, 3.28, 0.048, 7.5), new Decode(0.705, 3.25, 0.086, 9.4),
                        new Decode(0.919, 3.00, 0.012, 7.8), new Decode(0.731, 3.04, 0.030, 9.6)), TRTLLM_HOPPER.latent());
        static final AttentionConstants VLLM_BLACKWELL = new AttentionConstants(0.385, 2.44, 7.1,
                new DecodeKernels(new Decode(0.923, 1.36, 0.047, 6.3), new Decode(0.885, 1.22, 0.042, 7.6),
                        new Decode(0.933, 1.33, 0.029, 6.3), new Decode(0.885, 1.18, 0.031, 7.3)), TRTLLM_BLACKWELL.latent());
        /** SGLang's (FlashInfer, FlashAttention 3) as its tables time them; its MLA as TensorRT-LLM's. */
        static final AttentionConstants SGLANG_HOPPER = new AttentionConstants(0.623, 0.0, 8.1,
                new DecodeKernels(new Decode(0.892, 3.20, 0.051, 6.3), new Decode(0.649, 3.39, 0.066, 10.0),
                        new Decode(0.908, 2.86, 0.023, 6.8), new Decode(0.677, 2.83, 0.010, 10.7)), TRTLLM_HOPPER.latent());
        static final AttentionConstants SGLANG_BLACKWELL = new AttentionConstants(0.422, 1.84, 7.0,
                new DecodeKernels(new Decode(0.950, 1.36, 0.052, 7.5), new Decode(0.897, 1.23, 0.064, 13.9),
                        new Decode(0.950, 1.50, 0.030, 7.3), new Decode(0.936, 1.21, 0.015, 13.8)), TRTLLM_BLACKWELL.latent());

        private static DecodeKernels bf16Only(Decode gqa, Decode mha) {
            return new DecodeKernels(gqa, gqa, mha, mha);
        }

        /**
         * The fitted set of the engine on the GPU's architecture. Where the engine has no table (Ampere for vLLM and SGLang;
         * LMDeploy anywhere) TensorRT-LLM's set stands in, vLLM V0 takes vLLM's; Volta and Ada (catalogued as Ampere) take
         * Ampere's; Ampere's latent decode is Hopper's (TensorRT-LLM's A100 table times another path).
         */
        public static AttentionConstants of(NcclArch arch, ServingEngine engine) {
            if (arch.rccl()) {
                // No measured table of AITER's attention kernels yet: the engine's Hopper set (FlashAttention-class kernels) stands in.
                return of(NcclArch.HOPPER, engine);
            }
            AttentionConstants trtllm = switch (arch) {
                case HOPPER -> TRTLLM_HOPPER;
                case BLACKWELL -> TRTLLM_BLACKWELL;
                default -> TRTLLM_AMPERE;
            };
            return switch (engine) {
                case VLLM, VLLM_V0 -> arch == NcclArch.HOPPER ? VLLM_HOPPER : arch == NcclArch.BLACKWELL ? VLLM_BLACKWELL : trtllm;
                case SGLANG -> arch == NcclArch.HOPPER ? SGLANG_HOPPER : arch == NcclArch.BLACKWELL ? SGLANG_BLACKWELL : trtllm;
                default -> trtllm;
            };
        }
    }

    /** This engine's attention constants on this GPU. */
    public AttentionConstants attention() {
        return AttentionConstants.of(model.arch(), engine);
    }

    /**
     * A prompt's attention as FlashAttention and TensorRT-LLM's FMHA run it, launch not included: a CTA per sequence, query
     * head and tile of {@link #ATTENTION_TILE} new tokens; the CTA of tile i runs the key tiles cached before and i + 1 of
     * its own (causal), each at an SM's share of the dense BF16 rate; the CTAs' makespan over the SMs (the longest CTA at
     * least, each CTA paying its start), one pass over the queries, keys, values and output (and the cache write where the
     * engine fuses it into attention), and the op's fixed time.
     */
    public double promptAttentionMicros(AttentionShape s) {
        GpuModel.Roofline gpu = model.roofline();
        AttentionConstants c = attention();
        double tiles = Math.ceil(s.queries() / ATTENTION_TILE);
        double cachedTiles = s.cached() / ATTENTION_TILE;
        // A sliding window's query tile runs the key tiles of its window and its own diagonal tile.
        double windowTiles = s.window() > 0 ? s.window() / ATTENTION_TILE + 1 : Double.POSITIVE_INFINITY;
        double tileMicros = 2.0 * ATTENTION_TILE * ATTENTION_TILE * (s.qkDim() + s.vDim())
                / (gpu.tflops(16) * 1e12 / gpu.sms() * c.promptMath()) * 1e6;
        double ctas = s.sequences() * s.heads() * tiles;
        double keyTiles = s.sequences() * s.heads() * cappedSum(cachedTiles, tiles, windowTiles);
        double makespan = Math.max((keyTiles * tileMicros + ctas * c.ctaStartUs()) / gpu.sms(),
                Math.min(cachedTiles + tiles, windowTiles) * tileMicros + c.ctaStartUs());
        double stream = promptAttentionBytes(s) / (gpu.hbmBytesPerSecond() * STREAM_MEMORY) * 1e6;
        return c.promptFixedUs() + stream + makespan;
    }

    /** The sum over i = 1 .. n of min(cap, base + i): keys (or key tiles) each of n causal queries reads, at most cap each. */
    static double cappedSum(double base, double n, double cap) {
        double uncapped = Math.max(0, Math.min(n, cap - base));
        return uncapped * base + uncapped * (uncapped + 1) / 2 + (uncapped < n ? (n - uncapped) * cap : 0);
    }

    /** The one pass a prompt's attention makes over HBM: queries, keys and values in, the output out, and the fused cache write. */
    public double promptAttentionBytes(AttentionShape s) {
        double tokens = s.sequences() * s.queries();
        double io = tokens * (s.heads() * (s.qkDim() + s.vDim()) + s.kvHeads() * (s.qkDim() + s.vDim())) * Precision.ACTIVATION_BYTES;
        return io + (engine.fusesRopeAndCacheWrite ? tokens * s.cacheWidth() * s.kvBytes() : 0);
    }

    /**
     * A decode step's attention over a paged cache, launch not included: the kernel's fixed time, a cost per wave of its
     * CTAs over the SMs, then the longest of the cache's read, the scores' and values' math at the tensor rate of the
     * cache's type, and one CTA's loop over its split of the context. An engine that splits the context over CTAs
     * streams the cache with every SM at any batch, bound at a small batch by how far it splits ({@link #kvSplits}); one
     * that gives each sequence and query head one CTA streams it with only that many SMs when the batch is small.
     */
    public double decodeAttentionMicros(AttentionShape s) {
        GpuModel.Roofline gpu = model.roofline();
        AttentionConstants.Decode c = decodeConstants(s);
        double ctas = s.sequences() * (s.latent() ? Math.ceil(s.heads() / MLA_HEADS_PER_CTA) : s.kvHeads());
        double fill = engine.splitsKv ? 1 : Math.min(1, s.sequences() * s.heads() / gpu.sms());
        double read = s.cacheBytes() / (gpu.hbmBytesPerSecond() * c.memory() * fill) * 1e6;
        double math = s.flops() / (gpu.tflops(s.mathBits()) * 1e12 * c.math()) * 1e6;
        double loop = engine.splitsKv ? s.context() / kvSplits(s, ctas) * c.tokenUs() : 0;
        return c.fixedUs() + Math.ceil(ctas / gpu.sms()) * c.waveUs() + Math.max(Math.max(read, math), loop);
    }

    /**
     * The CTAs a split-KV decode kernel gives each of its {@code ctas} (sequence, KV head) pairs. TensorRT-LLM's XQA
     * (grouped heads before Blackwell) takes computeMultiBlockCount's rule (decoderXQAImplCommon.h): a block per {@link
     * #XQA_TOKENS_PER_BLOCK} tokens, at most round(sqrt(8 x blocks)), cut back where the CTAs pass {@link
     * #XQA_TARGET_WAVES} waves of the SMs. The others (trtllm-gen's and the masked-MHA kernel's multi-CTA modes,
     * FlashAttention's and FlashInfer's splits) split to fill the SMs, each split at least two {@link #KV_STEP}-token
     * steps of the CTA's loop (trtllm-gen's fmhaKernels.h: "the reduction overhead does not outweigh the benefits").
     */
    int kvSplits(AttentionShape s, double ctas) {
        int sms = model.roofline().sms();
        if (engine.xqaDecode && model.arch() != NcclArch.BLACKWELL && s.heads() > s.kvHeads() && !s.latent()) {
            double blocks = Math.floor(s.context() / XQA_TOKENS_PER_BLOCK);
            blocks = Math.max(1, Math.min(blocks, Math.round(Math.sqrt(blocks * 8))));
            double waves = ctas * blocks / sms;
            if (waves > XQA_TARGET_WAVES) {
                blocks = Math.floor(blocks / (waves / XQA_TARGET_WAVES));
            }
            return (int) Math.max(1, blocks);
        }
        return (int) Math.max(1, Math.min(Math.floor(sms / ctas), Math.ceil(s.context() / (2.0 * KV_STEP))));
    }

    /** The fixed time of the attention op {@link #promptAttentionMicros} ({@code prompt}) or {@link #decodeAttentionMicros} prices: its floor. */
    public double attentionFixedUs(AttentionShape s, boolean prompt) {
        return prompt ? attention().promptFixedUs() : decodeConstants(s).fixedUs();
    }

    /** The decode kernel's constants: the latent (MLA) kernel's, or the grouped-query kernel the shape dispatches. */
    private AttentionConstants.Decode decodeConstants(AttentionShape s) {
        return s.latent() ? attention().latent() : attention().grouped().of(s);
    }

    /** The HBM traffic of quantising {@code rows} x {@code width} BF16 activations to 8 bits: read them, write the bytes. */
    public static double quantizeBytes(double rows, double width) {
        return rows * width * (Precision.ACTIVATION_BYTES + 1);
    }

    /** The kernel's time with the dense efficiencies (no fixed time): the roofline bound, for the outputs' split. */
    public double rooflineMicros(double flops, double bytes, int mathBits) {
        GpuModel.Roofline gpu = model.roofline();
        double math = flops / (gpu.tflops(mathBits) * 1e12);
        double memory = bytes / gpu.hbmBytesPerSecond();
        return Math.max(math, memory) * 1e6;
    }

    /** {@code rows} tokens as the tensor cores run them: whole tiles of {@link #MMA_TILE_ROWS}. */
    static double paddedRows(double rows) {
        return rows <= 0 ? 0 : Math.ceil(rows / MMA_TILE_ROWS) * MMA_TILE_ROWS;
    }
}
