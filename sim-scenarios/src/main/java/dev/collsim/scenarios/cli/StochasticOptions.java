package dev.collsim.scenarios.cli;

import dev.collsim.core.input.InputException;
import dev.collsim.scenarios.stochastic.Variability;
import picocli.CommandLine.Option;

/** {@code --replications}, {@code --seed} and the sources of variability, shared by bench and decode. */
final class StochasticOptions {
    @Option(names = "--replications", paramLabel = "R", description = "run R replications and print mean, P50, P99 and a 95% confidence interval")
    Integer replications;

    @Option(names = "--seed", paramLabel = "S", defaultValue = "1", description = "seed of the random streams (default: ${DEFAULT-VALUE})")
    long seed;

    @Option(names = "--launch-jitter", paramLabel = "CV", defaultValue = "0",
            description = "coefficient of variation of kernel-launch latencies, lognormal (default: ${DEFAULT-VALUE})")
    double launchJitter;

    @Option(names = "--step-jitter", paramLabel = "CV", defaultValue = "0",
            description = "coefficient of variation of each collective step's latency, lognormal (default: ${DEFAULT-VALUE})")
    double stepJitter;

    @Option(names = "--straggler", paramLabel = "F[@GPU]",
            description = "one GPU's kernels F times slower: GPU named, or drawn per replication (decode)")
    String straggler;

    /** Whether the run is stochastic; the knobs without --replications are an error. */
    boolean active() {
        Variability.Spec spec = spec();
        if (replications == null && spec.stochastic()) {
            throw new InputException("--launch-jitter, --step-jitter and --straggler vary between replications; give --replications R");
        }
        return replications != null;
    }

    Variability.Spec spec() {
        double factor = 1;
        int gpu = -1;
        if (straggler != null) {
            String[] parts = straggler.split("@", -1);
            try {
                factor = Double.parseDouble(parts[0]);
                gpu = parts.length == 2 ? Integer.parseInt(parts[1]) : -1;
            } catch (NumberFormatException e) {
                factor = Double.NaN;
            }
            if (parts.length > 2 || Double.isNaN(factor) || gpu < -1 || (parts.length == 2 && gpu < 0)) {
                throw new InputException("--straggler '" + straggler + "': expected a factor, optionally @GPU, e.g. 1.5 or 1.5@3");
            }
        }
        return new Variability.Spec(launchJitter, stepJitter, factor, gpu);
    }
}
