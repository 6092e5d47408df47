package dev.collsim.scenarios.load;

import java.util.function.BiConsumer;

/** Runs a load: every request through the deployment's routers, schedulers and steps. */
public final class LoadSimulation {
    private LoadSimulation() {}

    /**
     * Simulates {@code spec}, telling {@code progress} (done, total) as requests end.
     */
    public static LoadOutcome run(LoadSpec spec, int threads, BiConsumer<Integer, Integer> progress) {
        throw new UnsupportedOperationException("being written");
    }
}
