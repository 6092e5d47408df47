package dev.collsim.scenarios.decode;

import java.util.Objects;
import java.util.OptionalInt;

/**
 * The serving engine a search runs every layout under, with the choices a user may make of it.
 *
 * @param kvCache          the KV cache's element type, or null for the engine's default
 * @param overlapScheduler whether the host overlaps the GPU's step, or null for the engine's default
 * @param requestOverhead  the server's time per request beyond the forwards (ms), or null for the engine's
 * @param speculation      the speculative decoding it runs, or {@link Speculation#NONE}
 * @param experts          how MoE tokens reach their experts, fall on them, and EPLB places them, or {@link ExpertParallel#DEFAULT}
 */
public record EngineSetup(ServingEngine engine, Precision kvCache, Boolean overlapScheduler, Double requestOverhead,
                          Speculation speculation, ExpertParallel experts) {
    public static final EngineSetup DEFAULT = new EngineSetup(ServingEngine.DEFAULT, null, null, null);

    /** A setup that decodes plainly, one token a step. */
    public EngineSetup(ServingEngine engine, Precision kvCache, Boolean overlapScheduler, Double requestOverhead) {
        this(engine, kvCache, overlapScheduler, requestOverhead, Speculation.NONE, ExpertParallel.DEFAULT);
    }

    public EngineSetup {
        Objects.requireNonNull(engine, "engine");
        Objects.requireNonNull(speculation, "speculation");
        Objects.requireNonNull(experts, "experts");
    }

    /** This setup with its request overhead set (null: the engine's). */
    public EngineSetup withRequestOverhead(Double ms) {
        return new EngineSetup(engine, kvCache, overlapScheduler, ms, speculation, experts);
    }

    /** This setup drafting and verifying as {@code spec} says. */
    public EngineSetup withSpeculation(Speculation spec) {
        return new EngineSetup(engine, kvCache, overlapScheduler, requestOverhead, spec, experts);
    }

    /** The time a client's TTFT holds beyond the forwards (ms): the one set, or the engine's ({@link ServingEngine#requestMs()}). */
    public double requestMs() {
        return requestOverhead != null ? requestOverhead : engine.requestMs();
    }

    /**
     * A layout of {@code model} on {@code system} under this engine: NCCL's or the engine's own
     * all-reduce as it chooses, CUDA graphs as the engine captures them by default, its KV cache and
     * host overlap as set, its expert parallelism as set (EPLB only where there are EP ranks to balance).
     */
    public DecodeSpec layout(ModelConfig model, DecodeSystem system, int tp, int pp, int ep, int dp, int batch, int context,
                             Precision precision, Overlap overlap) {
        return new DecodeSpec(model, system, OptionalInt.empty(), tp, pp, ep, dp, batch, context, precision, AllReduceKind.AUTO,
                overlap, engine.cudaGraphsByDefault(), engine, kvCache, overlapScheduler, speculation, experts.on(ep));
    }

    /** The KV cache's type as a label, given the weights' format. */
    public String kvLabel(Precision weights) {
        return kvCache != null ? kvCache.label() : engine.defaultKvBytes(weights) == 1 ? "fp8" : "bf16";
    }
}
