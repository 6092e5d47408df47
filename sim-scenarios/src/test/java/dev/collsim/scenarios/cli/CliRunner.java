package dev.collsim.scenarios.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.PrintWriter;
import java.io.StringWriter;

/** Runs the command line in-process and keeps what it printed. */
record CliRunner(int code, String out, String err) {
    static CliRunner run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.execute(args, new PrintWriter(out), new PrintWriter(err));
        return new CliRunner(code, out.toString(), err.toString());
    }

    /** Runs a {@code bench ... --format csv} that must succeed and returns the busbw of its first size. */
    static double busbw(String... args) {
        return firstRow(args, 7);
    }

    /** As {@link #busbw}, the time in microseconds. */
    static double timeUs(String... args) {
        return firstRow(args, 5);
    }

    private static double firstRow(String[] args, int column) {
        CliRunner r = run(args);
        assertEquals(0, r.code(), r.err());
        return Double.parseDouble(r.out().split("\n")[1].split(",")[column]);
    }
}
