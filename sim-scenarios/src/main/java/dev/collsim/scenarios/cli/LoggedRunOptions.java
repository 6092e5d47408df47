package dev.collsim.scenarios.cli;

import dev.collsim.core.collective.CollectiveOp;
import picocli.CommandLine.Option;

/** How the nccl-tests runs behind a set of logs were made: for {@code validate} and {@code calibrate}. */
final class LoggedRunOptions {
    @Option(names = "--op", paramLabel = "OP", defaultValue = "all_reduce", description = "the operation the logs measured (default: ${DEFAULT-VALUE})")
    String op;

    @Option(names = {"-g", "--ngpus"}, paramLabel = "G", defaultValue = "1", description = "GPUs per host thread in the logs' runs (default: ${DEFAULT-VALUE})")
    int gpusPerThread;

    @Option(names = "--algo", paramLabel = "LIST", defaultValue = "auto", description = "algorithms the logs' runs allowed, as NCCL_ALGO (default: ${DEFAULT-VALUE})")
    String algo;

    CollectiveOp operation() {
        return CollectiveOp.fromName(op);
    }
}
