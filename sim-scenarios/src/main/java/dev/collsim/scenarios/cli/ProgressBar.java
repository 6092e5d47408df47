package dev.collsim.scenarios.cli;

import java.io.PrintWriter;
import java.util.function.BiConsumer;
import java.util.function.LongSupplier;

/**
 * A progress bar on standard error for a person at a terminal: "compare [#####     ] 120/400",
 * drawn once a run has taken a second (a short run shows nothing), at most ten times a second, and
 * wiped when the work is done. Piped or in a log (no console) it prints nothing: carriage returns
 * are noise there.
 */
final class ProgressBar implements BiConsumer<Integer, Integer> {
    static final int WIDTH = 30;
    private static final long QUIET_MS = 1000;
    private static final long EVERY_MS = 100;

    private final PrintWriter err;
    private final String what;
    private final LongSupplier clockMs;
    private final long startMs;
    private long drawnMs = Long.MIN_VALUE / 2;
    private int drawnWidth;

    ProgressBar(PrintWriter err, String what, LongSupplier clockMs) {
        this.err = err;
        this.what = what;
        this.clockMs = clockMs;
        this.startMs = clockMs.getAsLong();
    }

    /** A bar for {@code what} on {@code err} when a person watches a terminal, else one that does nothing. */
    static BiConsumer<Integer, Integer> onTerminal(PrintWriter err, String what) {
        return System.console() != null ? new ProgressBar(err, what, System::currentTimeMillis) : (done, total) -> { };
    }

    @Override
    public synchronized void accept(Integer done, Integer total) {
        long now = clockMs.getAsLong();
        if (done >= total) {
            if (drawnWidth > 0) {
                err.print("\r" + " ".repeat(drawnWidth) + "\r");
                err.flush();
                drawnWidth = 0;
            }
            return;
        }
        if (now - startMs < QUIET_MS || now - drawnMs < EVERY_MS) {
            return;
        }
        int filled = total <= 0 ? 0 : (int) ((long) done * WIDTH / total);
        String line = what + " [" + "#".repeat(filled) + " ".repeat(WIDTH - filled) + "] " + done + "/" + total;
        err.print("\r" + line + " ".repeat(Math.max(0, drawnWidth - line.length())));
        err.flush();
        drawnWidth = Math.max(drawnWidth, line.length());
        drawnMs = now;
    }
}
