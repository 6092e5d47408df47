package dev.collsim.scenarios.cli;

import java.util.OptionalInt;
import picocli.CommandLine.Option;

/** {@code --gpus-per-node}, declared once for every command that builds a preset's nodes: how many of each node's GPUs are in use. */
final class GpusPerNodeFlag {
    /** Null when not given: all of them, and beside a topology file it is an error. */
    @Option(names = "--gpus-per-node", paramLabel = "G", description = "GPUs of each node in use (default: all)")
    Integer count;

    /** The count given, or empty for all. */
    OptionalInt inUse() {
        return count == null ? OptionalInt.empty() : OptionalInt.of(count);
    }
}
