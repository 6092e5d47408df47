package dev.collsim.scenarios.decode;

import dev.collsim.core.input.InputException;
import dev.collsim.core.units.Duration;
import dev.collsim.scenarios.stochastic.Variability;
import dev.collsim.topologies.catalog.GpuModel;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One decode step of a model on a system, layer by layer, as one GPU of the first TP group sees it:
 * the engine's kernels ({@link LayerKernels}), every collective simulated on its group's GPUs, all of
 * them scheduled on streams as {@code --overlap} issues them, then the engine's host time. All GPUs
 * of a stage do the same work, so one stands for them; with pipeline stages the step follows one
 * micro-batch through every stage. It checks the layout first: placement, memory, the design rules.
 */
public final class DecodeStep {
    /** How a step times its collectives. */
    private enum Clock {
        /** Every collective of every group on one clock, whether or not they contend. */
        ONE_CLOCK,
        /** Every collective as long as it takes alone, whether or not they contend. */
        ALONE,
        /** On one clock where collectives can share links, else alone (which is then exact). */
        AS_THEY_CONTEND
    }

    private final DecodeSpec spec;
    private final ModelConfig m;
    private final Machine machine;
    private final GpuModel gpu;
    private final CommModel comm;
    private final LayoutGroups layout;
    private final LayerKernels kernels;
    private final List<String> warnings = new ArrayList<>();
    private final int gpusPerNode;
    /** How the step's collectives are timed: on one clock or alone, always or as they contend. */
    private Clock clock = Clock.AS_THEY_CONTEND;
    /** Whether the step refuses a batch and context whose KV cache does not fit (a load run's block pool decides instead). */
    private boolean memoryChecked = true;
    /** Drawn launch and step times or a straggler: collectives keep their alone times (see {@link OneClock}). */
    private final boolean stochastic;
    /** A forward over one prompt instead of a decode step: {@code batch} new tokens of one sequence, {@code context} long. */
    private final boolean prefill;

    private DecodeStep(DecodeSpec spec, CommModel.Cache cache, Variability noise, boolean prefill) {
        this(spec, cache, noise, prefill, 0);
    }

    private DecodeStep(DecodeSpec spec, CommModel.Cache cache, Variability noise, boolean prefill, int cachedBefore) {
        this.spec = spec;
        this.prefill = prefill;
        this.m = spec.model();
        this.machine = Machine.of(spec);
        this.gpu = machine.gpu();
        this.gpusPerNode = machine.gpusPerNode();
        boolean jitter = noise != null && (noise.spec().launchCv() > 0 || noise.spec().stepCv() > 0);
        this.stochastic = noise != null;
        this.comm = jitter ? new CommModel(machine, spec.allReduceKernel(), spec.customAllReduceRule(), noise) : cache.forSpec(spec, () -> machine);
        this.layout = new LayoutGroups(spec, machine, comm);
        this.kernels = new LayerKernels(spec, gpu, comm, layout, noise, prefill, cachedBefore);
    }

    /** Simulates the step. */
    public static DecodeResult run(DecodeSpec spec) {
        return run(spec, new CommModel.Cache());
    }

    /**
     * Simulates the step with every collective of every group on one clock whether or not they
     * contend: what {@link #run} gives where it takes the shortcut of alone times ({@link OneClock}).
     */
    static DecodeResult onOneClock(DecodeSpec spec) {
        DecodeStep step = new DecodeStep(spec, new CommModel.Cache(), null, false);
        step.clock = Clock.ONE_CLOCK;
        return step.simulate();
    }

    /**
     * The step with every collective as long as it takes alone, whether or not collectives contend:
     * quicker to simulate than {@link #run}, and as a rule no slower a step, as contention lengthens
     * collectives (a layout search ranks by it, then simulates in full what it shows).
     */
    public static DecodeResult estimate(DecodeSpec spec, CommModel.Cache cache) {
        DecodeStep step = new DecodeStep(spec, cache, null, false);
        step.clock = Clock.ALONE;
        return step.simulate();
    }

    /**
     * As {@link #run(DecodeSpec, CommModel.Cache)}, for a step of a serving engine whose KV cache is a block pool the
     * scheduler fills (a load run): the pool, not this step, decides what fits, so the memory is not checked here.
     */
    public static DecodeResult runInBlockPool(DecodeSpec spec, CommModel.Cache cache) {
        DecodeStep step = new DecodeStep(spec, cache, null, false);
        step.memoryChecked = false;
        return step.simulate();
    }

    /** Simulates the step, reusing collectives already simulated for other steps on the same machine. */
    public static DecodeResult run(DecodeSpec spec, CommModel.Cache cache) {
        return new DecodeStep(spec, cache, null, false).simulate();
    }

    /**
     * The GPU time of one prompt's forward pass, in ms: {@code spec.batch()} prompt tokens of one
     * sequence ({@code spec.context()} the same), through the layout's kernels and collectives, as
     * serving engines run the prefills of arriving requests between (or inside) decode steps. GEMMs
     * take every prompt token as a row; attention is causal (each token attends to those before it),
     * in tiles of 128 tokens over the SMs ({@link KernelCosts#promptAttentionMicros}); MLA runs in its
     * uncompressed form, its keys and values projected up from the latent; only the last token's
     * logits are computed. Memory is the decode step's to check; the host's time is not counted.
     */
    public static double prefillMs(DecodeSpec spec, CommModel.Cache cache) {
        DecodeResult r = prefillForward(spec, 0, cache, false);
        return r.timing().gpu().ms();
    }

    /**
     * One forward of prompt tokens: {@code spec.batch()} rows (every request's new tokens), each
     * request's context {@code spec.context()} long of which {@code cachedBefore} tokens were cached by
     * earlier chunks, launched without CUDA graphs; as {@link #prefillMs} says, the host's time is not in it. {@code alone}: every
     * collective as long as it takes alone, as {@link #estimate} has it.
     */
    static DecodeResult prefillForward(DecodeSpec spec, int cachedBefore, CommModel.Cache cache, boolean alone) {
        // Launched eagerly: engines capture CUDA graphs of decode batches (vLLM and SGLang up to 512 tokens), and
        // TensorRT-LLM's context phase runs without one.
        DecodeStep step = new DecodeStep(spec.withCudaGraphs(false), cache, null, true, cachedBefore);
        if (alone) {
            step.clock = Clock.ALONE;
        }
        return step.simulate();
    }

    /** Throws the decode step's one-line error when the layout's weights and KV cache do not fit. */
    static void requireFits(DecodeSpec spec) {
        new DecodeStep(spec, new CommModel.Cache(), null, false).checkMemory();
    }

    /**
     * One replication of a stochastic step: kernel launches and collective steps jittered, and a
     * straggler (drawn or named) slowing the stage of replica 0 it sits in; collectives are simulated
     * afresh with this replication's draws unless only a straggler varies.
     */
    public static DecodeResult run(DecodeSpec spec, CommModel.Cache cache, Variability noise) {
        return new DecodeStep(spec, cache, noise, false).simulate();
    }

    /**
     * Tokens of KV cache one replica of the layout holds when the engine takes {@code memoryFraction} of each GPU's
     * memory (vLLM's gpu_memory_utilization, SGLang's mem_fraction_static): that share less the busiest stage's weights,
     * the communication buffers and the reserve, over what one token's keys and values take on that stage's GPU. 0 or
     * less where the weights alone do not fit. {@code ofFree}: the fraction is of what the weights, buffers and reserve leave
     * (TensorRT-LLM's free_gpu_memory_fraction), not of all memory.
     */
    public static long kvTokenCapacity(DecodeSpec spec, double memoryFraction, boolean ofFree) {
        DecodeStep step = new DecodeStep(spec.withTokens(1, 1), new CommModel.Cache(), null, false);
        MemoryPlan plan = step.memoryPlan();
        double taken = plan.weightsBytes() + plan.buffersBytes() + plan.reserveBytes();
        double free = ofFree ? (plan.capacityBytes() - taken) * memoryFraction : plan.capacityBytes() * memoryFraction - taken;
        // One token of one sequence: the plan's KV at batch 1 and context 1.
        return plan.kvBytes() <= 0 ? 0 : (long) Math.floor(free / plan.kvBytes());
    }

    /** One GPU's memory in the layout's system, bytes: what engines size their defaults by. */
    public static double gpuMemoryBytes(DecodeSpec spec) {
        return Machine.of(spec).gpu().roofline().hbmBytes();
    }

    /**
     * The linear layers' state of one sequence in tokens of KV cache, rounded up: what a running sequence of a hybrid model
     * holds beside its tokens' KV (vLLM's hybrid KV cache manager gives each sequence's state pages of the attention's
     * size; SGLang's mamba pool a slot per running request). 0 for a model without linear layers.
     */
    public static long stateTokensPerSequence(DecodeSpec spec) {
        MemoryPlan plan = new DecodeStep(spec.withTokens(1, 1), new CommModel.Cache(), null, false).memoryPlan();
        return plan.stateBytes() <= 0 ? 0 : (long) Math.ceil(plan.stateBytes() / plan.kvBytes());
    }

    /** Whether the layout's weights and KV cache could fit in the GPUs' memory (buffers aside); cheap, simulates nothing. */
    public static boolean fits(DecodeSpec spec) {
        GpuModel gpu = Machine.of(spec).gpu();
        return MemoryPlan.of(spec, gpu, 0, spec.ep()).fits();
    }

    private DecodeResult simulate() {
        checkPlacement();
        MemoryPlan memory = prefill || !memoryChecked ? memoryPlan() : checkMemory();
        warn("TP", spec.tp());
        if (spec.ep() > 1) {
            warn("EP", spec.ep());
        }
        if (!prefill) {
            // A prefill's KV cache leaves over the network: the knobs act on it.
            noteIdleNetworkKnobs();
        }
        // The pipeline keeps one micro-batch per stage in flight; the step follows one of them through every stage.
        // A prompt's forward goes through the stages whole: its first token waits for all of it.
        int inFlight = prefill ? spec.batch() : spec.microBatch();
        int micro = spec.overlap() == Overlap.TWO_BATCH ? 2 : 1;
        // A speculative step verifies each sequence's last token and its drafts: that many tokens a sequence in every layer.
        int perSequence = prefill ? 1 : spec.speculation().verified();
        int[] sequences = new int[micro];
        int[] tokens = new int[micro];
        for (int b = 0; b < micro; b++) {
            sequences[b] = inFlight / micro + (b < inFlight % micro ? 1 : 0);
            tokens[b] = sequences[b] * perSequence;
        }
        Op[] last = new Op[micro];
        kernels.embed(tokens, last);
        for (int l = 0; l < m.layers(); l++) {
            kernels.layer(l, tokens, last);
            if (l + 1 < m.layers() && stageOf(l + 1) != stageOf(l)) {
                kernels.stageSend(l, stageOf(l + 1), layout.stagesShareANode(stageOf(l)), tokens, last);
            }
            kernels.issue();
        }
        kernels.head(tokens, last);
        if (spec.speculation().speculates()) {
            kernels.draft(tokens, sequences, last);
        }
        List<Op> ops = kernels.ops();
        List<DecodeResult.LinkLoad> loads = OneClock.schedule(ops, gpu.roofline().sms(),
                stochastic || clock == Clock.ALONE ? null : layout, clock == Clock.ONE_CLOCK);
        boolean contended = loads != null && clock == Clock.AS_THEY_CONTEND;
        List<String> tpCrossings = spec.tp() > 1 ? comm.crossings(spec.tp()) : List.of();
        String tpPath = spec.tp() == 1 ? "none" : tpCrossings.isEmpty() ? "NVLink" : String.join(" and ", tpCrossings);
        // Every stage reads its own layers: per GPU, about a stage's share.
        return DecodeResult.of(spec, gpu, tpPath, contended ? OneClock.CONTENDED : "", memory, kernels.weightBytesRead() / spec.pp(), ops,
                timing(ops), warnings, loads == null ? List.of() : loads);
    }

    private MemoryPlan memoryPlan() {
        return MemoryPlan.of(spec, gpu, spec.tp() > 1 ? comm.group(spec.tp()).nccl().ring().channels() : 0, spec.ep());
    }

    private MemoryPlan checkMemory() {
        MemoryPlan memory = memoryPlan();
        if (!memory.fits()) {
            throw memory.error(spec, gpu.label(), suggestion());
        }
        return memory;
    }

    /**
     * The step's time as users see it: the micro-batch's path through the pipeline, or, when the
     * slowest stage is busier than that, the pipeline's stages times that stage (each stage serves
     * every micro-batch in turn); a prompt's forward, the path alone (its prompts are the one batch in
     * flight); then the engine's host time that its GPU work does not hide.
     */
    private DecodeResult.StepTime timing(List<Op> ops) {
        double[] stageEnd = new double[spec.pp()];
        double floor = 0;
        double roofline = 0;
        int kernels = 0;
        for (Op o : ops) {
            int s = o.layer < 0 ? 0 : stageOf(Math.min(o.layer, m.layers() - 1));
            stageEnd[s] = Math.max(stageEnd[s], o.end);
            floor += o.floorMicros;
            roofline += o.rooflineMicros;
            kernels += o.launch && o.micros > 0 ? 1 : 0;
        }
        double path = stageEnd[spec.pp() - 1];
        double slowest = 0;
        for (int s = 0; s < spec.pp(); s++) {
            slowest = Math.max(slowest, stageEnd[s] - (s == 0 ? 0 : stageEnd[s - 1]));
        }
        double gpuStep = prefill ? path : Math.max(path, spec.pp() * slowest);
        double host = spec.engine().hostMicros(spec.batch());
        double exposedHost = spec.hostOverlapped() ? Math.max(0, host - gpuStep) : host;
        return new DecodeResult.StepTime(Duration.ofMicros(gpuStep + exposedHost), Duration.ofMicros(path), Duration.ofMicros(gpuStep - path),
                Duration.ofMicros(host), Duration.ofMicros(exposedHost), kernels, Duration.ofMicros(floor), Duration.ofMicros(roofline));
    }

    /** The pipeline stage that holds layer {@code l}. */
    private int stageOf(int l) {
        return LayerKernels.stageOf(spec, l);
    }

    private void checkPlacement() {
        int needed = machine.nodesFor(spec.gpus());
        if (spec.nodes().isPresent() && spec.nodes().getAsInt() < needed) {
            throw new InputException(String.format(Locale.ROOT, "--nodes %d: tp %d x pp %d x dp %d = %d GPUs need %d node(s) of %s",
                    spec.nodes().getAsInt(), spec.tp(), spec.pp(), spec.dp(), spec.gpus(), needed, machine.name()));
        }
        if (needed > machine.maxNodes()) {
            throw new InputException(String.format(Locale.ROOT, "tp %d x pp %d x dp %d = %d GPUs: %s has %d node(s) of %d GPUs",
                    spec.tp(), spec.pp(), spec.dp(), spec.gpus(), machine.name(), machine.maxNodes(), gpusPerNode));
        }
    }

    /**
     * A knob that acts only between nodes changes nothing when every group the step simulates (TP,
     * EP, the pipeline's sends) stays inside one node: said, not left silent.
     */
    private void noteIdleNetworkKnobs() {
        List<String> knobs = spec.system().whatIf().networkOnly();
        boolean crossesNodes = spec.tp() > gpusPerNode || spec.ep() > gpusPerNode || (spec.pp() > 1 && spec.tp() * spec.pp() > gpusPerNode);
        if (!knobs.isEmpty() && !crossesNodes) {
            warnings.add(String.join(", ", knobs) + (knobs.size() == 1 ? " acts" : " act") + " on the network between nodes, but every group of this step (TP "
                    + spec.tp() + ", EP " + spec.ep() + ", PP " + spec.pp() + ") stays inside one node of " + gpusPerNode
                    + " GPUs: " + (knobs.size() == 1 ? "it changes" : "they change") + " nothing here (data-parallel replicas exchange nothing"
                    + " while decoding)");
        }
    }

    /** The design rule: keep TP (and EP) inside an NVLink domain. */
    private void warn(String what, int size) {
        List<String> crossed = comm.crossings(size);
        if (!crossed.isEmpty()) {
            warnings.add(what + " group of " + size + " GPUs crosses " + String.join(" and ", crossed)
                    + ": its collectives run far slower than inside an NVLink domain");
        }
    }

    /** A layout that would fit: more pipeline stages, or else FP8 weights. */
    private String suggestion() {
        for (int pp = spec.pp() * 2; pp <= Math.min(64, m.layers()); pp *= 2) {
            DecodeSpec more = spec.withPp(pp);
            // Only a layout this system has GPUs for (a PCIe server is one node).
            if (machine.nodesFor(more.gpus()) <= machine.maxNodes() && MemoryPlan.of(more, gpu, 0, spec.ep()).fits()) {
                return "--pp " + pp + " would fit (" + more.gpus() + " GPUs)";
            }
        }
        if (spec.precision() == Precision.BF16 && MemoryPlan.of(spec.withPrecision(Precision.FP8), gpu, 0, spec.ep()).fits()) {
            return "--dtype fp8 would fit";
        }
        return "try a smaller --batch or --context, or more GPUs";
    }
}
