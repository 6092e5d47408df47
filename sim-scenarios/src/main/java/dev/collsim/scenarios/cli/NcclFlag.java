package dev.collsim.scenarios.cli;

import dev.collsim.core.input.InputException;
import dev.collsim.core.nccl.NcclVersion;
import picocli.CommandLine.Option;

/** {@code --nccl}, declared once for every command that runs NCCL's choices: the release that makes them. */
final class NcclFlag {
    @Option(names = "--nccl", paramLabel = "VERSION", defaultValue = "2.30",
            description = "the NCCL release whose graph searches and tuner choose algorithm, protocol and channels: 2.22 to 2.30,"
                    + " e.g. 2.27 or 2.27.3 (default: ${DEFAULT-VALUE}, the newest)")
    String version;

    /** The release asked for, its minor version picking the release modelled. */
    NcclVersion release() {
        NcclVersion v = NcclVersion.find(version);
        if (v == null) {
            throw new InputException("--nccl " + version + ": expected an NCCL version such as 2.27 or 2.27.3; the releases modelled are "
                    + NcclVersion.known());
        }
        return v;
    }
}
