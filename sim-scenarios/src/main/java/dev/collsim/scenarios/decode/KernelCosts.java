package dev.collsim.scenarios.decode;

import dev.collsim.topologies.catalog.GpuModel;

/**
 * The roofline of one kernel: its launch overhead plus the longer of its math at the tensor cores'
 * achievable rate and its memory traffic at HBM's achievable rate. The efficiencies are collsim's
 * assumptions, stated here and in docs/decode.md, not fitted per model: large GEMMs reach about 70 %
 * of dense peak, and decode's weight-streaming GEMVs and attention about 80 % of HBM bandwidth. A
 * kernel launch costs about 5 us from the host in eager mode and about 1.5 us inside a CUDA graph,
 * where the GPU runs the recorded kernels back to back.
 */
public record KernelCosts(GpuModel.Roofline gpu, Precision precision, boolean cudaGraphs) {
    public static final double COMPUTE_EFFICIENCY = 0.70;
    public static final double MEMORY_EFFICIENCY = 0.80;
    public static final double LAUNCH_EAGER_US = 5.0;
    public static final double LAUNCH_GRAPH_US = 1.5;

    public double launchMicros() {
        return cudaGraphs ? LAUNCH_GRAPH_US : LAUNCH_EAGER_US;
    }

    /** A kernel of {@code flops} at the weight format's tensor rate that moves {@code bytes} through HBM, in us. */
    public double micros(double flops, double bytes) {
        return launchMicros() + workMicros(flops, bytes);
    }

    /** The kernel's time without its launch. */
    public double workMicros(double flops, double bytes) {
        double math = flops / (gpu.tflops(precision.bits()) * 1e12 * COMPUTE_EFFICIENCY);
        double memory = bytes / (gpu.hbmBytesPerSecond() * MEMORY_EFFICIENCY);
        return Math.max(math, memory) * 1e6;
    }
}
