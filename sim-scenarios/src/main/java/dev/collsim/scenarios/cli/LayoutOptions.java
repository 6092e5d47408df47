package dev.collsim.scenarios.cli;

import dev.collsim.core.input.InputException;
import picocli.CommandLine.Option;

/**
 * {@code --tp}, {@code --pp}, {@code --ep} ({@code --moe-ep}), {@code --moe-tp} and {@code --batch}: how one instance of a model is laid
 * out and how many requests it holds, for decode and prefill. Prefill's words for two of them are in
 * {@link FlagHelp}; decode's {@code --dp} and compare's search are their own.
 */
final class LayoutOptions {
    @Option(names = "--tp", paramLabel = "T", defaultValue = "1", description = "tensor-parallel ranks (default: ${DEFAULT-VALUE})")
    int tp;

    @Option(names = "--pp", paramLabel = "P", defaultValue = "1", description = "pipeline stages (default: ${DEFAULT-VALUE})")
    int pp;

    @Option(names = {"--ep", "--moe-ep"}, paramLabel = "E", defaultValue = "1",
            description = "expert-parallel ranks: tp x dp, or with dp 1 a divisor of tp, each expert then split over tp / ep ranks"
                    + " (default: ${DEFAULT-VALUE})")
    int ep;

    @Option(names = "--moe-tp", paramLabel = "T", description = "ranks each expert is split over (MoE TP inside EP); T x E must be"
            + " tp x dp (default: tp x dp / ep)")
    Integer moeTp;

    /** The replicas' attention DP under {@code --ep}: tp x dp is the experts' ranks, {@code --moe-tp} x {@code --ep} when given. */
    void checkMoeTp(int dp) {
        if (moeTp != null && (long) moeTp * ep != (long) tp * dp) {
            throw new InputException("--moe-tp " + moeTp + " --moe-ep " + ep + ": " + moeTp + " x " + ep + " = " + (long) moeTp * ep
                    + " ranks, expected tp x dp = " + tp * dp);
        }
    }

    @Option(names = "--batch", paramLabel = "B", defaultValue = "1", description = "sequences per replica (default: ${DEFAULT-VALUE})")
    int batch;
}
