package dev.collsim.scenarios.decode;

import dev.collsim.core.nccl.NcclArch;
import dev.collsim.topologies.catalog.GpuModel;

/**
 * What one kernel of the decode step takes on a GPU. Every kernel pays a fixed time that no amount
 * of bandwidth shortens (the gap between two kernels of a CUDA graph, its prologue, the fill and
 * drain of its memory pipeline, the tail wave), then the longer of its math and its memory traffic,
 * each at the efficiency its kind of kernel reaches. Without CUDA graphs the host issues every kernel
 * and a kernel shorter than the host's issue time waits for it.
 *
 * <p>The constants are named by what they mean and sourced in docs/model.md ("Kernel efficiencies");
 * small GEMVs reach a lower share of HBM bandwidth than large ones because the fixed time weighs more
 * against fewer bytes ({@link #FIXED_US} plus bytes at {@link #GEMM_MEMORY}), not through a factor per size.
 */
public record KernelCosts(GpuModel model, boolean cudaGraphs, ServingEngine engine) {
    /** Names this set of constants in every output, so results made with another set can be told apart. */
    public static final String EFFICIENCY_SET = "collsim-kernels-2026-12-aic";
    /** Launch gap between two kernels replayed from a CUDA graph. */
    public static final double GRAPH_GAP_US = 1.5;
    /** A kernel's own fixed time: prologue, pipeline fill and drain, tail wave (DeepGEMM's M = 64 GEMMs, the calibration). */
    public static final double FIXED_US = 2.0;
    /** Share of HBM bandwidth a weight-streaming GEMM reaches once its fixed time is paid (DeepGEMM, M = 64). */
    public static final double GEMM_MEMORY = 0.85;
    /** Share of the dense tensor rate a GEMM reaches with its rows padded to whole MMA tiles (DeepGEMM, cuBLAS at large M). */
    public static final double GEMM_MATH = 0.70;
    /** Rows of the tensor cores' smallest tile (Hopper's wgmma and Blackwell's UMMA are 64 rows; Ampere's CTA tiles too). */
    public static final int MMA_TILE_ROWS = 64;
    /** Query rows and key columns of a prompt-attention tile (FlashAttention's and TensorRT-LLM's FMHA's 128 x 128 blocks). */
    public static final int ATTENTION_TILE = 128;
    /** Query heads one CTA of an absorbed-MLA decode kernel serves (FlashMLA's and TensorRT-LLM's 64-row blocks). */
    public static final int MLA_HEADS_PER_CTA = 64;
    /** Share of HBM bandwidth an element-wise kernel (norm, rotary, activation, quantisation, copy) reaches. */
    public static final double STREAM_MEMORY = 0.85;

    /** What a kernel does, which sets the efficiency its traffic and math reach. */
    public enum Kind {
        /** A dense GEMM whose weights stream from HBM; {@code rows} tokens padded to whole tiles. */
        GEMM(GEMM_MEMORY),
        /** A grouped GEMM over experts: it streams their weights as a dense GEMM does; each expert's rows padded to whole tiles. */
        GROUPED_GEMM(GEMM_MEMORY),
        /** An element-wise or reduction kernel: bandwidth only. */
        ELEMENTWISE(STREAM_MEMORY);

        final double memoryEfficiency;

        Kind(double memoryEfficiency) {
            this.memoryEfficiency = memoryEfficiency;
        }
    }

    /** The time between two kernels on a stream: the graph's gap, or the host's issue time without graphs. */
    public double launchMicros() {
        return cudaGraphs ? GRAPH_GAP_US : engine.eagerLaunchUs;
    }

    /**
     * The kernel's time after its launch: its fixed time, then the longer of its math (already
     * padded to whole tiles by the caller) at the tensor rate of {@code mathBits}-bit operands and
     * its memory traffic at its kind's efficiency.
     */
    public double workMicros(Kind kind, double flops, double bytes, int mathBits) {
        GpuModel.Roofline gpu = model.roofline();
        double math = flops / (gpu.tflops(mathBits) * 1e12 * GEMM_MATH);
        double memory = bytes / (gpu.hbmBytesPerSecond() * kind.memoryEfficiency);
        return FIXED_US + Math.max(math, memory) * 1e6;
    }

    /**
     * A dense GEMM of {@code rows} tokens through an {@code n} x {@code k} weight, as a step prices it ({@code
     * LayerKernels}' GEMMs): rows padded to whole tiles, the weight read at {@code bytesPerParam}, activations in and
     * out at BF16, its math at the rate of {@code mathBits}-bit operands; launch not included.
     */
    public double gemmMicros(double rows, double n, double k, double bytesPerParam, int mathBits) {
        return workMicros(Kind.GEMM, 2.0 * paddedRows(rows) * n * k, n * k * bytesPerParam + rows * (n + k) * Precision.ACTIVATION_BYTES, mathBits);
    }

    /**
     * A grouped GEMM over {@code groups} experts holding {@code params} weights in all, as a step prices it ({@code
     * LayerKernels}' grouped GEMMs): {@code rows} tokens shared evenly, each expert's padded to whole tiles, the weights
     * at {@code bytesPerParam}, {@code io} BF16 activations in and out per row; launch not included.
     */
    public double groupedGemmMicros(double rows, double groups, double params, double bytesPerParam, double io, int mathBits) {
        double padded = groups <= 0 ? 0 : groups * paddedRows(rows / groups);
        double perRow = groups <= 0 ? 0 : params / groups;
        return workMicros(Kind.GROUPED_GEMM, 2.0 * padded * perRow, params * bytesPerParam + rows * io * Precision.ACTIVATION_BYTES, mathBits);
    }

    /**
     * An attention kernel's geometry on one GPU: {@code sequences} each bringing {@code queries} new tokens (1 in decode)
     * after {@code cached} tokens already in the cache, {@code heads} query and {@code kvHeads} KV heads, {@code qkDim}
     * and {@code vDim} wide; {@code latent}: DeepSeek's absorbed MLA, every head reading one shared latent of {@code
     * qkDim} (its first {@code vDim} the values); {@code kvBytes} per cached element.
     */
    public record AttentionShape(double sequences, double queries, double cached, double heads, double kvHeads, double qkDim,
                                 double vDim, int kvBytes, boolean latent) {
        /** The scores' and values' FLOPs, each query over the keys before it (causal among the new tokens). */
        public double flops() {
            double keysPerQuery = cached + (queries + 1) / 2;
            return 2.0 * sequences * queries * keysPerQuery * heads * (qkDim + vDim);
        }

        /** The cache's bytes a decode step reads: each sequence's keys and values (or latent) once. */
        public double cacheBytes() {
            return sequences * cached * cacheWidth() * kvBytes;
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
     * and latent (MLA) attention.
     */
    public record AttentionConstants(double promptMath, double ctaStartUs, double promptFixedUs, Decode grouped, Decode latent) {
        /**
         * A decode-attention kernel: {@code memory}, the share of HBM it reaches streaming the cache; {@code waveUs}, what a
         * wave of its CTAs (a sequence's KV head each, or 64 of its query heads under MLA) costs beyond its reads; {@code
         * math}, the share of the tensor rate its few query rows per KV head reach; {@code fixedUs}, its fixed time.
         */
        public record Decode(double memory, double waveUs, double math, double fixedUs) {
        }

        /** TensorRT-LLM's FMHA and XQA, and its MLA kernels. */
        static final AttentionConstants TRTLLM_AMPERE = new AttentionConstants(0.539, 0.0, 6.9,
                new Decode(0.95, 4.93, 0.54, 6.7), new Decode(0.858, 7.97, 0.378, 4.8));
        static final AttentionConstants TRTLLM_HOPPER = new AttentionConstants(0.617, 3.12, 10.8,
                new Decode(0.759, 1.33, 0.031, 6.2), new Decode(0.858, 7.97, 0.378, 4.8));
        static final AttentionConstants TRTLLM_BLACKWELL = new AttentionConstants(0.525, 3.60, 10.5,
                new Decode(0.939, 1.27, 0.046, 8.6), new Decode(0.729, 5.49, 0.546, 4.0));
        /** vLLM's attention backends as its tables time them; its MLA (no table) as TensorRT-LLM's. */
        static final AttentionConstants VLLM_HOPPER = new AttentionConstants(0.544, 1.29, 9.6,
                new Decode(0.844, 3.28, 0.042, 8.3), TRTLLM_HOPPER.latent());
        static final AttentionConstants VLLM_BLACKWELL = new AttentionConstants(0.385, 2.44, 7.1,
                new Decode(0.912, 1.28, 0.045, 7.0), TRTLLM_BLACKWELL.latent());
        /** SGLang's (FlashInfer, FlashAttention 3) as its tables time them; its MLA as TensorRT-LLM's. */
        static final AttentionConstants SGLANG_HOPPER = new AttentionConstants(0.623, 0.0, 8.1,
                new Decode(0.838, 3.31, 0.042, 8.2), TRTLLM_HOPPER.latent());
        static final AttentionConstants SGLANG_BLACKWELL = new AttentionConstants(0.422, 1.84, 7.0,
                new Decode(0.950, 1.30, 0.047, 11.8), TRTLLM_BLACKWELL.latent());

        /**
         * The fitted set of the engine on the GPU's architecture. Where the engine has no table (Ampere for vLLM and SGLang;
         * LMDeploy anywhere) TensorRT-LLM's set stands in, vLLM V0 takes vLLM's; Volta and Ada (catalogued as Ampere) take
         * Ampere's; Ampere's latent decode is Hopper's (TensorRT-LLM's A100 table times another path).
         */
        public static AttentionConstants of(NcclArch arch, ServingEngine engine) {
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
        double tileMicros = 2.0 * ATTENTION_TILE * ATTENTION_TILE * (s.qkDim() + s.vDim())
                / (gpu.tflops(16) * 1e12 / gpu.sms() * c.promptMath()) * 1e6;
        double ctas = s.sequences() * s.heads() * tiles;
        double keyTiles = s.sequences() * s.heads() * (tiles * cachedTiles + tiles * (tiles + 1) / 2);
        double makespan = Math.max((keyTiles * tileMicros + ctas * c.ctaStartUs()) / gpu.sms(),
                (cachedTiles + tiles) * tileMicros + c.ctaStartUs());
        double stream = promptAttentionBytes(s) / (gpu.hbmBytesPerSecond() * STREAM_MEMORY) * 1e6;
        return c.promptFixedUs() + stream + makespan;
    }

    /** The one pass a prompt's attention makes over HBM: queries, keys and values in, the output out, and the fused cache write. */
    public double promptAttentionBytes(AttentionShape s) {
        double tokens = s.sequences() * s.queries();
        double io = tokens * (s.heads() * (s.qkDim() + s.vDim()) + s.kvHeads() * (s.qkDim() + s.vDim())) * Precision.ACTIVATION_BYTES;
        return io + (engine.fusesRopeAndCacheWrite ? tokens * s.cacheWidth() * s.kvBytes() : 0);
    }

    /**
     * A decode step's attention over a paged cache, launch not included: the kernel's fixed time, a cost per wave of its
     * CTAs over the SMs, then the longer of the cache's read and the scores' and values' math at the tensor rate of the
     * cache's type. An engine that splits the context over CTAs streams the cache with every SM at any batch; one that
     * gives each sequence and query head one CTA streams it with only that many SMs when the batch is small.
     */
    public double decodeAttentionMicros(AttentionShape s) {
        GpuModel.Roofline gpu = model.roofline();
        AttentionConstants.Decode c = decodeConstants(s);
        double ctas = s.sequences() * (s.latent() ? Math.ceil(s.heads() / MLA_HEADS_PER_CTA) : s.kvHeads());
        double fill = engine.splitsKv ? 1 : Math.min(1, s.sequences() * s.heads() / gpu.sms());
        double read = s.cacheBytes() / (gpu.hbmBytesPerSecond() * c.memory() * fill);
        double math = s.flops() / (gpu.tflops(s.mathBits()) * 1e12 * c.math());
        return c.fixedUs() + Math.ceil(ctas / gpu.sms()) * c.waveUs() + Math.max(read, math) * 1e6;
    }

    /** The fixed time of the attention op {@link #promptAttentionMicros} ({@code prompt}) or {@link #decodeAttentionMicros} prices: its floor. */
    public double attentionFixedUs(AttentionShape s, boolean prompt) {
        return prompt ? attention().promptFixedUs() : decodeConstants(s).fixedUs();
    }

    /** The decode kernel's constants: the latent (MLA) kernel's or the grouped-query one's. */
    private AttentionConstants.Decode decodeConstants(AttentionShape s) {
        return s.latent() ? attention().latent() : attention().grouped();
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
