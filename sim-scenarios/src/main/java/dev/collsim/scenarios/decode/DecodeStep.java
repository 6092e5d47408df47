package dev.collsim.scenarios.decode;

import dev.collsim.core.input.InputException;
import dev.collsim.topologies.catalog.GpuModel;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One decode step of a model on a system, layer by layer, as one GPU of the first TP group sees it:
 * every kernel timed by the roofline, every collective simulated on its group's GPUs, all of them
 * scheduled on streams as {@code --overlap} issues them. All GPUs of a stage do the same work, so one
 * stands for them; with pipeline stages the step follows one micro-batch through every stage.
 */
public final class DecodeStep {
    /** Tiles a fused GEMM and its collective are cut into. */
    static final int FUSED_TILES = 4;

    private final DecodeSpec spec;
    private final ModelConfig m;
    private final Machine machine;
    private final GpuModel gpu;
    private final KernelCosts k;
    private final CommModel comm;
    private final List<Op> ops = new ArrayList<>();
    /** Per micro-batch, the ops built but not yet issued; {@link #issue} interleaves them. */
    private final List<List<Op>> pending = new ArrayList<>();
    private final List<String> warnings = new ArrayList<>();
    private final int commStream;
    /** The weights the step's kernels read, every micro-batch and stage: what HBM must deliver at least. */
    private double weightBytesRead;
    private final int gpusPerNode;
    private final dev.collsim.scenarios.stochastic.Variability noise;
    private final int stragglerStage;

    private DecodeStep(DecodeSpec spec, CommModel.Cache cache, dev.collsim.scenarios.stochastic.Variability noise) {
        this.spec = spec;
        this.m = spec.model();
        this.machine = Machine.of(spec);
        this.gpu = machine.gpu();
        this.k = new KernelCosts(gpu.roofline(), spec.precision(), spec.cudaGraphs());
        this.gpusPerNode = machine.gpusPerNode();
        this.noise = noise;
        boolean jitter = noise != null && (noise.spec().launchCv() > 0 || noise.spec().stepCv() > 0);
        this.comm = jitter ? new CommModel(machine, spec.allReduce(), noise) : cache.forSpec(spec, () -> machine);
        // The step follows replica 0, whose stage s holds GPUs s*tp .. s*tp+tp-1: a straggler there slows that stage.
        int straggler = noise == null ? -1 : noise.straggler(spec.gpus());
        this.stragglerStage = straggler >= 0 && straggler < spec.tp() * spec.pp() ? straggler / spec.tp() : -1;
        this.commStream = spec.overlap() == Overlap.NONE ? 0 : 1;
    }

    /** Simulates the step. */
    public static DecodeResult run(DecodeSpec spec) {
        return run(spec, new CommModel.Cache());
    }

    /** Simulates the step, reusing collectives already simulated for other steps on the same machine. */
    public static DecodeResult run(DecodeSpec spec, CommModel.Cache cache) {
        return new DecodeStep(spec, cache, null).simulate();
    }

    /**
     * One replication of a stochastic step: kernel launches and collective steps jittered, and a
     * straggler (drawn or named) slowing the stage of replica 0 it sits in; collectives are simulated
     * afresh with this replication's draws unless only a straggler varies.
     */
    public static DecodeResult run(DecodeSpec spec, CommModel.Cache cache, dev.collsim.scenarios.stochastic.Variability noise) {
        return new DecodeStep(spec, cache, noise).simulate();
    }

    /** Whether the layout's weights and KV cache could fit in the GPUs' memory (buffers aside); cheap, simulates nothing. */
    public static boolean fits(DecodeSpec spec) {
        GpuModel gpu = Machine.of(spec).gpu();
        return MemoryPlan.of(spec, gpu, 0, spec.ep()).fits();
    }

    private DecodeResult simulate() {
        checkPlacement();
        MemoryPlan memory = MemoryPlan.of(spec, gpu, spec.tp() > 1 ? comm.group(spec.tp()).ring().channels() : 0, spec.ep());
        if (!memory.fits()) {
            throw memory.error(spec, gpu.label(), suggestion());
        }
        warn("TP", spec.tp());
        if (spec.ep() > 1) {
            warn("EP", spec.ep());
        }
        int micro = spec.overlap() == Overlap.TWO_BATCH ? 2 : 1;
        int[] tokens = new int[micro];
        for (int b = 0; b < micro; b++) {
            tokens[b] = spec.batch() / micro + (b < spec.batch() % micro ? 1 : 0);
        }
        Op[] last = new Op[micro];
        for (int b = 0; b < micro; b++) {
            pending.add(new ArrayList<>());
        }
        for (int b = 0; b < micro; b++) {
            last[b] = compute("embed", -1, b, 0, (double) tokens[b] * m.hidden() * Precision.ACTIVATION_BYTES * 2, last[b]);
        }
        issue();
        for (int l = 0; l < m.layers(); l++) {
            layer(l, tokens, last);
            int stage = l * spec.pp() / m.layers();
            int next = (l + 1) * spec.pp() / m.layers();
            if (l + 1 < m.layers() && next != stage) {
                for (int b = 0; b < micro; b++) {
                    long bytes = (long) tokens[b] * m.hidden() * Precision.ACTIVATION_BYTES;
                    last[b] = collective("send_to_stage" + next, l, b, comm.stageSend(spec.tp() * spec.pp() <= gpusPerNode, bytes), last[b]);
                }
            }
            issue();
        }
        for (int b = 0; b < micro; b++) {
            int t = tokens[b];
            last[b] = compute("final_norm", m.layers(), b, 0, norm(t), last[b]);
            double head = (double) m.vocab() * m.hidden() / spec.tp();
            last[b] = compute("lm_head", m.layers(), b, 2 * t * head, weights(head * spec.precision().bytesPerParam()), last[b]);
            if (spec.tp() > 1) {
                long shard = (long) t * m.vocab() / spec.tp() * Precision.ACTIVATION_BYTES;
                last[b] = collective("logits_gather", m.layers(), b, comm.gatherToFirst(spec.tp(), shard), last[b]);
            }
            last[b] = compute("sample", m.layers(), b, 0, (double) t * m.vocab() * 4, last[b]);
        }
        issue();
        StreamScheduler.run(ops, gpu.roofline().sms(), 2);
        List<String> tpCrossings = spec.tp() > 1 ? comm.crossings(spec.tp()) : List.of();
        String tpPath = spec.tp() == 1 ? "none" : tpCrossings.isEmpty() ? "NVLink" : String.join(" and ", tpCrossings);
        // Every stage reads its own layers: per GPU, about a stage's share.
        return DecodeResult.of(spec, gpu, tpPath, memory, weightBytesRead / spec.pp(), ops, warnings);
    }

    /** The layer's kernels for every micro-batch, issued so that one's collective can run under the other's compute. */
    private void layer(int l, int[] tokens, Op[] last) {
        int micro = tokens.length;
        Op[] attnOut = new Op[micro];
        for (int b = 0; b < micro; b++) {
            attnOut[b] = attention(l, b, tokens[b], last[b]);
        }
        Op[] reduced = new Op[micro];
        for (int b = 0; b < micro; b++) {
            reduced[b] = tpReduce("attn_all_reduce", l, b, tokens[b], attnOut[b]);
        }
        for (int b = 0; b < micro; b++) {
            last[b] = m.isMoe(l) ? moe(l, b, tokens[b], reduced[b]) : mlp(l, b, tokens[b], reduced[b]);
        }
    }

    private Op attention(int l, int b, int t, Op after) {
        Op op = compute("attn_norm", l, b, 0, norm(t), after);
        double qPerRank = (double) m.heads() / spec.tp();
        double bpp = spec.precision().bytesPerParam();
        double qkv = m.qkvParamsPerRank(spec.tp());
        double outParams = m.outParamsPerRank(spec.tp());
        double cacheBytes = (double) t * spec.context() * m.kvElementsPerTokenPerRank(spec.tp()) * spec.precision().kvBytes();
        // Scores and values over the cache; MLA's absorbed form scores against the latent and rope key.
        double attnFlops = m.mla() == null ? 4.0 * t * spec.context() * qPerRank * m.headDim()
                : 2.0 * t * spec.context() * qPerRank * (2.0 * m.mla().kvLoraRank() + m.mla().ropeHeadDim());
        op = compute("qkv_proj", l, b, 2 * t * qkv, weights(qkv * bpp), op);
        op = compute("attention", l, b, attnFlops, cacheBytes, op);
        return gemmThenReduce("o_proj", l, b, t, outParams, op);
    }

    private Op mlp(int l, int b, int t, Op after) {
        double inner = (double) m.intermediate() / spec.tp();
        Op op = compute("mlp_norm", l, b, 0, norm(t), after);
        op = compute("gate_up_proj", l, b, 4.0 * t * m.hidden() * inner, weights(2 * m.hidden() * inner * spec.precision().bytesPerParam()), op);
        op = compute("act", l, b, 0, 3.0 * t * inner * Precision.ACTIVATION_BYTES, op);
        Op down = gemmThenReduce("down_proj", l, b, t, inner * m.hidden(), op);
        return tpReduce("mlp_all_reduce", l, b, t, down);
    }

    /**
     * Router, then either experts split over the TP ranks (every expert a slice on every rank, an
     * all-reduce after) or experts spread over the EP ranks (a dispatch and a combine all-to-all).
     * Routing is uniform: of E experts, those that get at least one of the T x k picks are read.
     */
    private Op moe(int l, int b, int t, Op after) {
        double bpp = spec.precision().bytesPerParam();
        double expert = m.mlpParams(m.moeIntermediate());
        Op op = compute("mlp_norm", l, b, 0, norm(t), after);
        op = compute("router", l, b, 2.0 * t * m.hidden() * m.experts(), weights((double) m.hidden() * m.experts() * bpp), op);
        if (spec.ep() == 1) {
            double active = m.experts() * (1 - Math.pow(1 - (double) m.expertsPerToken() / m.experts(), t));
            op = compute("experts", l, b, 2.0 * t * m.expertsPerToken() * expert / spec.tp(), weights(active * expert / spec.tp() * bpp), op);
            if (m.sharedExperts() > 0) {
                double shared = m.sharedExperts() * expert / spec.tp();
                op = compute("shared_experts", l, b, 2.0 * t * shared, weights(shared * bpp), op);
            }
            return tpReduce("moe_all_reduce", l, b, t, op);
        }
        // Each rank of the replica's TP group takes 1/tp of its tokens to the experts.
        double local = Math.ceil((double) t / spec.tp());
        double global = (double) t * spec.dp();
        long dispatch = (long) (local * m.expertsPerToken() * m.hidden() * spec.precision().dispatchBytes());
        op = collective("dispatch", l, b, comm.allToAll(spec.ep(), dispatch), op);
        // The busiest rank sets the step: it holds ceil(E / ep) experts and gets their share of the picks.
        double perRank = MemoryPlan.expertsOnBusiestRank(m.experts(), spec.ep());
        double active = perRank * (1 - Math.pow(1 - (double) m.expertsPerToken() / m.experts(), global));
        double arriving = global * m.expertsPerToken() * perRank / m.experts();
        op = compute("experts", l, b, 2.0 * arriving * expert, weights(active * expert * bpp), op);
        if (m.sharedExperts() > 0) {
            double shared = m.sharedExperts() * expert;
            op = compute("shared_experts", l, b, 2.0 * local * shared, weights(shared * bpp), op);
        }
        long combine = (long) (local * m.expertsPerToken() * m.hidden() * Precision.ACTIVATION_BYTES);
        op = collective("combine", l, b, comm.allToAll(spec.ep(), combine), op);
        if (spec.tp() > 1) {
            long gathered = (long) t * m.hidden() * Precision.ACTIVATION_BYTES;
            op = collective("moe_all_gather", l, b, comm.allGather(spec.tp(), gathered), op);
        }
        return op;
    }

    /**
     * A GEMM whose output the TP group then reduces. With {@code --overlap fused} it runs in tiles in
     * one kernel, each tile's share of the reduction leaving as the tile ends (its bandwidth share of
     * the collective); the collective's fixed latency is paid once, after the last tile, as the fused
     * kernel's final barrier.
     */
    private Op gemmThenReduce(String name, int l, int b, int t, double params, Op after) {
        double flops = 2.0 * t * params;
        double bytes = weights(params * spec.precision().bytesPerParam());
        if (spec.overlap() != Overlap.FUSED || spec.tp() == 1) {
            return compute(name, l, b, flops, bytes, after);
        }
        double whole = k.workMicros(flops, bytes) * slowdown(l);
        long message = (long) t * m.hidden() * Precision.ACTIVATION_BYTES;
        CommModel.Cost full = comm.allReduce(spec.tp(), message);
        CommModel.Cost tile = comm.allReduceSlice(spec.tp(), Math.max(16, message / FUSED_TILES), full);
        double tileBandwidth = tile.micros() - tile.latencyMicros();
        Op gemm = after;
        Op[] reductions = new Op[FUSED_TILES];
        for (int i = 0; i < FUSED_TILES; i++) {
            boolean lastTile = i == FUSED_TILES - 1;
            double micros = whole / FUSED_TILES + (i == 0 ? launch() : 0);
            gemm = add(new Op(name + "[" + i + "]", l, b, Op.Kind.COMPUTE, 0, micros, 0, 0, 0).after(gemm));
            reductions[i] = add(new Op(name + "_all_reduce[" + i + "]", l, b, Op.Kind.COMM, 1,
                    tileBandwidth + (lastTile ? full.latencyMicros() : 0), tile.sms(), tile.bytesSent(),
                    lastTile ? full.latencyMicros() : 0).after(gemm));
        }
        return add(new Op(name + "_reduced", l, b, Op.Kind.COMPUTE, 0, 0, 0, 0, 0).after(reductions));
    }

    /** The TP group's all-reduce of the activations, unless fused into the GEMM before it (or there is no TP group). */
    private Op tpReduce(String name, int l, int b, int t, Op after) {
        if (spec.tp() == 1 || (spec.overlap() == Overlap.FUSED && !name.equals("moe_all_reduce"))) {
            return after;
        }
        long bytes = (long) t * m.hidden() * Precision.ACTIVATION_BYTES;
        return collective(name, l, b, comm.allReduce(spec.tp(), bytes), after);
    }

    private double norm(int t) {
        return 2.0 * t * m.hidden() * Precision.ACTIVATION_BYTES;
    }

    private Op compute(String name, int layer, int b, double flops, double bytes, Op after) {
        return add(new Op(name, layer, b, Op.Kind.COMPUTE, 0, launch() + k.workMicros(flops, bytes) * slowdown(layer), 0, 0, 0)
                .after(after));
    }

    private Op collective(String name, int layer, int b, CommModel.Cost c, Op after) {
        double launch = launch();
        return add(new Op(name, layer, b, Op.Kind.COMM, commStream, c.micros() + launch, c.sms(), c.bytesSent(),
                c.latencyMicros() + launch).after(after));
    }

    /** Counts a GEMM's weights among those the step reads. */
    private double weights(double bytes) {
        weightBytesRead += bytes;
        return bytes;
    }

    /** A kernel launch, jittered in a stochastic run. */
    private double launch() {
        return k.launchMicros() * (noise == null ? 1 : noise.launchFactor());
    }

    /** The straggler's factor for a layer's kernels if its stage holds the straggler, else 1. */
    private double slowdown(int layer) {
        if (stragglerStage < 0) {
            return 1;
        }
        int stage = layer < 0 ? 0 : layer >= m.layers() ? spec.pp() - 1 : layer * spec.pp() / m.layers();
        return stage == stragglerStage ? noise.spec().stragglerFactor() : 1;
    }

    private Op add(Op op) {
        pending.get(op.microBatch).add(op);
        return op;
    }

    /**
     * Issues the pending ops in stages: each micro-batch's ops up to and including its next
     * collective, then the next micro-batch's, and so on, as SGLang's two-batch overlap yields at each
     * communication. On FIFO streams that lets one micro-batch compute while the other's collective runs.
     */
    private void issue() {
        boolean left = true;
        int[] at = new int[pending.size()];
        while (left) {
            left = false;
            for (int b = 0; b < pending.size(); b++) {
                List<Op> list = pending.get(b);
                while (at[b] < list.size()) {
                    Op op = list.get(at[b]++);
                    ops.add(op);
                    if (op.kind == Op.Kind.COMM) {
                        break;
                    }
                }
                left |= at[b] < list.size();
            }
        }
        pending.forEach(List::clear);
    }

    /** Nodes a layout's GPUs fill. */
    private int nodesFor(DecodeSpec layout) {
        return (layout.gpus() + gpusPerNode - 1) / gpusPerNode;
    }

    private void checkPlacement() {
        int needed = nodesFor(spec);
        if (spec.nodes() != null && spec.nodes() < needed) {
            throw new InputException(String.format(Locale.ROOT, "--nodes %d: tp %d x pp %d x dp %d = %d GPUs need %d node(s) of %s",
                    spec.nodes(), spec.tp(), spec.pp(), spec.dp(), spec.gpus(), needed, machine.name()));
        }
        if (needed > machine.maxNodes()) {
            throw new InputException(String.format(Locale.ROOT, "tp %d x pp %d x dp %d = %d GPUs: %s has %d node(s) of %d GPUs",
                    spec.tp(), spec.pp(), spec.dp(), spec.gpus(), machine.name(), machine.maxNodes(), gpusPerNode));
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
            if (nodesFor(more) <= machine.maxNodes() && MemoryPlan.of(more, gpu, 0, spec.ep()).fits()) {
                return "--pp " + pp + " would fit (" + more.gpus() + " GPUs)";
            }
        }
        if (spec.precision() == Precision.BF16 && MemoryPlan.of(spec.withPrecision(Precision.FP8), gpu, 0, spec.ep()).fits()) {
            return "--dtype fp8 would fit";
        }
        return "try a smaller --batch or --context, or more GPUs";
    }
}
