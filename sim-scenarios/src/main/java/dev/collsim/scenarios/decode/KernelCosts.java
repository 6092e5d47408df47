package dev.collsim.scenarios.decode;

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
public record KernelCosts(GpuModel.Roofline gpu, boolean cudaGraphs, ServingEngine engine) {
    /** Names this set of constants in every output, so results made with another set can be told apart. */
    public static final String EFFICIENCY_SET = "collsim-kernels-2026-12";
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
    /** Share of HBM bandwidth a paged decode-attention kernel reaches reading the KV cache (FlashMLA, FlashInfer). */
    public static final double ATTENTION_MEMORY = 0.80;
    /** Share of HBM bandwidth an element-wise kernel (norm, rotary, activation, quantisation, copy) reaches. */
    public static final double STREAM_MEMORY = 0.85;

    /** What a kernel does, which sets the efficiency its traffic and math reach. */
    public enum Kind {
        /** A dense GEMM whose weights stream from HBM; {@code rows} tokens padded to whole tiles. */
        GEMM(GEMM_MEMORY),
        /** A grouped GEMM over experts: it streams their weights as a dense GEMM does; each expert's rows padded to whole tiles. */
        GROUPED_GEMM(GEMM_MEMORY),
        /** Decode attention over a paged KV cache. */
        ATTENTION(ATTENTION_MEMORY),
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
     * An attention kernel as a step prices it ({@code LayerKernels}' attention): {@code flops} of scores and values at
     * the tensor rate of {@code mathBits}-bit operands, the cache's {@code cacheBytes} read with {@code fill} (0 to 1) of
     * the SMs streaming; launch not included.
     */
    public double attentionMicros(double flops, double cacheBytes, double fill, int mathBits) {
        return workMicros(Kind.ATTENTION, flops, cacheBytes / fill, mathBits);
    }

    /** The HBM traffic of quantising {@code rows} x {@code width} BF16 activations to 8 bits: read them, write the bytes. */
    public static double quantizeBytes(double rows, double width) {
        return rows * width * (Precision.ACTIVATION_BYTES + 1);
    }

    /** The kernel's time with the dense efficiencies (no fixed time): the roofline bound, for the outputs' split. */
    public double rooflineMicros(double flops, double bytes, int mathBits) {
        double math = flops / (gpu.tflops(mathBits) * 1e12);
        double memory = bytes / gpu.hbmBytesPerSecond();
        return Math.max(math, memory) * 1e6;
    }

    /** {@code rows} tokens as the tensor cores run them: whole tiles of {@link #MMA_TILE_ROWS}. */
    static double paddedRows(double rows) {
        return rows <= 0 ? 0 : Math.ceil(rows / MMA_TILE_ROWS) * MMA_TILE_ROWS;
    }
}
