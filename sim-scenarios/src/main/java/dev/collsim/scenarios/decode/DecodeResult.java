package dev.collsim.scenarios.decode;

import dev.collsim.core.units.Duration;
import dev.collsim.topologies.catalog.GpuModel;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * What a decode step (or a prompt's forward) costs, as one GPU of the first TP group sees it: what ran
 * where ({@link Setup}, {@link Layout}), what each GPU holds ({@link MemoryPlan}), the step's time and
 * what it is made of ({@link Timing}, {@link Communication}) and every kernel as it ran ({@link
 * Timeline}). Views print it; {@code metrics.DecodeMetrics} names each reported quantity once.
 */
public record DecodeResult(Setup setup, Layout layout, MemoryPlan memory, Timing timing, Communication comm, Timeline timeline,
                           List<String> warnings) {

    /**
     * What the step ran on and how it was modelled.
     *
     * @param whatIfs       the what-if knobs in force, in words; empty for none
     * @param tpPath        what the TP group's collectives cross: NVLink, PCIe, a CPU socket link, the network
     * @param contention    where collectives of different groups (or of one GPU, at once) share links, so that the
     *                      step ran every collective on one clock: said in a line; else empty
     * @param efficiencySet the name of the fitted kernel efficiencies in force
     */
    public record Setup(String model, String system, String gpu, String whatIfs, String tpPath, String contention, ServingEngine engine,
                        String efficiencySet) {}

    /**
     * The layout and its step's shape: {@code tp x pp x dp} GPUs, {@code batch} sequences per replica, each keeping {@code
     * speculation}'s acceptance of tokens a step (1 without speculative decoding); a MoE model's {@code experts} load, its
     * busiest EP rank taking {@code expertImbalance} times an even share of the picks (1 for a dense model); {@code
     * moeExchange} how its MoE tokens reach other ranks' experts, or null where they do not (no EP, or one replica).
     */
    public record Layout(int tp, int pp, int ep, int dp, int batch, int microBatch, int context, Precision dtype, Precision kvDtype,
                         AllReduceKind allreduce, Overlap overlap, boolean cudaGraphs, Speculation speculation, ExpertParallel experts,
                         double expertImbalance, ExpertParallel.Exchange moeExchange) {
        public int gpus() {
            return tp * pp * dp;
        }
    }

    /**
     * The step's time as users see it and what it is made of.
     *
     * @param step        the decode step: the GPU's work, then the host time it does not hide (a speculative step's
     *                    verification and drafts, its tokens those it keeps)
     * @param gpuPath     one micro-batch's path through every stage's kernels
     * @param bubble      what the slowest pipeline stage adds beyond that path (0 without PP)
     * @param host        the engine's host time between steps
     * @param hostExposed the part of it on the critical path
     * @param compute     the compute kernels' time, summed (overlapping kernels each counted)
     * @param weightsRead the weights one GPU's kernels read in the step at HBM's peak rate (an MoE layer's
     *                    unpicked experts are not read; two micro-batches read them twice)
     * @param kernels     kernels launched per step on one GPU (compute and communication)
     * @param kernelFloor their per-kernel floors summed: launch gaps and fixed times
     * @param roofline    the compute kernels' work at peak rates: what the roofline alone would give
     */
    public record Timing(Duration step, Duration gpuPath, Duration bubble, Duration host, Duration hostExposed, Duration compute,
                         Duration weightsRead, int kernels, Duration kernelFloor, Duration roofline) {
        /** The GPU's part of the step: the step less the host time it does not hide (a forward's time on the GPU). */
        public Duration gpu() {
            return step.minus(hostExposed);
        }
    }

    /**
     * The step's collectives on one GPU.
     *
     * @param busy          their time, summed
     * @param exposed       the part of it no compute kernel overlaps
     * @param bandwidthTerm their time less the part that does not shrink with size
     * @param latencyTerm   the part that does not shrink with size
     * @param bytesPerGpu   the data one GPU sends, as the algorithms move it (a ring or two-shot all-reduce
     *                      of S bytes on n GPUs sends 2 (n-1)/n S, a one-shot (n-1) S)
     */
    public record Communication(Duration busy, Duration exposed, Duration bandwidthTerm, Duration latencyTerm, long bytesPerGpu) {}

    /**
     * Every kernel of the step, by layer, from the step's start.
     *
     * @param linkLoads the followed GPU's and its NICs' links over a step on one clock; empty otherwise
     */
    public record Timeline(List<Span> beforeLayers, List<Layer> layers, List<Span> afterLayers, List<LinkLoad> linkLoads) {}

    /** What a kernel does: arithmetic on the GPU's SMs and memory, or a collective on the fabric. */
    public enum KernelKind {
        COMPUTE, COMM;

        /** As the JSON and the trace write it. */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * One kernel as it ran, for one micro-batch: {@code bytes} a collective's data sent per GPU or a compute
     * kernel's HBM traffic, {@code flops} a compute kernel's operations (0 for a collective).
     */
    public record Span(String name, KernelKind kind, int stream, int microBatch, Duration start, Duration end, long bytes, double flops) {
        public Duration length() {
            return Duration.ofMillis(end.ms() - start.ms());
        }
    }

    /** A layer's kernels, and their compute and communication time summed. */
    public record Layer(int index, boolean moe, Duration start, Duration end, Duration compute, Duration comm, List<Span> spans) {}

    /**
     * A link's load over a step that ran on one clock, for the trace: from each time on (ms), the
     * percent of its rate its flows used.
     */
    public record LinkLoad(String link, List<double[]> steps) {}

    /** The inter-token latency a sequence sees on average: the step over the tokens it keeps a step (TPOT under speculation). */
    public Duration itl() {
        return Duration.ofMillis(timing.step().ms() / layout.speculation().acceptance());
    }

    /** The decode step's time, whatever tokens it keeps. */
    public Duration step() {
        return timing.step();
    }

    /** The draft layer's passes, from the first draft kernel's start to the last's end (0 without speculative decoding). */
    public Duration draftTime() {
        List<Span> drafts = timeline.afterLayers().stream().filter(s -> s.name().startsWith(LayerKernels.DRAFT_PREFIX)).toList();
        return drafts.isEmpty() ? Duration.ZERO : Duration.ofMillis(drafts.stream().mapToDouble(s -> s.end().ms()).max().orElseThrow()
                - drafts.stream().mapToDouble(s -> s.start().ms()).min().orElseThrow());
    }

    public List<Layer> layers() {
        return timeline.layers();
    }

    /** Output tokens per second of the whole layout: every replica's batch, each sequence's tokens kept per step. */
    public double tokensPerS() {
        return layout.batch() * layout.dp() / (itl().ms() / 1000);
    }

    public double tokensPerSPerGpu() {
        return tokensPerS() / layout.gpus();
    }

    /** One sequence's tokens per second. */
    public double tokensPerSPerUser() {
        return 1000 / itl().ms();
    }

    static DecodeResult of(DecodeSpec spec, GpuModel gpu, String tpPath, String contention, MemoryPlan memory, double weightBytesRead,
                           List<Op> ops, StepTime time, List<String> warnings, List<LinkLoad> linkLoads) {
        ModelConfig m = spec.model();
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
            if (o.kind == KernelKind.COMM) {
                comm += d;
                latency += o.latencyMicros / 1000;
                bytes += o.bytes;
                commIntervals.add(new double[] {o.start, o.end});
            } else {
                compute += d;
                computeIntervals.add(new double[] {o.start, o.end});
            }
            Span s = new Span(o.name, o.kind, o.stream, o.microBatch, Duration.ofMicros(o.start), Duration.ofMicros(o.end), o.bytes, o.flops);
            (o.layer < 0 ? before : o.layer >= m.layers() ? after : perLayer.get(o.layer)).add(s);
        }
        List<Layer> layers = new ArrayList<>();
        for (int l = 0; l < m.layers(); l++) {
            List<Span> spans = perLayer.get(l);
            layers.add(new Layer(l, m.isMoe(l), Duration.ofMillis(spans.stream().mapToDouble(s -> s.start().ms()).min().orElse(0)),
                    Duration.ofMillis(spans.stream().mapToDouble(s -> s.end().ms()).max().orElse(0)),
                    Duration.ofMillis(spans.stream().filter(s -> s.kind() == KernelKind.COMPUTE).mapToDouble(s -> s.length().ms()).sum()),
                    Duration.ofMillis(spans.stream().filter(s -> s.kind() == KernelKind.COMM).mapToDouble(s -> s.length().ms()).sum()),
                    spans));
        }
        double exposed = (covered(commIntervals) - overlap(commIntervals, computeIntervals)) / 1000;
        Layout layout = new Layout(spec.tp(), spec.pp(), spec.ep(), spec.dp(), spec.batch(), spec.microBatch(), spec.context(),
                spec.precision(), spec.kvBytes() == 1 ? Precision.FP8 : Precision.BF16, spec.allReduceKernel(), spec.overlap(),
                spec.cudaGraphs(), spec.speculation(), spec.experts(), m.experts() == 0 ? 1
                        : spec.experts().busiest(m.experts(), m.expertsPerToken(), spec.ep()).share() * spec.ep(),
                spec.expertsGathered() || spec.expertsAllToAll() ? spec.experts().exchange() : null);
        Setup setup = new Setup(m.name(), spec.system().name(), gpu.label(), spec.system().whatIf().describe(), tpPath, contention,
                spec.engine(), KernelCosts.EFFICIENCY_SET);
        Timing timing = new Timing(time.step(), time.gpuPath(), time.bubble(), time.host(), time.hostExposed(), Duration.ofMillis(compute),
                Duration.ofMillis(weightBytesRead / gpu.roofline().hbmBytesPerSecond() * 1000), time.kernels(), time.floor(),
                time.roofline());
        Communication communication = new Communication(Duration.ofMillis(comm), Duration.ofMillis(exposed),
                Duration.ofMillis(comm - latency), Duration.ofMillis(latency), bytes);
        return new DecodeResult(setup, layout, memory, timing, communication,
                new Timeline(before, layers, after, List.copyOf(linkLoads)), List.copyOf(warnings));
    }

    /** What {@link DecodeStep} works out of the step's kernels: its time and its kernels' floors and bounds. */
    record StepTime(Duration step, Duration gpuPath, Duration bubble, Duration host, Duration hostExposed, int kernels, Duration floor,
                    Duration roofline) {}

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
