package dev.collsim.scenarios.cli;

import dev.collsim.core.input.InputException;
import java.util.Locale;
import picocli.CommandLine.Option;

/**
 * {@code --request-overhead}: the server's time per request beyond the forwards, which a client's
 * time to first token holds (prefill, serve and validate take it).
 */
final class RequestOverheadFlag {
    @Option(names = "--request-overhead", paramLabel = "MS",
            description = "the server's time per request beyond the forwards, in a client's TTFT: HTTP, tokenisation, the engine's IPC and"
                    + " scheduling (default: the engine's, fitted to the calibration's client-side runs; 0 leaves it out)")
    Double ms;

    boolean given() {
        return ms != null;
    }

    /** The time given, or null for the engine's own. */
    Double orEngines() {
        if (ms != null && !(ms >= 0 && Double.isFinite(ms))) {
            throw new InputException(String.format(Locale.ROOT, "--request-overhead %s: expected a time in ms, 0 or more", ms));
        }
        return ms;
    }
}
