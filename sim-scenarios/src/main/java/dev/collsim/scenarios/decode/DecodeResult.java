package dev.collsim.scenarios.decode;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import dev.collsim.topologies.catalog.GpuModel;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * What a decode step costs, in the keys {@code decode --format json} writes. Times in ms from the
 * step's start; bytes per GPU. {@code comm_bytes_per_gpu} is the data one GPU sends in the step's
 * collectives, as their algorithms move it (a ring or two-shot all-reduce of S bytes on n GPUs sends
 * 2 (n-1)/n S, a one-shot (n-1) S); {@code weights_read_ms} is the weights one GPU's kernels read in
 * the step at HBM's peak rate (an MoE layer's unpicked experts are not read; two-batch reads them twice).
 */
public record DecodeResult(
        String model, String system, String gpu,
        @JsonProperty("what_ifs") @JsonInclude(JsonInclude.Include.NON_EMPTY)
        String whatIfs,
        Layout layout,
        @JsonProperty("tp_path") String tpPath,
        @JsonInclude(JsonInclude.Include.NON_EMPTY)
        String contention,
        String engine,
        @JsonProperty("efficiency_set") String efficiencySet,
        @JsonProperty("itl_ms") double itlMs,
        @JsonProperty("tokens_per_s") double tokensPerS,
        @JsonProperty("tokens_per_s_per_gpu") double tokensPerSPerGpu,
        @JsonProperty("tokens_per_s_per_user") double tokensPerSPerUser,
        @JsonProperty("compute_ms") double computeMs,
        @JsonProperty("comm_ms") double commMs,
        @JsonProperty("exposed_comm_ms") double exposedCommMs,
        @JsonProperty("comm_bytes_per_gpu") long commBytesPerGpu,
        @JsonProperty("comm_bandwidth_term_ms") double commBandwidthTermMs,
        @JsonProperty("comm_latency_term_ms") double commLatencyTermMs,
        @JsonProperty("weights_bytes_per_gpu") double weightsBytesPerGpu,
        @JsonProperty("weights_read_ms") double weightsReadMs,
        @JsonProperty("kv_bytes_per_gpu") double kvBytesPerGpu,
        @JsonProperty("buffers_bytes_per_gpu") double buffersBytesPerGpu,
        @JsonProperty("memory_bytes_per_gpu") double memoryBytesPerGpu,
        @JsonProperty("hbm_bytes_per_gpu") double hbmBytesPerGpu,
        @JsonProperty("gpu_path_ms") double gpuPathMs,
        @JsonProperty("pipeline_bubble_ms") double pipelineBubbleMs,
        @JsonProperty("host_ms") double hostMs,
        @JsonProperty("host_exposed_ms") double hostExposedMs,
        @JsonProperty("kernels_per_step") int kernelsPerStep,
        @JsonProperty("kernel_floor_ms") double kernelFloorMs,
        @JsonProperty("roofline_ms") double rooflineMs,
        List<String> warnings,
        @JsonProperty("before_layers") List<Span> beforeLayers,
        List<Layer> layers,
        @JsonProperty("after_layers") List<Span> afterLayers,
        @JsonIgnore List<LinkLoad> linkLoads) {

    /**
     * A link's load over a step that ran on one clock, for the trace: from each time on (ms), the
     * percent of its rate its flows used.
     */
    public record LinkLoad(String link, List<double[]> steps) {}

    public record Layout(int tp, int pp, int ep, int dp, int gpus, int batch, @JsonProperty("micro_batch") int microBatch, int context,
                         String dtype, @JsonProperty("kv_dtype") String kvDtype, String allreduce, String overlap,
                         @JsonProperty("cuda_graphs") boolean cudaGraphs) {}

    /**
     * The step's time as users see it and what it is made of.
     *
     * @param itlMs          the inter-token latency: the GPU's step, then the host time it does not hide
     * @param gpuPathMs      one micro-batch's path through every stage's kernels
     * @param bubbleMs       what the slowest pipeline stage adds beyond that path (0 without PP)
     * @param hostMs         the engine's host time between steps
     * @param hostExposedMs  the part of it on the critical path
     * @param kernels        kernels launched per step on one GPU (compute and communication)
     * @param floorMs        their per-kernel floors summed: launch gaps and fixed times
     * @param rooflineMs     the compute kernels' work at peak rates: what the roofline alone would give
     */
    public record Timing(double itlMs, double gpuPathMs, double bubbleMs, double hostMs, double hostExposedMs, int kernels, double floorMs,
                         double rooflineMs) {}

    /** One kernel: compute or a collective, on its stream, for one micro-batch. */
    /**
     * One kernel as it ran: {@code bytes} a collective's data sent per GPU or a compute kernel's HBM
     * traffic, {@code flops} a compute kernel's operations (0 for a collective).
     */
    public record Span(String name, String kind, int stream, @JsonProperty("micro_batch") int microBatch,
                       @JsonProperty("start_ms") double startMs, @JsonProperty("end_ms") double endMs, long bytes, double flops) {}

    public record Layer(int index, boolean moe, @JsonProperty("start_ms") double startMs, @JsonProperty("end_ms") double endMs,
                        @JsonProperty("compute_ms") double computeMs, @JsonProperty("comm_ms") double commMs, List<Span> spans) {}

    /**
     * @param tpPath          what the TP group's collectives cross: NVLink, PCIe, a CPU socket link, the network
     * @param weightBytesRead the weights one GPU's kernels read in the step (an MoE layer reads only the
     *                        experts its tokens picked; two micro-batches read them twice)
     */
    /**
     * @param contention where collectives of different groups (or of one GPU, at once) share links, so
     *                   that the step ran every collective on one clock: said in a line; else empty
     * @param linkLoads  the followed GPU's and its NICs' links over a step on one clock; empty otherwise
     */
    static DecodeResult of(DecodeSpec spec, GpuModel gpu, String tpPath, String contention, MemoryPlan memory, double weightBytesRead,
                           List<Op> ops, Timing timing, List<String> warnings, List<LinkLoad> linkLoads) {
        ModelConfig m = spec.model();
        double itl = timing.itlMs();
        double compute = 0;
        double comm = 0;
        double latency = 0;
        long bytes = 0;
        List<double[]> computeIntervals = new ArrayList<>();
        List<double[]> commIntervals = new ArrayList<>();
        List<Span> before = new ArrayList<>();
        List<Span> after = new ArrayList<>();
        List<List<Span>> perLayer = new ArrayList<>();
        for (int l = 0; l < m.layers(); l++) {
            perLayer.add(new ArrayList<>());
        }
        for (Op o : ops) {
            double d = (o.end - o.start) / 1000;
            if (o.kind == Op.Kind.COMM) {
                comm += d;
                latency += o.latencyMicros / 1000;
                bytes += o.bytes;
                commIntervals.add(new double[] {o.start, o.end});
            } else {
                compute += d;
                computeIntervals.add(new double[] {o.start, o.end});
            }
            Span s = new Span(o.name, o.kind.name().toLowerCase(Locale.ROOT), o.stream, o.microBatch, o.start / 1000,
                    o.end / 1000, o.bytes, o.flops);
            (o.layer < 0 ? before : o.layer >= m.layers() ? after : perLayer.get(o.layer)).add(s);
        }
        List<Layer> layers = new ArrayList<>();
        for (int l = 0; l < m.layers(); l++) {
            List<Span> spans = perLayer.get(l);
            layers.add(new Layer(l, m.isMoe(l), spans.stream().mapToDouble(Span::startMs).min().orElse(0),
                    spans.stream().mapToDouble(Span::endMs).max().orElse(0),
                    spans.stream().filter(s -> s.kind().equals("compute")).mapToDouble(s -> s.endMs() - s.startMs()).sum(),
                    spans.stream().filter(s -> s.kind().equals("comm")).mapToDouble(s -> s.endMs() - s.startMs()).sum(), spans));
        }
        double exposed = (covered(commIntervals) - overlap(commIntervals, computeIntervals)) / 1000;
        double tokensPerS = spec.batch() * spec.dp() / (itl / 1000);
        Layout layout = new Layout(spec.tp(), spec.pp(), spec.ep(), spec.dp(), spec.gpus(), spec.batch(), spec.microBatch(), spec.context(),
                spec.precision().label(), spec.kvBytes() == 1 ? "fp8" : "bf16", spec.allReduceKernel().label(), spec.overlap().label(),
                spec.cudaGraphs());
        return new DecodeResult(m.name(), spec.system().name(), gpu.label(), spec.system().whatIf().describe(), layout, tpPath, contention, spec.engine().label(), KernelCosts.EFFICIENCY_SET,
                itl, tokensPerS, tokensPerS / spec.gpus(),
                1000 / itl, compute, comm, exposed, bytes, comm - latency, latency, memory.weightsBytes(),
                weightBytesRead / gpu.roofline().hbmBytesPerSecond() * 1000, memory.kvBytes(),
                memory.buffersBytes(), memory.total(), memory.capacityBytes(), timing.gpuPathMs(), timing.bubbleMs(), timing.hostMs(),
                timing.hostExposedMs(), timing.kernels(), timing.floorMs(), timing.rooflineMs(), List.copyOf(warnings), before, layers, after,
                List.copyOf(linkLoads));
    }

    /** Total length of the union of intervals. */
    private static double covered(List<double[]> intervals) {
        return merge(intervals).stream().mapToDouble(i -> i[1] - i[0]).sum();
    }

    /** Length of the time covered by both sets of intervals. */
    private static double overlap(List<double[]> a, List<double[]> b) {
        List<double[]> x = merge(a);
        List<double[]> y = merge(b);
        double sum = 0;
        int i = 0;
        int j = 0;
        while (i < x.size() && j < y.size()) {
            double lo = Math.max(x.get(i)[0], y.get(j)[0]);
            double hi = Math.min(x.get(i)[1], y.get(j)[1]);
            sum += Math.max(0, hi - lo);
            if (x.get(i)[1] < y.get(j)[1]) {
                i++;
            } else {
                j++;
            }
        }
        return sum;
    }

    private static List<double[]> merge(List<double[]> intervals) {
        List<double[]> sorted = new ArrayList<>(intervals);
        sorted.sort(Comparator.comparingDouble(i -> i[0]));
        List<double[]> out = new ArrayList<>();
        for (double[] i : sorted) {
            if (!out.isEmpty() && i[0] <= out.get(out.size() - 1)[1]) {
                out.get(out.size() - 1)[1] = Math.max(out.get(out.size() - 1)[1], i[1]);
            } else {
                out.add(new double[] {i[0], i[1]});
            }
        }
        return out;
    }
}
