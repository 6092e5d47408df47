package dev.collsim.scenarios.decode;

import dev.collsim.core.input.InputException;
import dev.collsim.core.input.Require;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * One decode step to simulate.
 *
 * @param system  where it runs
 * @param nodes   nodes the layout must fit in, or empty: as many as it needs
 * @param tp      tensor-parallel ranks: attention heads and MLP columns split over them, two all-reduces per layer
 * @param pp      pipeline stages, the layers split evenly, activations sent between stages
 * @param ep      expert-parallel ranks for MoE layers (1: experts split over the TP ranks instead): a
 *                divisor of tp x dp, every attention rank holding experts/ep experts, each split over
 *                {@link #moeTp} = tp x dp / ep ranks (MoE TP inside EP: TensorRT-LLM's moe_tp_size x
 *                moe_ep_size = tp); below tp x dp only with attention TP (dp 1)
 * @param dp      data-parallel replicas of the attention (and of everything when ep is 1)
 * @param batch   sequences decoding together in each replica, one token each per step
 * @param context tokens already in each sequence's KV cache
 * @param engine  the serving engine whose kernels and host loop the step follows
 * @param kvCache the KV cache's element type, or null for the engine's default
 * @param overlapScheduler whether the host prepares the next step while the GPU runs this one
 *                (SGLang's and TensorRT-LLM's overlap schedulers, vLLM's async scheduling), or null
 *                for the engine's default
 * @param speculation the draft tokens each step verifies and keeps ({@link Speculation#NONE}: plain decoding)
 * @param experts how tokens reach the experts on other EP ranks, fall on them, and are placed ({@link ExpertParallel#DEFAULT}:
 *                the engines' all-gather, every expert alike, placed by id); an exchange left {@code AUTO} runs as the
 *                engines' default, the all-gather
 */
public record DecodeSpec(ModelConfig model, DecodeSystem system, OptionalInt nodes, int tp, int pp, int ep, int dp,
                         int batch, int context, Precision precision, AllReduceKind allReduce, Overlap overlap, boolean cudaGraphs,
                         ServingEngine engine, Precision kvCache, Boolean overlapScheduler, Speculation speculation,
                         ExpertParallel experts) {
    /** A step whose tokens fall on every expert alike. */
    public DecodeSpec(ModelConfig model, DecodeSystem system, OptionalInt nodes, int tp, int pp, int ep, int dp, int batch, int context,
                      Precision precision, AllReduceKind allReduce, Overlap overlap, boolean cudaGraphs, ServingEngine engine,
                      Precision kvCache, Boolean overlapScheduler, Speculation speculation) {
        this(model, system, nodes, tp, pp, ep, dp, batch, context, precision, allReduce, overlap, cudaGraphs, engine, kvCache,
                overlapScheduler, speculation, ExpertParallel.DEFAULT);
    }

    /** A step of plain decoding, one token a sequence. */
    public DecodeSpec(ModelConfig model, DecodeSystem system, OptionalInt nodes, int tp, int pp, int ep, int dp, int batch, int context,
                      Precision precision, AllReduceKind allReduce, Overlap overlap, boolean cudaGraphs, ServingEngine engine,
                      Precision kvCache, Boolean overlapScheduler) {
        this(model, system, nodes, tp, pp, ep, dp, batch, context, precision, allReduce, overlap, cudaGraphs, engine, kvCache,
                overlapScheduler, Speculation.NONE);
    }

    /** A step under the default engine, its KV cache as that engine keeps it. */
    public DecodeSpec(ModelConfig model, DecodeSystem system, OptionalInt nodes, int tp, int pp, int ep, int dp, int batch, int context,
                      Precision precision, AllReduceKind allReduce, Overlap overlap, boolean cudaGraphs) {
        this(model, system, nodes, tp, pp, ep, dp, batch, context, precision, allReduce, overlap, cudaGraphs, ServingEngine.DEFAULT, null, null);
    }

    public DecodeSpec {
        Objects.requireNonNull(engine, "engine");
        Objects.requireNonNull(speculation, "speculation");
        Objects.requireNonNull(experts, "experts");
        if (experts.exchange() == ExpertParallel.Exchange.AUTO) {
            experts = experts.withExchange(ExpertParallel.Exchange.ALLGATHER);
        }
        if (speculation.method() == Speculation.Method.MTP && model.mtpLayers() == 0) {
            throw new InputException("--spec mtp:" + speculation.drafts() + ": " + model.name() + "'s checkpoint has no multi-token"
                    + " prediction layers (num_nextn_predict_layers, mtp_num_hidden_layers); draft with --spec eagle:K instead");
        }
        if (kvCache != null && kvCache != Precision.BF16 && kvCache != Precision.FP8) {
            throw new InputException("--kv-dtype " + kvCache.label() + ": expected auto, bf16 or fp8 (KV caches are kept in BF16 or FP8)");
        }
        if (system.gpu().arch().rccl()) {
            engine.requireRocm(system.name());
            if (precision == Precision.FP4) {
                throw new InputException("--dtype fp4: NVFP4 is NVIDIA's format; " + system.name() + " runs MXFP4 (--dtype mxfp4)");
            }
        }
        Require.atLeastOne("--tp", tp);
        Require.atLeastOne("--pp", pp);
        Require.atLeastOne("--ep", ep);
        Require.atLeastOne("--dp", dp);
        Require.atLeastOne("--batch", batch);
        Require.atLeastOne("--context", context);
        nodes.ifPresent(n -> Require.atLeastOne("--nodes", n));
        if (model.heads() % tp != 0) {
            throw new InputException("--tp " + tp + ": " + model.name() + "'s " + model.heads()
                    + " attention heads do not split evenly over " + tp + " ranks");
        }
        if (pp > model.layers()) {
            throw new InputException("--pp " + pp + ": " + model.name() + " has only " + model.layers() + " layers");
        }
        if (ep > 1 && model.experts() == 0) {
            throw new InputException("--ep " + ep + ": " + model.name() + " is dense; expert parallelism needs an MoE model");
        }
        if (ep > 1 && (tp * dp) % ep != 0) {
            throw new InputException("--ep " + ep + ": expected a divisor of tp x dp = " + tp * dp
                    + " (every attention rank holds experts, each split over tp x dp / ep ranks)");
        }
        if (ep > 1 && ep < tp * dp && dp > 1) {
            throw new InputException("--ep " + ep + " with --dp " + dp + ": experts split over tp x dp / ep = " + tp * dp / ep
                    + " ranks (MoE TP inside EP) need attention TP, dp 1; with attention DP expected --ep tp x dp = " + tp * dp);
        }
        if (ep > model.experts() && model.experts() > 0) {
            throw new InputException("--ep " + ep + ": " + model.name() + " has only " + model.experts() + " experts");
        }
        experts.check(model, ep);
        if (overlap == Overlap.TWO_BATCH && batch < 2) {
            throw new InputException("--overlap two-batch splits the batch in two; --batch " + batch + " cannot be split");
        }
    }

    /** Ranks each expert's weights are split over: tp without EP, tp x dp / ep with it (1: whole experts on every rank). */
    public int moeTp() {
        return ep > 1 ? tp * dp / ep : tp;
    }

    /** Whether tokens travel to their experts and back all-to-all (NCCL's or DeepEP's): EP with whole experts on every rank. */
    public boolean expertsAllToAll() {
        return ep > 1 && moeTp() == 1 && (experts.exchange() == ExpertParallel.Exchange.ALLTOALL
                || experts.exchange() == ExpertParallel.Exchange.DEEPEP);
    }

    /** Whether every replica's tokens are gathered to every EP rank and the outputs reduce-scattered back: EP over DP replicas. */
    public boolean expertsGathered() {
        return ep > 1 && dp > 1 && experts.exchange() == ExpertParallel.Exchange.ALLGATHER;
    }

    public int gpus() {
        return tp * pp * dp;
    }

    /** The same step over {@code stages} pipeline stages, on as many nodes as that needs. */
    public DecodeSpec withPp(int stages) {
        return new DecodeSpec(model, system, OptionalInt.empty(), tp, stages, ep, dp, batch, context, precision, allReduce,
                overlap, cudaGraphs, engine, kvCache, overlapScheduler, speculation, experts);
    }

    /** The same layout with {@code batch} sequences (or prompt rows) and a context of {@code context} tokens. */
    public DecodeSpec withTokens(int batch, int context) {
        return new DecodeSpec(model, system, nodes, tp, pp, ep, dp, batch, context, precision, allReduce,
                overlap, cudaGraphs, engine, kvCache, overlapScheduler, speculation, experts);
    }

    /** The same step launched with or without CUDA graphs. */
    public DecodeSpec withCudaGraphs(boolean graphs) {
        return new DecodeSpec(model, system, nodes, tp, pp, ep, dp, batch, context, precision, allReduce,
                overlap, graphs, engine, kvCache, overlapScheduler, speculation, experts);
    }

    /** The same layout with its MoE tokens exchanged as {@code how}. */
    public DecodeSpec withExchange(ExpertParallel.Exchange how) {
        return new DecodeSpec(model, system, nodes, tp, pp, ep, dp, batch, context, precision, allReduce,
                overlap, cudaGraphs, engine, kvCache, overlapScheduler, speculation, experts.withExchange(how));
    }

    /** The same step with weights in another format. */
    public DecodeSpec withPrecision(Precision other) {
        return new DecodeSpec(model, system, nodes, tp, pp, ep, dp, batch, context, other, allReduce,
                overlap, cudaGraphs, engine, kvCache, overlapScheduler, speculation, experts);
    }

    /** Bytes per cached element: {@code --kv-dtype}, or what the engine keeps for these weights. */
    public int kvBytes() {
        return kvCache != null ? kvCache.kvBytes() : engine.defaultKvBytes(precision);
    }

    /** Whether the engine's host work overlaps the GPU's step: {@code --overlap-scheduler}, or the engine's default. */
    public boolean hostOverlapped() {
        return overlapScheduler != null ? overlapScheduler : engine.hostOverlapped;
    }

    /** The all-reduce kernel in force: {@code --allreduce}, where auto means NCCL's for an engine without its own. */
    public AllReduceKind allReduceKernel() {
        return allReduce == AllReduceKind.AUTO && !engine.customAllReduce ? AllReduceKind.NCCL : allReduce;
    }

    /** How the engine's own all-reduce kernel is picked by size under {@code --allreduce auto} (AITER's for SGLang on ROCm). */
    CustomAllReduceRule customAllReduceRule() {
        return CustomAllReduceRule.of(engine, system().gpu().arch().rccl());
    }

    /** Sequences in each of the pipeline's in-flight micro-batches: the batch split over the stages. */
    public int microBatch() {
        return (batch + pp - 1) / pp;
    }
}
