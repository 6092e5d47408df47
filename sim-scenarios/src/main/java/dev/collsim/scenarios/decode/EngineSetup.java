package dev.collsim.scenarios.decode;

/**
 * The serving engine a search runs every layout under, with the choices a user may make of it.
 *
 * @param kvCache          the KV cache's element type, or null for the engine's default
 * @param overlapScheduler whether the host overlaps the GPU's step, or null for the engine's default
 */
public record EngineSetup(Engine engine, Precision kvCache, Boolean overlapScheduler) {
    public static final EngineSetup DEFAULT = new EngineSetup(Engine.DEFAULT, null, null);

    public EngineSetup {
        java.util.Objects.requireNonNull(engine, "engine");
    }

    /** The KV cache's type as a label, given the weights' format. */
    public String kvLabel(Precision weights) {
        return kvCache != null ? kvCache.label() : engine.defaultKvBytes(weights) == 1 ? "fp8" : "bf16";
    }
}
