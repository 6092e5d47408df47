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

    /**
     * A command line as a shell splits it, for the tests that keep theirs as text: words apart at spaces,
     * a 'quoted group' one word (a deployment such as {@code '1P tp8 + 1D tp8 b64'}).
     */
    static String[] words(String line) {
        java.util.List<String> out = new java.util.ArrayList<>();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("'([^']*)'|(\\S+)").matcher(line);
        while (m.find()) {
            out.add(m.group(1) != null ? m.group(1) : m.group(2));
        }
        return out.toArray(String[]::new);
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
        return Double.parseDouble(csvRows(args).get(0)[column]);
    }

    /** Runs a {@code ... --format csv} command that must succeed and returns its rows under the header, split at commas. */
    static java.util.List<String[]> csvRows(String... args) {
        CliRunner r = run(args);
        assertEquals(0, r.code(), r.err());
        return r.out().lines().skip(1).map(l -> l.split(",")).toList();
    }
}
