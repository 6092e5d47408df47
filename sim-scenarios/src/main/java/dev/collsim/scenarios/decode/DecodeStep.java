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
    /** A forward over one prompt instead of a decode step: {@code batch} new tokens of one sequence, {@code context} long. */
    private final boolean prefill;

    private DecodeStep(DecodeSpec spec, CommModel.Cache cache, dev.collsim.scenarios.stochastic.Variability noise, boolean prefill) {
        this.spec = spec;
        this.prefill = prefill;
        this.m = spec.model();
        this.machine = Machine.of(spec);
        this.gpu = machine.gpu();
        this.k = new KernelCosts(gpu.roofline(), spec.cudaGraphs(), spec.engine());
        this.gpusPerNode = machine.gpusPerNode();
        this.noise = noise;
        boolean jitter = noise != null && (noise.spec().launchCv() > 0 || noise.spec().stepCv() > 0);
        this.comm = jitter ? new CommModel(machine, spec.allReduceKernel(), noise) : cache.forSpec(spec, () -> machine);
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
        return new DecodeStep(spec, cache, null, false).simulate();
    }

    /**
     * The GPU time of one prompt's forward pass, in ms: {@code spec.batch()} prompt tokens of one
     * sequence ({@code spec.context()} the same), through the layout's kernels and collectives, as
     * serving engines run the prefills of arriving requests between (or inside) decode steps. GEMMs
     * take every prompt token as a row; attention is causal (each token attends to those before it)
     * and reads the prompt's keys and values once per tile of 128 queries; MLA runs in its
     * uncompressed form, its keys and values projected up from the latent; only the last token's
     * logits are computed. Memory is the decode step's to check; the host's time is not counted.
     */
    public static double prefillMs(DecodeSpec spec, CommModel.Cache cache) {
        DecodeResult r = new DecodeStep(spec, cache, null, true).simulate();
        return r.itlMs() - r.hostExposedMs();
    }

    /**
     * One replication of a stochastic step: kernel launches and collective steps jittered, and a
     * straggler (drawn or named) slowing the stage of replica 0 it sits in; collectives are simulated
     * afresh with this replication's draws unless only a straggler varies.
     */
    public static DecodeResult run(DecodeSpec spec, CommModel.Cache cache, dev.collsim.scenarios.stochastic.Variability noise) {
        return new DecodeStep(spec, cache, noise, false).simulate();
    }

    /** Whether the layout's weights and KV cache could fit in the GPUs' memory (buffers aside); cheap, simulates nothing. */
    public static boolean fits(DecodeSpec spec) {
        GpuModel gpu = Machine.of(spec).gpu();
        return MemoryPlan.of(spec, gpu, 0, spec.ep()).fits();
    }

    private DecodeResult simulate() {
        checkPlacement();
        MemoryPlan memory = MemoryPlan.of(spec, gpu, spec.tp() > 1 ? comm.group(spec.tp()).ring().channels() : 0, spec.ep());
        if (!memory.fits() && !prefill) {
            throw memory.error(spec, gpu.label(), suggestion());
        }
        warn("TP", spec.tp());
        if (spec.ep() > 1) {
            warn("EP", spec.ep());
        }
        // The pipeline keeps one micro-batch per stage in flight; the step follows one of them through every stage.
        int inFlight = spec.microBatch();
        int micro = spec.overlap() == Overlap.TWO_BATCH ? 2 : 1;
        int[] tokens = new int[micro];
        for (int b = 0; b < micro; b++) {
            tokens[b] = inFlight / micro + (b < inFlight % micro ? 1 : 0);
        }
        Op[] last = new Op[micro];
        for (int b = 0; b < micro; b++) {
            pending.add(new ArrayList<>());
        }
        for (int b = 0; b < micro; b++) {
            last[b] = compute("embed", -1, b, KernelCosts.Kind.ELEMENTWISE, 0, 2.0 * tokens[b] * m.hidden() * Precision.ACTIVATION_BYTES, last[b]);
        }
        issue();
        for (int l = 0; l < m.layers(); l++) {
            layer(l, tokens, last);
            int stage = stageOf(l);
            int next = stageOf(l + 1);
            if (l + 1 < m.layers() && next != stage) {
                for (int b = 0; b < micro; b++) {
                    long bytes = (long) tokens[b] * m.hidden() * Precision.ACTIVATION_BYTES;
                    last[b] = collective("send_to_stage" + next, l, b, comm.stageSend(spec.tp() * spec.pp() <= gpusPerNode, bytes), last[b]);
                }
            }
            issue();
        }
        for (int b = 0; b < micro; b++) {
            // A prompt's forward samples from its last token only.
            int t = prefill ? 1 : tokens[b];
            last[b] = norm("final_norm", m.layers(), b, t, last[b]);
            // The LM head stays in BF16 in FP8 and FP4 checkpoints.
            double head = (double) m.vocab() * m.hidden() / spec.tp();
            last[b] = gemm("lm_head", m.layers(), b, t, head, Precision.ACTIVATION_BYTES, m.hidden() + (double) m.vocab() / spec.tp(), last[b]);
            if (spec.tp() > 1) {
                long shard = (long) t * m.vocab() / spec.tp() * Precision.ACTIVATION_BYTES;
                last[b] = collective("logits_gather", m.layers(), b, comm.gatherToFirst(spec.tp(), shard), last[b]);
            }
            // Logits to FP32 with temperature, softmax, and the top-k/top-p sampling kernel: each reads the logits.
            for (String kernel : SAMPLING_KERNELS) {
                last[b] = compute(kernel, m.layers(), b, KernelCosts.Kind.ELEMENTWISE, 0, (double) t * m.vocab() * 4, last[b]);
            }
        }
        issue();
        StreamScheduler.run(ops, gpu.roofline().sms(), 2);
        List<String> tpCrossings = spec.tp() > 1 ? comm.crossings(spec.tp()) : List.of();
        String tpPath = spec.tp() == 1 ? "none" : tpCrossings.isEmpty() ? "NVLink" : String.join(" and ", tpCrossings);
        // Every stage reads its own layers: per GPU, about a stage's share.
        return DecodeResult.of(spec, gpu, tpPath, memory, weightBytesRead / spec.pp(), ops, timing(), warnings);
    }

    /** Kernels that sample the next tokens from the logits (vLLM's and SGLang's samplers; TensorRT-LLM's is alike). */
    static final List<String> SAMPLING_KERNELS = List.of("logits_to_fp32", "softmax", "sample");

    /**
     * The step's time as users see it: the micro-batch's path through the pipeline, or, when the
     * slowest stage is busier than that, the pipeline's stages times that stage (each stage serves
     * every micro-batch in turn); then the engine's host time that its GPU work does not hide.
     */
    private DecodeResult.Timing timing() {
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
        double gpuStep = Math.max(path, spec.pp() * slowest);
        double host = spec.engine().hostMicros(spec.batch());
        double exposedHost = spec.engine().hostOverlapped ? Math.max(0, host - gpuStep) : host;
        return new DecodeResult.Timing((gpuStep + exposedHost) / 1000, path / 1000, (gpuStep - path) / 1000, host / 1000,
                exposedHost / 1000, kernels, floor / 1000, roofline / 1000);
    }

    /** The pipeline stage that holds layer {@code l}. */
    private int stageOf(int l) {
        return l * spec.pp() / m.layers();
    }

    /** The layer's kernels for every micro-batch, issued so that one's collective can run under the other's compute. */
    private void layer(int l, int[] tokens, Op[] last) {
        int micro = tokens.length;
        Op[] attnOut = new Op[micro];
        for (int b = 0; b < micro; b++) {
            attnOut[b] = m.mla() == null ? attention(l, b, tokens[b], last[b]) : latentAttention(l, b, tokens[b], last[b]);
        }
        Op[] reduced = new Op[micro];
        for (int b = 0; b < micro; b++) {
            reduced[b] = tpReduce("attn_all_reduce", l, b, tokens[b], attnOut[b]);
        }
        for (int b = 0; b < micro; b++) {
            Op normed = spec.tp() > 1 && k.engine().fusesNormIntoAllReduce ? reduced[b] : norm("mlp_norm", l, b, tokens[b], reduced[b]);
            last[b] = m.isMoe(l) ? moe(l, b, tokens[b], normed) : mlp(l, b, tokens[b], normed);
        }
    }

    /** Grouped-query attention as the engines run it: the QKV GEMM, rotary and cache write (or fused), attention over the cache, the output GEMM. */
    private Op attention(int l, int b, int t, Op after) {
        Op op = attentionNorm(l, b, t, after);
        double qPerRank = (double) m.heads() / spec.tp();
        double kvPerRank = Math.max(1.0, (double) m.kvHeads() / spec.tp());
        double qkvOut = (qPerRank + 2 * kvPerRank) * m.headDim();
        op = quantize(l, b, t, m.hidden(), op);
        op = gemm("qkv_proj", l, b, t, m.hidden() * qkvOut, spec.precision().bytesPerParam(), m.hidden() + qkvOut, op);
        if (m.qkNorm()) {
            op = compute("qk_norm", l, b, KernelCosts.Kind.ELEMENTWISE, 0, 2.0 * t * (qPerRank + kvPerRank) * m.headDim() * Precision.ACTIVATION_BYTES, op);
        }
        double cacheElements = m.kvElementsPerTokenPerRank(spec.tp());
        op = ropeAndCacheWrite(l, b, t, (qPerRank + kvPerRank) * m.headDim(), cacheElements, op);
        double cacheBytes = cacheReads(t) * spec.context() * cacheElements * spec.kvBytes();
        op = attentionKernel(l, b, t, qPerRank, 4.0 * t * attended() * qPerRank * m.headDim(), cacheBytes, op);
        op = quantize(l, b, t, qPerRank * m.headDim(), op);
        return gemmThenReduce("o_proj", l, b, t, m.outParamsPerRank(spec.tp()), qPerRank * m.headDim() + m.hidden(), op);
    }

    /**
     * DeepSeek's multi-head latent attention in its absorbed decode form: one GEMM down to the query
     * and KV latents (and the rope key), their norms, the query up-projection, the key absorption into
     * the query (a batched GEMM per head), rotary and the latent's cache write, attention over the
     * latent cache, the value absorption and the output GEMM.
     */
    private Op latentAttention(int l, int b, int t, Op after) {
        ModelConfig.Mla a = m.mla();
        double bpp = spec.precision().bytesPerParam();
        double q = (double) m.heads() / spec.tp();
        double latent = a.kvLoraRank() + a.ropeHeadDim();
        double qHead = a.nopeHeadDim() + a.ropeHeadDim();
        Op op = attentionNorm(l, b, t, after);
        op = quantize(l, b, t, m.hidden(), op);
        if (a.qLoraRank() > 0) {
            op = gemm("qkv_a_proj", l, b, t, (double) m.hidden() * (a.qLoraRank() + latent), bpp, m.hidden() + a.qLoraRank() + latent, op);
            op = compute("q_a_norm", l, b, KernelCosts.Kind.ELEMENTWISE, 0, 2.0 * t * a.qLoraRank() * Precision.ACTIVATION_BYTES, op);
            op = compute("kv_a_norm", l, b, KernelCosts.Kind.ELEMENTWISE, 0, 2.0 * t * a.kvLoraRank() * Precision.ACTIVATION_BYTES, op);
            op = quantize(l, b, t, a.qLoraRank(), op);
            op = gemm("q_b_proj", l, b, t, a.qLoraRank() * q * qHead, bpp, a.qLoraRank() + q * qHead, op);
        } else {
            op = gemm("q_proj", l, b, t, m.hidden() * q * qHead, bpp, m.hidden() + q * qHead, op);
            op = gemm("kv_a_proj", l, b, t, (double) m.hidden() * latent, bpp, m.hidden() + latent, op);
            op = compute("kv_a_norm", l, b, KernelCosts.Kind.ELEMENTWISE, 0, 2.0 * t * a.kvLoraRank() * Precision.ACTIVATION_BYTES, op);
        }
        if (prefill) {
            // A prompt runs MLA uncompressed: the latent projected up to every head's keys and values, then ordinary attention.
            op = ropeAndCacheWrite(l, b, t, (q + 1) * a.ropeHeadDim(), latent, op);
            op = gemm("kv_b_proj", l, b, t, a.kvLoraRank() * q * (a.nopeHeadDim() + a.vHeadDim()), Precision.ACTIVATION_BYTES,
                    a.kvLoraRank() + q * (a.nopeHeadDim() + a.vHeadDim()), op);
            double cacheBytes = cacheReads(t) * spec.context() * q * (qHead + a.vHeadDim()) * Precision.ACTIVATION_BYTES;
            op = attentionKernel(l, b, t, q, 2.0 * t * attended() * q * (qHead + a.vHeadDim()), cacheBytes, op);
        } else {
            // The absorbed projections are batched GEMMs over the rank's heads, kept in BF16.
            op = gemm("q_absorb", l, b, t, q * a.nopeHeadDim() * a.kvLoraRank(), Precision.ACTIVATION_BYTES, q * (a.nopeHeadDim() + a.kvLoraRank()), op);
            op = ropeAndCacheWrite(l, b, t, (q + 1) * a.ropeHeadDim(), latent, op);
            double cacheBytes = cacheReads(t) * spec.context() * latent * spec.kvBytes();
            op = attentionKernel(l, b, t, q, 2.0 * t * attended() * q * (2.0 * a.kvLoraRank() + a.ropeHeadDim()), cacheBytes, op);
            op = gemm("v_absorb", l, b, t, q * a.kvLoraRank() * a.vHeadDim(), Precision.ACTIVATION_BYTES, q * (a.kvLoraRank() + a.vHeadDim()), op);
        }
        op = quantize(l, b, t, q * a.vHeadDim(), op);
        return gemmThenReduce("o_proj", l, b, t, m.outParamsPerRank(spec.tp()), q * a.vHeadDim() + m.hidden(), op);
    }

    /** Times the cache is read: once per sequence in decode (each its own), once per tile of 128 queries in a prompt. */
    private double cacheReads(int t) {
        return prefill ? Math.ceil(t / 128.0) : t;
    }

    /** Tokens each query attends to: the whole context in decode, half the prompt on average when it is causal. */
    private double attended() {
        return prefill ? spec.context() / 2.0 : spec.context();
    }

    /**
     * Decode attention over the cache. An engine that splits the context over CTAs fills the GPU at
     * any batch; one that gives each sequence and query head one CTA streams the cache with only that
     * many of the SMs when the batch is small.
     */
    private Op attentionKernel(int l, int b, int t, double headsPerRank, double flops, double cacheBytes, Op after) {
        double fill = k.engine().splitsKv ? 1 : Math.min(1, t * headsPerRank / gpu.roofline().sms());
        // Scores and values are computed in the cache's type: BF16, or FP8 where the cache is FP8.
        int bits = spec.kvBytes() == 1 ? 8 : 16;
        Op op = compute("attention", l, b, KernelCosts.Kind.ATTENTION, flops, cacheBytes / fill, after, flops, bits);
        op.rooflineMicros = k.rooflineMicros(flops, cacheBytes, bits);
        return op;
    }

    /** The layer's input norm; under TensorRT-LLM's all-reduce fusion the previous layer's all-reduce already applied it. */
    private Op attentionNorm(int l, int b, int t, Op after) {
        boolean fusedAway = l > 0 && spec.tp() > 1 && k.engine().fusesNormIntoAllReduce && (!m.isMoe(l - 1) || spec.ep() == 1);
        return fusedAway ? after : norm("attn_norm", l, b, t, after);
    }

    /** Rotary embedding of the queries and keys and the new token's write into the paged cache: two kernels, or none where attention fuses them. */
    private Op ropeAndCacheWrite(int l, int b, int t, double ropeElements, double cacheElements, Op after) {
        if (k.engine().fusesRopeAndCacheWrite) {
            return after;
        }
        Op op = compute("rope", l, b, KernelCosts.Kind.ELEMENTWISE, 0, 2.0 * t * ropeElements * Precision.ACTIVATION_BYTES, after);
        return compute("kv_cache_write", l, b, KernelCosts.Kind.ELEMENTWISE, 0, t * cacheElements * (Precision.ACTIVATION_BYTES + spec.kvBytes()), op);
    }

    private Op mlp(int l, int b, int t, Op after) {
        double inner = (double) m.intermediate() / spec.tp();
        Op op = quantize(l, b, t, m.hidden(), after);
        op = gemm("gate_up_proj", l, b, t, 2 * m.hidden() * inner, spec.precision().bytesPerParam(), m.hidden() + 2 * inner, op);
        op = activation(l, b, t, inner, op);
        op = quantize(l, b, t, inner, op);
        Op down = gemmThenReduce("down_proj", l, b, t, inner * m.hidden(), inner + m.hidden(), op);
        return tpReduce("mlp_all_reduce", l, b, t, down);
    }

    /**
     * Router, top-k, then either experts split over the TP ranks (every expert a slice on every
     * rank, an all-reduce after) or experts spread over the EP ranks (a dispatch and a combine
     * all-to-all). The experts run as the engines' fused MoE: the tokens sorted by expert, a grouped
     * GEMM for gate/up, the activation, a grouped GEMM for down, and the top-k outputs summed.
     * Routing is uniform: of E experts, those that get at least one of the T x k picks are read.
     */
    private Op moe(int l, int b, int t, Op after) {
        double bpp = spec.precision().bytesPerParam();
        int e = m.experts();
        int k0 = m.expertsPerToken();
        // The router's weights stay in BF16 in FP8 checkpoints.
        Op op = gemm("router", l, b, t, (double) m.hidden() * e, Precision.ACTIVATION_BYTES, m.hidden() + e, after);
        op = compute("topk", l, b, KernelCosts.Kind.ELEMENTWISE, 0, (double) t * e * 4, op);
        double share = spec.ep() == 1 ? spec.tp() : 1;
        double tokensIn;
        double active;
        double local = spec.ep() == 1 ? t : Math.ceil((double) t / spec.tp());
        if (spec.ep() == 1) {
            tokensIn = (double) t * k0;
            active = e * (1 - Math.pow(1 - (double) k0 / e, t));
        } else {
            // Each rank of the replica's TP group takes 1/tp of its tokens to the experts.
            long dispatch = (long) (local * k0 * m.hidden() * spec.precision().dispatchBytes());
            op = collective("dispatch", l, b, comm.allToAll(spec.ep(), dispatch), op);
            // The busiest rank sets the step: it holds ceil(E / ep) experts and gets their share of the picks.
            double global = (double) t * spec.dp();
            double perRank = MemoryPlan.expertsOnBusiestRank(e, spec.ep());
            active = perRank * (1 - Math.pow(1 - (double) k0 / e, global));
            tokensIn = global * k0 * perRank / e;
        }
        double inner = m.moeIntermediate() / share;
        double sharedInner = m.sharedExperts() * (double) m.moeIntermediate() / share;
        boolean sharedInGroup = m.sharedExperts() > 0 && k.engine().fusesSharedExperts;
        double groups = active + (sharedInGroup ? 1 : 0);
        double rows = tokensIn + (sharedInGroup ? local : 0);
        op = compute("moe_align", l, b, KernelCosts.Kind.ELEMENTWISE, 0, rows * 8, op);
        op = quantize(l, b, rows, m.hidden(), op);
        double gateUp = 2 * m.hidden() * inner * active + (sharedInGroup ? 2 * m.hidden() * sharedInner : 0);
        op = groupedGemm("experts_gate_up", l, b, rows, groups, gateUp, bpp, m.hidden() + 2 * inner, op);
        op = activation(l, b, rows, inner, op);
        op = quantize(l, b, rows, inner, op);
        op = groupedGemm("experts_down", l, b, rows, groups, gateUp / 2, bpp, inner + m.hidden(), op);
        op = compute("moe_sum", l, b, KernelCosts.Kind.ELEMENTWISE, 0, (tokensIn + local) * m.hidden() * Precision.ACTIVATION_BYTES, op);
        if (m.sharedExperts() > 0 && !sharedInGroup) {
            op = quantize(l, b, local, m.hidden(), op);
            op = gemm("shared_gate_up", l, b, local, 2 * m.hidden() * sharedInner, bpp, m.hidden() + 2 * sharedInner, op);
            op = activation(l, b, local, sharedInner, op);
            op = quantize(l, b, local, sharedInner, op);
            op = gemm("shared_down", l, b, local, sharedInner * m.hidden(), bpp, sharedInner + m.hidden(), op);
        }
        if (spec.ep() == 1) {
            return tpReduce("moe_all_reduce", l, b, t, op);
        }
        long combine = (long) (local * k0 * m.hidden() * Precision.ACTIVATION_BYTES);
        op = collective("combine", l, b, comm.allToAll(spec.ep(), combine), op);
        if (spec.tp() > 1) {
            long gathered = (long) t * m.hidden() * Precision.ACTIVATION_BYTES;
            op = collective("moe_all_gather", l, b, comm.allGather(spec.tp(), gathered), op);
        }
        return op;
    }

    /** The gated activation (SiLU of gate times up), unless the GEMM's epilogue applies it. */
    private Op activation(int l, int b, double rows, double inner, Op after) {
        if (k.engine().fusesActivation) {
            return after;
        }
        return compute("act", l, b, KernelCosts.Kind.ELEMENTWISE, 0, 3.0 * rows * inner * Precision.ACTIVATION_BYTES, after);
    }

    /** FP8 or FP4 activations for the next GEMM: a kernel of its own unless the engine quantises in the kernel before. */
    private Op quantize(int l, int b, double rows, double width, Op after) {
        if (spec.precision() == Precision.BF16 || k.engine().fusesQuantize) {
            return after;
        }
        return compute("quantize", l, b, KernelCosts.Kind.ELEMENTWISE, 0, rows * width * (Precision.ACTIVATION_BYTES + 1), after);
    }

    /** An RMSNorm with the residual add fused in, as every engine runs it: reads and writes the hidden state and the residual. */
    private Op norm(String name, int l, int b, int t, Op after) {
        return compute(name, l, b, KernelCosts.Kind.ELEMENTWISE, 0, 4.0 * t * m.hidden() * Precision.ACTIVATION_BYTES, after);
    }

    /** A dense GEMM of {@code params} weights at {@code bytesPerParam}, {@code rows} tokens padded to whole tiles, {@code io} activations in and out per token. */
    private Op gemm(String name, int l, int b, double rows, double params, double bytesPerParam, double io, Op after) {
        double bytes = weights(params * bytesPerParam) + rows * io * Precision.ACTIVATION_BYTES;
        return compute(name, l, b, KernelCosts.Kind.GEMM, 2.0 * KernelCosts.paddedRows(rows) * params, bytes, after, 2.0 * rows * params,
                mathBits(bytesPerParam));
    }

    /** A grouped GEMM over {@code groups} experts holding {@code params} weights in all; each expert's rows padded to whole tiles. */
    private Op groupedGemm(String name, int l, int b, double rows, double groups, double params, double bytesPerParam, double io, Op after) {
        double bytes = weights(params * bytesPerParam) + rows * io * Precision.ACTIVATION_BYTES;
        double padded = groups <= 0 ? 0 : groups * KernelCosts.paddedRows(rows / groups);
        double perRow = groups <= 0 ? 0 : params / groups;
        return compute(name, l, b, KernelCosts.Kind.GROUPED_GEMM, 2.0 * padded * perRow, bytes, after, 2.0 * rows * perRow,
                mathBits(bytesPerParam));
    }

    /**
     * A GEMM whose output the TP group then reduces. With {@code --overlap fused} it runs in tiles in
     * one kernel, each tile's share of the reduction leaving as the tile ends (its bandwidth share of
     * the collective); the collective's fixed latency is paid once, after the last tile, as the fused
     * kernel's final barrier.
     */
    private Op gemmThenReduce(String name, int l, int b, int t, double params, double io, Op after) {
        if (spec.overlap() != Overlap.FUSED || spec.tp() == 1) {
            return gemm(name, l, b, t, params, spec.precision().bytesPerParam(), io, after);
        }
        double bytes = weights(params * spec.precision().bytesPerParam()) + t * io * Precision.ACTIVATION_BYTES;
        int bits = spec.precision().bits();
        double whole = k.workMicros(KernelCosts.Kind.GEMM, 2.0 * KernelCosts.paddedRows(t) * params, bytes, bits) * slowdown(l);
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
            if (i == 0) {
                gemm.floorMicros = launch() + KernelCosts.FIXED_US;
            }
            gemm.launch = i == 0;
            gemm.rooflineMicros = k.rooflineMicros(2.0 * t * params, bytes, bits) / FUSED_TILES;
            reductions[i] = add(new Op(name + "_all_reduce[" + i + "]", l, b, Op.Kind.COMM, 1,
                    tileBandwidth + (lastTile ? full.latencyMicros() : 0), tile.sms(), tile.bytesSent(),
                    lastTile ? full.latencyMicros() : 0).after(gemm));
            reductions[i].launch = false;
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

    private Op compute(String name, int layer, int b, KernelCosts.Kind kind, double flops, double bytes, Op after) {
        return compute(name, layer, b, kind, flops, bytes, after, flops, spec.precision().bits());
    }

    /** The tensor cores' operand width for weights stored at {@code bytesPerParam}: the weight format, or BF16 for weights kept in BF16. */
    private int mathBits(double bytesPerParam) {
        return bytesPerParam >= Precision.ACTIVATION_BYTES ? 16 : spec.precision().bits();
    }

    /**
     * A compute kernel: {@code flops} as the tensor cores run them (rows padded to tiles), {@code
     * usefulFlops} as the roofline counts them, at the tensor rate of {@code mathBits}-bit operands.
     * Without CUDA graphs a kernel shorter than the host's issue time waits for the host.
     */
    private Op compute(String name, int layer, int b, KernelCosts.Kind kind, double flops, double bytes, Op after, double usefulFlops,
                       int mathBits) {
        double work = k.workMicros(kind, flops, bytes, mathBits) * slowdown(layer);
        double micros = spec.cudaGraphs() ? launch() + work : Math.max(launch(), work + KernelCosts.GRAPH_GAP_US);
        Op op = add(new Op(name, layer, b, Op.Kind.COMPUTE, 0, micros, 0, 0, 0).after(after));
        op.rooflineMicros = k.rooflineMicros(usefulFlops, bytes, mathBits);
        op.floorMicros = micros - (work - KernelCosts.FIXED_US * slowdown(layer));
        return op;
    }

    private Op collective(String name, int layer, int b, CommModel.Cost c, Op after) {
        double launch = launch();
        Op op = add(new Op(name, layer, b, Op.Kind.COMM, commStream, c.micros() + launch, c.sms(), c.bytesSent(),
                c.latencyMicros() + launch).after(after));
        op.floorMicros = launch;
        return op;
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
