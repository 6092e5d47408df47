package dev.collsim.scenarios.decode;

import dev.collsim.scenarios.decode.DecodeResult.KernelKind;
import dev.collsim.scenarios.stochastic.Variability;
import dev.collsim.topologies.catalog.GpuModel;
import java.util.ArrayList;
import java.util.List;

/**
 * The kernels one GPU runs in a decode step (or a prompt's forward), as the engine launches them:
 * per layer and model family, with what the engine fuses, each kernel timed by {@link KernelCosts}
 * and each collective by {@link CommModel}. It builds them per micro-batch and issues them in the
 * order that lets one micro-batch's collective run under the other's compute; the step schedules them.
 */
final class LayerKernels {
    /** Tiles a fused GEMM and its collective are cut into. */
    static final int FUSED_TILES = 4;
    /** Kernels that sample the next tokens from the logits (vLLM's and SGLang's samplers; TensorRT-LLM's is alike). */
    static final List<String> SAMPLING_KERNELS = List.of("logits_to_fp32", "softmax", "sample");
    /** What the draft layer's kernels' names begin with. */
    static final String DRAFT_PREFIX = "draft_";
    /** Tokens in a chunk of FLA's chunk_gated_delta_rule (its chunk_size, BT = 64). */
    static final int DELTA_RULE_CHUNK = 64;

    private final DecodeSpec spec;
    private final ModelConfig m;
    private final KernelCosts k;
    private final CommModel comm;
    private final LayoutGroups layout;
    private final Variability noise;
    private final int stragglerStage;
    private final boolean prefill;
    /** In a prompt's forward, the tokens of each sequence already cached by earlier chunks. */
    private final int cachedBefore;
    private final List<Op> ops = new ArrayList<>();
    /** Per micro-batch, the ops built but not yet issued; {@link #issue} interleaves them. */
    private final List<List<Op>> pending = new ArrayList<>();
    /** The weights the step's kernels read, every micro-batch and stage: what HBM must deliver at least. */
    private double weightBytesRead;
    /** In a decode step, the query tokens each sequence puts through the layer being built: the verified ones, or 1 while drafting. */
    private int queries;
    /** Whether the kernels being built are the draft layer's ({@link #draft}), named draft_*. */
    private boolean drafting;

    LayerKernels(DecodeSpec spec, GpuModel gpu, CommModel comm, LayoutGroups layout, Variability noise, boolean prefill, int cachedBefore) {
        this.layout = layout;
        this.cachedBefore = cachedBefore;
        this.spec = spec;
        this.m = spec.model();
        // FP8 checkpoints (DeepSeek's, Qwen's) carry block scales; FP8 applied to a BF16 checkpoint scales per tensor.
        this.k = new KernelCosts(gpu, spec.cudaGraphs(), spec.engine(), m.weights() == Precision.FP8);
        this.comm = comm;
        this.noise = noise;
        this.prefill = prefill;
        this.queries = spec.speculation().verified();
        // The step follows replica 0, whose stage s holds GPUs s*tp .. s*tp+tp-1: a straggler there slows that stage.
        int straggler = noise == null ? -1 : noise.straggler(spec.gpus());
        this.stragglerStage = straggler >= 0 && straggler < spec.tp() * spec.pp() ? straggler / spec.tp() : -1;
    }

    /** The pipeline stage that holds layer {@code l}. */
    static int stageOf(DecodeSpec spec, int l) {
        return l * spec.pp() / spec.model().layers();
    }

    /** Every op built so far, in issue order. */
    List<Op> ops() {
        return ops;
    }

    double weightBytesRead() {
        return weightBytesRead;
    }

    /** The token embedding of every micro-batch. */
    void embed(int[] tokens, Op[] last) {
        for (int b = 0; b < tokens.length; b++) {
            pending.add(new ArrayList<>());
        }
        for (int b = 0; b < tokens.length; b++) {
            last[b] = compute("embed", -1, b, KernelCosts.Kind.ELEMENTWISE, 0, 2.0 * tokens[b] * m.hidden() * Precision.ACTIVATION_BYTES, last[b]);
        }
        issue();
    }

    /** Each micro-batch's activations after layer {@code l} sent to stage {@code next}. */
    void stageSend(int l, int next, boolean sameNode, int[] tokens, Op[] last) {
        for (int b = 0; b < tokens.length; b++) {
            long bytes = (long) tokens[b] * m.hidden() * Precision.ACTIVATION_BYTES;
            last[b] = collective("send_to_stage" + next, l, b, comm.stageSend(layout, spec.tp(), next - 1, sameNode, bytes), last[b]);
        }
    }

    /**
     * After the last layer: the final norm, the LM head, the logits gathered to the first TP rank, and sampling; a prompt's
     * forward samples from its last token only, a speculative step's verification from every verified token.
     */
    void head(int[] tokens, Op[] last) {
        for (int b = 0; b < tokens.length; b++) {
            last[b] = logits(b, prefill ? 1 : tokens[b], m.vocab(), last[b]);
        }
        issue();
    }

    /** Micro-batch {@code b}'s final norm, LM head over {@code vocab} tokens, gather and sampling, for {@code t} rows. */
    private Op logits(int b, int t, int vocab, Op after) {
        Op op = norm("final_norm", m.layers(), b, t, after);
        // The LM head stays in BF16 in FP8 and FP4 checkpoints.
        op = gemm("lm_head", m.layers(), b, t, m.hidden(), (double) vocab / spec.tp(), Precision.ACTIVATION_BYTES, op);
        if (spec.tp() > 1) {
            long shard = (long) t * vocab / spec.tp() * Precision.ACTIVATION_BYTES;
            op = collective("logits_gather", m.layers(), b, comm.gatherToFirst(layout, spec.tp(), shard), op);
        }
        // Logits to FP32 with temperature, softmax, and the top-k/top-p sampling kernel: each reads the logits.
        for (String kernel : SAMPLING_KERNELS) {
            op = compute(kernel, m.layers(), b, KernelCosts.Kind.ELEMENTWISE, 0, (double) t * vocab * 4, op);
        }
        return op;
    }

    /**
     * The draft layer's passes after the verification, as {@link Speculation} runs them: the first over each sequence's
     * verified tokens ({@code verified[b]} in micro-batch b; a prompt's forward, over its prompt tokens, and only this one),
     * the others over one token a sequence. Each embeds its tokens, joins them with the target's hidden states (MTP's two
     * norms and eh_proj of 2 x hidden; EAGLE-3's fc of 3 x hidden, replicated on every TP rank as the engines load them),
     * runs one decoder layer on the last stage, with a KV cache of its own, and samples a draft token a sequence from its
     * LM head (the model's, or EAGLE-3's draft vocabulary).
     */
    void draft(int[] verified, int[] sequences, Op[] last) {
        Speculation sp = spec.speculation();
        boolean mtp = sp.method() == Speculation.Method.MTP;
        int vocab = mtp ? m.vocab() : Speculation.EAGLE_DRAFT_VOCAB;
        drafting = true;
        int passes = prefill ? 1 : sp.drafts();
        for (int pass = 0; pass < passes; pass++) {
            queries = pass == 0 ? sp.verified() : 1;
            int[] tokens = pass == 0 ? verified : sequences;
            int l = m.layers();
            for (int b = 0; b < tokens.length; b++) {
                int t = tokens[b];
                Op op = compute("embed", l, b, KernelCosts.Kind.ELEMENTWISE, 0, 2.0 * t * m.hidden() * Precision.ACTIVATION_BYTES, last[b]);
                if (mtp) {
                    op = norm("enorm", l, b, t, op);
                    op = norm("hnorm", l, b, t, op);
                }
                op = gemm(mtp ? "eh_proj" : "fc", l, b, t, (mtp ? 2.0 : 3.0) * m.hidden(), m.hidden(), Precision.ACTIVATION_BYTES, op);
                last[b] = op;
            }
            issue();
            layer(l, tokens, last);
            issue();
            for (int b = 0; b < tokens.length; b++) {
                last[b] = logits(b, prefill ? 1 : sequences[b], vocab, last[b]);
            }
            issue();
        }
        drafting = false;
        queries = sp.verified();
    }

    /** The layer's kernels for every micro-batch, issued so that one's collective can run under the other's compute. */
    void layer(int l, int[] tokens, Op[] last) {
        int micro = tokens.length;
        Op[] attnOut = new Op[micro];
        // The draft layer (tagged after the last) attends to the whole context; MTP's is MoE where the model is, EAGLE's dense.
        boolean moe = drafting ? spec.speculation().method() == Speculation.Method.MTP && m.experts() > 0 : m.isMoe(l);
        for (int b = 0; b < micro; b++) {
            attnOut[b] = m.isLinear(l) ? linearAttention(l, b, tokens[b], last[b])
                    : m.mla() == null ? attention(l, b, tokens[b], last[b]) : latentAttention(l, b, tokens[b], last[b]);
        }
        Op[] reduced = new Op[micro];
        for (int b = 0; b < micro; b++) {
            reduced[b] = tpReduce("attn_all_reduce", l, b, tokens[b], attnOut[b]);
        }
        for (int b = 0; b < micro; b++) {
            Op normed = spec.tp() > 1 && k.engine().fusesNormIntoAllReduce ? reduced[b] : norm("mlp_norm", l, b, tokens[b], reduced[b]);
            last[b] = moe ? moe(l, b, tokens[b], normed) : mlp(l, b, tokens[b], normed);
        }
    }

    /** Grouped-query attention as the engines run it: the QKV GEMM, rotary and cache write (or fused), attention over the cache, the output GEMM. */
    private Op attention(int l, int b, int t, Op after) {
        Op op = attentionNorm(l, b, t, after);
        double qPerRank = (double) m.heads() / spec.tp();
        double kvPerRank = Math.max(1.0, (double) m.kvHeads() / spec.tp());
        double qkvOut = (qPerRank * (m.attentionGate() ? 2 : 1) + 2 * kvPerRank) * m.headDim();
        op = quantizeAfterElementwise(l, b, t, m.hidden(), op);
        op = gemm("qkv_proj", l, b, t, m.hidden(), qkvOut, spec.precision().denseBytesPerParam(), op);
        double qk = t * (qPerRank + kvPerRank) * m.headDim() * Precision.ACTIVATION_BYTES;
        if (m.qkNorm() == ModelConfig.QkNorm.ACROSS_HEADS && spec.tp() > 1) {
            // Each rank's sums of squares of its queries and keys (two FP32 a token), all-reduced over the TP group.
            op = compute("qk_variance", l, b, KernelCosts.Kind.ELEMENTWISE, 0, qk + t * 8.0, op);
            op = collective("qk_norm_all_reduce", l, b, comm.allReduce(layout, spec.tp(), t * 8L), op);
        }
        if (m.qkNorm() != ModelConfig.QkNorm.NONE) {
            op = compute("qk_norm", l, b, KernelCosts.Kind.ELEMENTWISE, 0, 2.0 * qk, op);
        }
        double cacheElements = m.kvElementsPerTokenPerRank(spec.tp());
        op = ropeAndCacheWrite(l, b, t, (qPerRank + kvPerRank) * m.headDim(), cacheElements, op);
        op = attentionKernel(l, b, shape(l, t, qPerRank, kvPerRank, m.headDim(), m.headDim(), spec.kvBytes(), false), op);
        if (m.attentionGate()) {
            // The output times the sigmoid of its gate: reads both, writes the product.
            op = compute("attn_gate", l, b, KernelCosts.Kind.ELEMENTWISE, 0, 3.0 * t * qPerRank * m.headDim() * Precision.ACTIVATION_BYTES, op);
        }
        op = quantize(l, b, t, qPerRank * m.headDim(), op);
        return gemmThenReduce("o_proj", l, b, t, qPerRank * m.headDim(), op);
    }

    /**
     * DeepSeek's multi-head latent attention in its absorbed decode form: one GEMM down to the query
     * and KV latents (and the rope key), their norms, the query up-projection, the key absorption into
     * the query (a batched GEMM per head), rotary and the latent's cache write, attention over the
     * latent cache, the value absorption and the output GEMM.
     */
    private Op latentAttention(int l, int b, int t, Op after) {
        ModelConfig.Mla a = m.mla();
        double bpp = spec.precision().denseBytesPerParam();
        double q = (double) m.heads() / spec.tp();
        double latent = a.kvLoraRank() + a.ropeHeadDim();
        double qHead = a.nopeHeadDim() + a.ropeHeadDim();
        Op op = attentionNorm(l, b, t, after);
        op = quantizeAfterElementwise(l, b, t, m.hidden(), op);
        if (a.qLoraRank() > 0) {
            op = gemm("qkv_a_proj", l, b, t, m.hidden(), a.qLoraRank() + latent, bpp, op);
            op = compute("q_a_norm", l, b, KernelCosts.Kind.ELEMENTWISE, 0, 2.0 * t * a.qLoraRank() * Precision.ACTIVATION_BYTES, op);
            op = compute("kv_a_norm", l, b, KernelCosts.Kind.ELEMENTWISE, 0, 2.0 * t * a.kvLoraRank() * Precision.ACTIVATION_BYTES, op);
            op = quantizeAfterElementwise(l, b, t, a.qLoraRank(), op);
            if (m.sparse() != null) {
                op = indexer(l, b, t, op);
            }
            op = gemm("q_b_proj", l, b, t, a.qLoraRank(), q * qHead, bpp, op);
        } else {
            op = gemm("q_proj", l, b, t, m.hidden(), q * qHead, bpp, op);
            op = gemm("kv_a_proj", l, b, t, m.hidden(), latent, bpp, op);
            op = compute("kv_a_norm", l, b, KernelCosts.Kind.ELEMENTWISE, 0, 2.0 * t * a.kvLoraRank() * Precision.ACTIVATION_BYTES, op);
        }
        if (prefill) {
            // A prompt runs MLA uncompressed: the latent projected up to every head's keys and values, then ordinary attention.
            op = ropeAndCacheWrite(l, b, t, (q + 1) * a.ropeHeadDim(), latent, op);
            op = gemm("kv_b_proj", l, b, t, a.kvLoraRank(), q * (a.nopeHeadDim() + a.vHeadDim()), Precision.ACTIVATION_BYTES, op);
            op = attentionKernel(l, b, shape(l, t, q, q, qHead, a.vHeadDim(), Precision.ACTIVATION_BYTES, false), op);
        } else {
            // The absorbed projections are batched GEMMs over the rank's heads, kept in BF16.
            op = batchedGemm("q_absorb", l, b, t, q, a.nopeHeadDim(), a.kvLoraRank(), Precision.ACTIVATION_BYTES, op);
            op = ropeAndCacheWrite(l, b, t, (q + 1) * a.ropeHeadDim(), latent, op);
            op = attentionKernel(l, b, shape(l, t, q, 1, latent, a.kvLoraRank(), spec.kvBytes(), true), op);
            op = batchedGemm("v_absorb", l, b, t, q, a.kvLoraRank(), a.vHeadDim(), Precision.ACTIVATION_BYTES, op);
        }
        op = quantize(l, b, t, q * a.vHeadDim(), op);
        return gemmThenReduce("o_proj", l, b, t, q * a.vHeadDim(), op);
    }

    /**
     * DeepSeek Sparse Attention's lightning indexer as vLLM and SGLang run it (their deepseek_v2.py Indexer, DeepGEMM's
     * fp8_mqa_logits and fp8_paged_mqa_logits): every TP rank runs it whole (its projections are replicated): the index
     * queries from the query latent (wq_b), the index key and the heads' weights from the hidden state (wk and weights_proj,
     * kept in BF16), the key's norm and rotary, both quantised to FP8 and the key written to the index cache; then each query's
     * scores against every key before it, in FP8 on the tensor cores, written as FP32 logits; then the top-k of each row,
     * which the attention reads ({@link ModelConfig#attended}).
     */
    private Op indexer(int l, int b, int t, Op after) {
        ModelConfig.SparseAttention s = m.sparse();
        double width = (double) s.indexHeads() * s.indexHeadDim();
        double act = Precision.ACTIVATION_BYTES;
        Op op = gemm("indexer_q_proj", l, b, t, m.mla().qLoraRank(), width, spec.precision().denseBytesPerParam(), after);
        op = gemm("indexer_k_proj", l, b, t, m.hidden(), s.indexHeadDim() + s.indexHeads(), act, op);
        op = compute("indexer_k_cache", l, b, KernelCosts.Kind.ELEMENTWISE, 0,
                t * ((width + s.indexHeadDim()) * (act + 1) + s.cacheBytesPerToken()), op);
        // Every query against the keys before it (causal among a prompt's own tokens), the index cache read once a sequence.
        KernelCosts.AttentionShape g = shape(l, t, 1, 1, 1, 1, 1, false);
        double scored = g.sequences() * KernelCosts.cappedSum(g.cached(), g.queries(), Double.POSITIVE_INFINITY);
        double keys = g.sequences() * (g.cached() + g.queries()) * s.cacheBytesPerToken();
        double flops = 2.0 * scored * width;
        op = compute("indexer_logits", l, b, KernelCosts.Kind.GEMM, flops, keys + t * width + scored * 4, op, flops, 8);
        return compute("indexer_topk", l, b, KernelCosts.Kind.ELEMENTWISE, 0, scored * 4 + (double) t * s.topK() * 4, op);
    }

    /**
     * Gated DeltaNet as vLLM and SGLang run Qwen3-Next's and Qwen3.5's linear layers (their qwen3_next.py, FLA's kernels): the
     * queries, keys, values and output gates in one GEMM and the decay and strength logits in a small BF16 one; the causal
     * convolution over queries, keys and values (causal_conv1d_update in decode, reading and writing each sequence's window;
     * causal_conv1d_fn in a prompt); the decay and strength (fused_gdn_gating); the delta rule; the gated RMSNorm; the output
     * GEMM. In decode the delta rule is fused_recurrent_gated_delta_rule: each sequence's state read and written once, its
     * math on CUDA cores and far below its bytes. In a prompt it is chunk_gated_delta_rule: chunks of {@link
     * #DELTA_RULE_CHUNK} tokens, within a chunk attention-like products and the WY form of the updates on tensor cores
     * ({@code 10 x chunk x valueDim} FLOPs a token and head), across chunks the state applied and updated ({@code 6 x keyDim
     * x valueDim}), each chunk's state written and read back.
     */
    private Op linearAttention(int l, int b, int t, Op after) {
        ModelConfig.LinearAttention a = m.linear();
        int tp = spec.tp();
        double keys = a.keyChannels() / tp;
        double values = a.valueChannels() / tp;
        double heads = (double) a.valueHeads() / tp;
        double convolved = 2 * keys + values;
        int sequences = prefill ? Math.max(1, (int) Math.round(t / promptQueries(t))) : t / queries;
        double stateBytes = heads * a.keyDim() * a.valueDim() * a.stateBytes();
        double act = Precision.ACTIVATION_BYTES;
        Op op = attentionNorm(l, b, t, after);
        op = quantizeAfterElementwise(l, b, t, m.hidden(), op);
        op = gemm("in_proj_qkvz", l, b, t, m.hidden(), convolved + values, spec.precision().denseBytesPerParam(), op);
        op = gemm("in_proj_ba", l, b, t, m.hidden(), 2 * heads, act, op);
        double window = (a.convKernel() - 1) * convolved * act;
        op = compute("causal_conv1d", l, b, KernelCosts.Kind.ELEMENTWISE, 0, 2.0 * t * convolved * act + sequences * 2 * window, op);
        op = compute("gdn_gating", l, b, KernelCosts.Kind.ELEMENTWISE, 0, 4.0 * t * heads * act, op);
        double io = t * (convolved + values) * act;
        if (prefill) {
            double flops = t * heads * (6.0 * a.keyDim() * a.valueDim() + 10.0 * DELTA_RULE_CHUNK * a.valueDim());
            double chunkStates = Math.ceil((double) t / sequences / DELTA_RULE_CHUNK) * sequences * heads * a.keyDim() * a.valueDim() * 2 * act;
            op = compute("chunk_gated_delta_rule", l, b, KernelCosts.Kind.GEMM, flops, io + chunkStates + sequences * 2 * stateBytes, op,
                    flops, 16);
        } else {
            // Each sequence's state read once and written after every query token (a speculative step keeps each draft's state).
            op = compute("recurrent_gated_delta_rule", l, b, KernelCosts.Kind.ELEMENTWISE, 0, io + (sequences + t) * stateBytes, op);
        }
        op = compute("gated_rms_norm", l, b, KernelCosts.Kind.ELEMENTWISE, 0, 3.0 * t * values * act, op);
        op = quantizeAfterElementwise(l, b, t, values, op);
        return gemmThenReduce("out_proj", l, b, t, values, op);
    }

    /**
     * The attention kernel's geometry for {@code t} tokens of the micro-batch: in decode, sequences of {@link #queries} new
     * tokens each (one, or a speculative step's verified ones) after the whole context; in a prompt's forward, sequences of
     * the context's uncached tokens (or fewer, where the micro-batch holds part of one) after the tokens earlier chunks
     * cached; a sliding layer's queries attend to its window, a sparse one's to its top-k.
     */
    private KernelCosts.AttentionShape shape(int l, int t, double heads, double kvHeads, double qkDim, double vDim, int kvBytes, boolean latent) {
        int window = m.attended(l);
        if (!prefill) {
            return new KernelCosts.AttentionShape((double) t / queries, queries, spec.context(), heads, kvHeads, qkDim, vDim, kvBytes, latent,
                    window);
        }
        double perSequence = promptQueries(t);
        return new KernelCosts.AttentionShape(t / perSequence, perSequence, cachedBefore, heads, kvHeads, qkDim, vDim, kvBytes, latent, window);
    }

    /** In a prompt's forward, the tokens of one sequence among the micro-batch's {@code t}: its uncached tokens, or all {@code t}. */
    private double promptQueries(int t) {
        return Math.min(t, Math.max(1, spec.context() - cachedBefore));
    }

    /**
     * Attention over the cache: a prompt's as {@link KernelCosts#promptAttentionMicros} runs it (in BF16 whatever the
     * cache: FlashAttention in vLLM and SGLang; TensorRT-LLM's FP8 context FMHA is opt-in), a decode step's as {@link
     * KernelCosts#decodeAttentionMicros} does.
     */
    private Op attentionKernel(int l, int b, KernelCosts.AttentionShape s, Op after) {
        double work = prefill ? k.promptAttentionMicros(s) : k.decodeAttentionMicros(s);
        double bytes = prefill ? k.promptAttentionBytes(s) : s.cacheBytes();
        Op op = timed("attention", l, b, work, k.attentionFixedUs(s, prefill), bytes, after);
        op.rooflineMicros = k.rooflineMicros(s.flops(), bytes, s.mathBits());
        op.flops = s.flops();
        return op;
    }

    /** The layer's input norm; under TensorRT-LLM's all-reduce fusion the previous layer's all-reduce already applied it. */
    private Op attentionNorm(int l, int b, int t, Op after) {
        boolean fusedAway = l > 0 && !drafting && spec.tp() > 1 && k.engine().fusesNormIntoAllReduce && (!m.isMoe(l - 1) || !spec.expertsAllToAll());
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
        Op op = quantizeAfterElementwise(l, b, t, m.hidden(), after);
        op = gemm("gate_up_proj", l, b, t, m.hidden(), 2 * inner, spec.precision().denseBytesPerParam(), op);
        op = activation(l, b, t, inner, op);
        op = quantizeAfterElementwise(l, b, t, inner, op);
        Op down = gemmThenReduce("down_proj", l, b, t, inner, op);
        return tpReduce("mlp_all_reduce", l, b, t, down);
    }

    /**
     * Router, top-k, then one of three: every rank holds the replica's tokens and a share of the experts (all of them in
     * 1/tp slices without EP; E / ep of them, in 1/moeTp slices under MoE TP inside EP), an all-reduce after; or over
     * attention DP replicas, every replica's tokens all-gathered to every EP rank and the outputs reduce-scattered back
     * (the engines' default, {@link ExpertParallel.Exchange#ALLGATHER}); or each token sent to its experts' ranks and back
     * all-to-all ({@link ExpertParallel.Exchange#ALLTOALL}, a dispatch and a combine).
     * The experts run as the engines' fused MoE: the tokens sorted by expert, a grouped GEMM for
     * gate/up, the activation, a grouped GEMM for down, and the top-k outputs summed.
     * Routing falls on the experts as {@link ExpertParallel} says (uniform unless asked otherwise), and the busiest rank
     * sets the step: it runs its slots that get at least one token, on its share of the picks.
     */
    private Op moe(int l, int b, int t, Op after) {
        double bpp = spec.precision().denseBytesPerParam();
        int e = m.experts();
        int k0 = m.expertsPerToken();
        // The router's weights stay in BF16 in FP8 checkpoints.
        Op op = gemm("router", l, b, t, m.hidden(), e, Precision.ACTIVATION_BYTES, after);
        op = compute("topk", l, b, KernelCosts.Kind.ELEMENTWISE, 0, (double) t * e * 4, op);
        boolean dispatched = spec.expertsAllToAll();
        boolean gathered = spec.expertsGathered();
        double local = dispatched ? Math.ceil((double) t / spec.tp()) : t;
        // Without an exchange every rank holds the replica's tokens; with one the experts see every replica's.
        double routed = dispatched || gathered ? (double) t * spec.dp() : t;
        ExpertParallel.Rank busiest = spec.experts().busiest(e, k0, spec.ep());
        double active = busiest.active(routed);
        double tokensIn = routed * k0 * busiest.share();
        // The all-to-all waits for the busiest rank's inbound tokens, imbalance x a rank's even share.
        double imbalance = Math.max(1, busiest.share() * spec.ep());
        long everyReplica = (long) routed * m.hidden() * Precision.ACTIVATION_BYTES;
        if (dispatched) {
            // Each rank of the replica's TP group takes 1/tp of its tokens to the experts.
            long dispatch = (long) (local * k0 * m.hidden() * spec.precision().dispatchBytes() * imbalance);
            op = exchange("dispatch", l, b, dispatch, op);
        } else if (gathered) {
            // vLLM gathers over the DP group, each TP rank alike: the same bytes through each GPU as one all-gather over
            // the EP ranks of 1/tp of a replica's tokens each, which the step times on the EP group's GPUs.
            op = collective("dispatch", l, b, comm.allGather(layout, spec.ep(), everyReplica), op);
        }
        double inner = (double) m.moeIntermediate() / spec.moeTp();
        double sharedInner = m.sharedExperts() * (double) m.moeIntermediate() / (dispatched ? 1 : spec.tp());
        boolean sharedInGroup = m.sharedExperts() > 0 && k.engine().fusesSharedExperts;
        double groups = active + (sharedInGroup ? 1 : 0);
        double rows = tokensIn + (sharedInGroup ? local : 0);
        op = compute("moe_align", l, b, KernelCosts.Kind.ELEMENTWISE, 0, rows * 8, op);
        // Under EP the dispatch already carries the tokens in the weights' format (DeepEP quantises before it sends).
        op = dispatched && spec.precision().dispatchBytes() == 1 ? op : quantize(l, b, rows, m.hidden(), op);
        double gateUp = 2 * m.hidden() * inner * active + (sharedInGroup ? 2 * m.hidden() * sharedInner : 0);
        op = groupedGemm("experts_gate_up", l, b, tokensIn / k0, rows, groups, gateUp, m.hidden(), op);
        op = activation(l, b, rows, inner, op);
        op = quantize(l, b, rows, inner, op);
        op = groupedGemm("experts_down", l, b, tokensIn / k0, rows, groups, gateUp / 2, inner, op);
        op = compute("moe_sum", l, b, KernelCosts.Kind.ELEMENTWISE, 0, (tokensIn + local) * m.hidden() * Precision.ACTIVATION_BYTES, op);
        if (m.sharedExperts() > 0 && !sharedInGroup) {
            op = quantize(l, b, local, m.hidden(), op);
            op = gemm("shared_gate_up", l, b, local, m.hidden(), 2 * sharedInner, bpp, op);
            op = activation(l, b, local, sharedInner, op);
            op = quantize(l, b, local, sharedInner, op);
            op = gemm("shared_down", l, b, local, sharedInner, m.hidden(), bpp, op);
        }
        if (gathered) {
            op = collective("combine", l, b, comm.reduceScatter(layout, spec.ep(), everyReplica), op);
        }
        if (!dispatched) {
            return tpReduce("moe_all_reduce", l, b, t, op);
        }
        long combine = (long) (local * k0 * m.hidden() * Precision.ACTIVATION_BYTES * imbalance);
        op = exchange("combine", l, b, combine, op);
        if (spec.tp() > 1) {
            long replica = (long) t * m.hidden() * Precision.ACTIVATION_BYTES;
            op = collective("moe_all_gather", l, b, comm.allGather(layout, spec.tp(), replica), op);
        }
        return op;
    }

    /**
     * A dispatch or combine of {@code bytes} a rank, all-to-all: NCCL's, simulated on the fabric, or DeepEP's kernel (its
     * low-latency one in a decode step, its normal one in a prefill), a kernel on the communication stream timed by
     * DeepEP's rates and holding {@link DeepEp#SMS} SMs.
     */
    private Op exchange(String name, int l, int b, long bytes, Op after) {
        if (spec.experts().exchange() != ExpertParallel.Exchange.DEEPEP) {
            return collective(name, l, b, comm.allToAll(layout, spec.ep(), bytes), after);
        }
        return commKernel(name, l, b, comm.deepEpMicros(spec.ep(), bytes, m.expertsPerToken(), !prefill), DeepEp.SMS,
                bytes * (spec.ep() - 1) / spec.ep(), DeepEp.FIXED_US, after);
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
        if (!spec.precision().quantizesActivations() || k.engine().fusesQuantize) {
            return after;
        }
        return compute("quantize", l, b, KernelCosts.Kind.ELEMENTWISE, 0, KernelCosts.quantizeBytes(rows, width), after);
    }

    /** {@link #quantize} of an RMSNorm's or a gated activation's output, which a compiling engine fuses into that kernel. */
    private Op quantizeAfterElementwise(int l, int b, double rows, double width, Op after) {
        return k.engine().compilesQuantizeIntoElementwise() ? after : quantize(l, b, rows, width, after);
    }

    /** An RMSNorm with the residual add fused in, as every engine runs it: reads and writes the hidden state and the residual. */
    private Op norm(String name, int l, int b, int t, Op after) {
        return compute(name, l, b, KernelCosts.Kind.ELEMENTWISE, 0, 4.0 * t * m.hidden() * Precision.ACTIVATION_BYTES, after);
    }

    /** A dense GEMM of {@code rows} tokens through a {@code depth} (K) x {@code width} (N) weight at {@code bytesPerParam}. */
    private Op gemm(String name, int l, int b, double rows, double depth, double width, double bytesPerParam, Op after) {
        return batchedGemm(name, l, b, rows, 1, depth, width, bytesPerParam, after);
    }

    /**
     * {@code batches} GEMMs in one kernel (a batched GEMM over heads), each {@code rows} tokens through a {@code depth} x
     * {@code width} weight at {@code bytesPerParam}, activations in and out at BF16, priced by {@link KernelCosts#gemmMicros}.
     */
    private Op batchedGemm(String name, int l, int b, double rows, double batches, double depth, double width, double bytesPerParam,
                           Op after) {
        double bytes = gemmBytes(rows, batches, depth, width, bytesPerParam);
        int bits = mathBits(bytesPerParam);
        return kernel(name, l, b, k.gemmMicros(rows, width, depth, batches, bytes, bits), k.fixedMicros(KernelCosts.Kind.GEMM, bits), bytes,
                2.0 * rows * batches * depth * width, bits, after);
    }

    /** What a GEMM moves, its weights counted among those the step reads: the weights once, every row's BF16 input and output. */
    private double gemmBytes(double rows, double batches, double depth, double width, double bytesPerParam) {
        return weights(batches * depth * width * bytesPerParam) + rows * batches * (depth + width) * Precision.ACTIVATION_BYTES;
    }

    /**
     * A grouped GEMM of {@code tokens} tokens' {@code rows} routed rows over {@code groups} experts holding {@code params} weights
     * in all, {@code depth} deep (K), as the engine's fused
     * MoE runs it ({@link KernelCosts#groupedGemmMicros}); FP8 weights are block-scaled where the checkpoint was published in FP8.
     */
    private Op groupedGemm(String name, int l, int b, double tokens, double rows, double groups, double params, double depth, Op after) {
        double bpp = spec.precision().bytesPerParam();
        int bits = mathBits(bpp);
        boolean blockScaled = k.blockScaledFp8();
        weights(params * bpp);
        double bytes = KernelCosts.groupedGemmBytes(rows, groups, params, depth, bpp);
        return kernel(name, l, b, k.groupedGemmMicros(tokens, rows, groups, params, depth, bpp, bits, blockScaled),
                k.moe(bits, blockScaled).fixedUs(), bytes, 2.0 * rows * params / Math.max(groups, 1), bits, after);
    }

    /**
     * A GEMM of {@code depth} (K) into the hidden size whose output the TP group then reduces. With {@code --overlap fused} it runs in tiles in
     * one kernel, each tile's share of the reduction leaving as the tile ends (its bandwidth share of
     * the collective); the collective's fixed latency is paid once, after the last tile, as the fused
     * kernel's final barrier.
     */
    private Op gemmThenReduce(String name, int l, int b, int t, double depth, Op after) {
        if (spec.overlap() != Overlap.FUSED || spec.tp() == 1) {
            return gemm(name, l, b, t, depth, m.hidden(), spec.precision().denseBytesPerParam(), after);
        }
        double params = depth * m.hidden();
        double bytes = gemmBytes(t, 1, depth, m.hidden(), spec.precision().denseBytesPerParam());
        int bits = mathBits(spec.precision().denseBytesPerParam());
        double whole = k.gemmMicros(t, m.hidden(), depth, 1, bytes, bits) * slowdown(l);
        long message = (long) t * m.hidden() * Precision.ACTIVATION_BYTES;
        CommModel.Cost full = comm.allReduce(layout, spec.tp(), message);
        CommModel.Cost tile = comm.allReduceSlice(layout, spec.tp(), Math.max(16, message / FUSED_TILES), full);
        double tileBandwidth = tile.micros() - tile.latencyMicros();
        Op gemm = after;
        Op[] reductions = new Op[FUSED_TILES];
        for (int i = 0; i < FUSED_TILES; i++) {
            boolean lastTile = i == FUSED_TILES - 1;
            double micros = whole / FUSED_TILES + (i == 0 ? launch() : 0);
            gemm = add(new Op(named(name) + "[" + i + "]", l, b, KernelKind.COMPUTE, 0, micros, 0, 0, 0).after(gemm));
            if (i == 0) {
                gemm.floorMicros = launch() + k.fixedMicros(KernelCosts.Kind.GEMM, bits);
            }
            gemm.launch = i == 0;
            gemm.rooflineMicros = k.rooflineMicros(2.0 * t * params, bytes, bits) / FUSED_TILES;
            reductions[i] = add(new Op(named(name) + "_all_reduce[" + i + "]", l, b, KernelKind.COMM, 1,
                    tileBandwidth + (lastTile ? full.latencyMicros() : 0), tile.sms(), tile.bytesSent(),
                    lastTile ? full.latencyMicros() : 0).after(gemm));
            reductions[i].launch = false;
        }
        return add(new Op(named(name) + "_reduced", l, b, KernelKind.COMPUTE, 0, 0, 0, 0, 0).after(reductions));
    }

    /** The TP group's all-reduce of the activations, unless fused into the GEMM before it (or there is no TP group). */
    private Op tpReduce(String name, int l, int b, int t, Op after) {
        if (spec.tp() == 1 || (spec.overlap() == Overlap.FUSED && !name.equals("moe_all_reduce"))) {
            return after;
        }
        long bytes = (long) t * m.hidden() * Precision.ACTIVATION_BYTES;
        return collective(name, l, b, comm.allReduce(layout, spec.tp(), bytes), after);
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
     */
    private Op compute(String name, int layer, int b, KernelCosts.Kind kind, double flops, double bytes, Op after, double usefulFlops,
                       int mathBits) {
        return kernel(name, layer, b, k.workMicros(kind, flops, bytes, mathBits), k.fixedMicros(kind, mathBits), bytes, usefulFlops, mathBits,
                after);
    }

    /** A compute kernel {@link #timed} at {@code workMicros}, with the roofline's bound of its {@code usefulFlops} and bytes. */
    private Op kernel(String name, int layer, int b, double workMicros, double fixedMicros, double bytes, double usefulFlops, int mathBits,
                      Op after) {
        Op op = timed(name, layer, b, workMicros, fixedMicros, bytes, after);
        op.rooflineMicros = k.rooflineMicros(usefulFlops, bytes, mathBits);
        op.flops = usefulFlops;
        return op;
    }

    /**
     * A compute kernel that works {@code workMicros} after its launch, {@code fixedMicros} of it fixed (the kernel floor), the
     * straggler's slowdown applied. Without CUDA graphs a kernel shorter than the host's issue time waits for the host.
     */
    private Op timed(String name, int layer, int b, double workMicros, double fixedMicros, double bytes, Op after) {
        double work = workMicros * slowdown(layer);
        double micros = spec.cudaGraphs() ? launch() + work : Math.max(launch(), work + KernelCosts.GRAPH_GAP_US);
        Op op = add(new Op(named(name), layer, b, KernelKind.COMPUTE, 0, micros, 0, Math.round(bytes), 0).after(after));
        op.floorMicros = micros - (work - fixedMicros * slowdown(layer));
        return op;
    }

    private Op collective(String name, int layer, int b, CommModel.Cost c, Op after) {
        Op op = commKernel(name, layer, b, c.micros(), c.sms(), c.bytesSent(), c.latencyMicros(), after);
        op.collective = c;
        return op;
    }

    /** A communication kernel on the micro-batch's communication stream: its launch, then {@code micros}, {@code latencyMicros} of it latency. */
    private Op commKernel(String name, int layer, int b, double micros, int sms, long bytes, double latencyMicros, Op after) {
        double launch = launch();
        Op op = add(new Op(named(name), layer, b, KernelKind.COMM, spec.overlap().commStream(b), micros + launch, sms, bytes,
                latencyMicros + launch).after(after));
        op.floorMicros = launch;
        return op;
    }

    /** A kernel's name: the draft layer's carry draft_ before it. */
    private String named(String name) {
        return drafting ? DRAFT_PREFIX + name : name;
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
        int stage = layer < 0 ? 0 : layer >= m.layers() ? spec.pp() - 1 : stageOf(spec, layer);
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
    void issue() {
        boolean left = true;
        int[] at = new int[pending.size()];
        while (left) {
            left = false;
            for (int b = 0; b < pending.size(); b++) {
                List<Op> list = pending.get(b);
                while (at[b] < list.size()) {
                    Op op = list.get(at[b]++);
                    ops.add(op);
                    if (op.kind == KernelKind.COMM) {
                        break;
                    }
                }
                left |= at[b] < list.size();
            }
        }
        pending.forEach(List::clear);
    }
}
