package dev.collsim.scenarios.cli;

import dev.collsim.core.input.InputException;
import dev.collsim.core.units.TimeSpan;
import dev.collsim.scenarios.stochastic.Variability;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Option;

/** {@code --replications}, {@code --seed} and the sources of variability, shared by bench and decode. */
final class StochasticOptions {
    @Option(names = "--replications", paramLabel = "R", description = "run R replications and print mean, P50, P99 and a 95%% confidence interval")
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

    @Option(names = "--outage", paramLabel = "A:B@START+DURATION",
            description = "a connection down for a while in each collective (bench), e.g. n0.nic3:leaf3@10us+50us; random-nic@... draws a NIC per replication")
    String outage;

    /**
     * What varies between replications, or null for a single deterministic run; the knobs without
     * --replications are an error.
     */
    Variability.Spec replicated() {
        Variability.Spec spec = spec();
        if (replications == null && spec.stochastic()) {
            throw new InputException("--launch-jitter, --step-jitter, --straggler and --outage vary between replications; give --replications R");
        }
        return replications == null ? null : spec;
    }

    private Variability.Spec spec() {
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
        String connection = null;
        long start = 0;
        long duration = 0;
        if (outage != null) {
            Matcher m = Pattern.compile("([^@]+)@([^+]+)\\+(.+)").matcher(outage);
            if (!m.matches()) {
                throw new InputException("--outage '" + outage + "': expected A:B@START+DURATION, e.g. n0.nic3:leaf3@10us+50us");
            }
            connection = m.group(1).trim();
            start = Flags.parse("--outage", () -> TimeSpan.parse(m.group(2).trim())).picos();
            duration = Flags.parse("--outage", () -> TimeSpan.parse(m.group(3).trim())).picos();
        }
        return new Variability.Spec(launchJitter, stepJitter, factor, gpu, connection, start, duration);
    }
}
