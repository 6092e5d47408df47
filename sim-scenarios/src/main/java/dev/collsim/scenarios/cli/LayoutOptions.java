package dev.collsim.scenarios.cli;

import picocli.CommandLine.Option;

/**
 * {@code --tp}, {@code --pp}, {@code --ep} and {@code --batch}: how one instance of a model is laid
 * out and how many requests it holds, for decode and prefill. Prefill's words for two of them are in
 * {@link FlagHelp}; decode's {@code --dp} and compare's search are their own.
 */
final class LayoutOptions {
    @Option(names = "--tp", paramLabel = "T", defaultValue = "1", description = "tensor-parallel ranks (default: ${DEFAULT-VALUE})")
    int tp;

    @Option(names = "--pp", paramLabel = "P", defaultValue = "1", description = "pipeline stages (default: ${DEFAULT-VALUE})")
    int pp;

    @Option(names = "--ep", paramLabel = "E", defaultValue = "1", description = "expert-parallel ranks, tp x dp (default: ${DEFAULT-VALUE})")
    int ep;

    @Option(names = "--batch", paramLabel = "B", defaultValue = "1", description = "sequences per replica (default: ${DEFAULT-VALUE})")
    int batch;
}
