package dev.collsim.scenarios.validate;

import dev.collsim.scenarios.decode.ServingEngine;

/**
 * How a validation runs each measured row's engine.
 *
 * @param forced          the engine every row runs under, or null for the one its framework column names
 * @param requestOverhead the server's time per request beyond the forwards in every client-side run (ms), or null for each
 *                        engine's own ({@link ServingEngine#requestMs()})
 */
public record EngineChoice(ServingEngine forced, Double requestOverhead) {
    /** Every row under its framework's engine, with that engine's request overhead. */
    public static final EngineChoice AS_MEASURED = new EngineChoice(null, null);

    /** The engine a row of {@code framework} runs under, or null where none matches. */
    ServingEngine engineFor(String framework) {
        return forced != null ? forced : DecodeValidation.engineFor(framework);
    }

    /** What a client-side TTFT holds beyond the forwards under {@code engine} (ms). */
    double requestMs(ServingEngine engine) {
        return requestOverhead != null ? requestOverhead : engine.requestMs();
    }
}
