package dev.collsim.scenarios.cli;

import dev.collsim.core.collective.CollectiveStalledException;
import dev.collsim.core.input.InputException;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code collsim} command. Bad input of any kind (a flag, a value, a file) ends with one line
 * on standard error naming the problem and exit code 2, never a stack trace.
 */
@Command(name = "collsim", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
        resourceBundle = "dev.collsim.scenarios.cli.FlagHelp",
        description = "Discrete-event simulator of GPU-cluster communication: NCCL-style collectives chunk by chunk over modelled fabrics.",
        subcommands = {BenchCommand.class, DecodeCommand.class, PrefillCommand.class, ServeCommand.class, CompareCommand.class, CalibrateCommand.class, SweepCommand.class, MergeCommand.class, RunCommand.class, ExplainCommand.class, TopoCommand.class, DemoCommand.class, ValidateCommand.class,
            CommandLine.HelpCommand.class})
public final class Main implements Callable<Integer> {
    /** Exit code for bad input, as nccl-tests and most Unix tools use for usage errors. */
    public static final int BAD_INPUT = 2;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** Bare {@code collsim} names no command: the command list on standard error, and the usage error's exit code. */
    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return BAD_INPUT;
    }

    public static void main(String[] args) {
        int code;
        try {
            code = execute(args, new PrintWriter(System.out, true), new PrintWriter(System.err, true));
        } catch (OutOfMemoryError e) {
            System.err.printf("collsim: out of memory with a Java heap of %d MiB; give it more, e.g. COLLSIM_JAVA_OPTS=-Xmx16g"
                    + " (docs/performance.md has the sizes of large fabrics)%n", Runtime.getRuntime().maxMemory() >> 20);
            code = 1;
        }
        System.exit(code);
    }

    /** A flag picocli could not take, in one line: what is wrong, a suggestion where it has one, where to look. */
    static String parameterError(CommandLine.ParameterException ex) {
        String suggestion = ex instanceof CommandLine.UnmatchedArgumentException u && !u.getSuggestions().isEmpty()
                ? "; did you mean " + String.join(" or ", u.getSuggestions()) + "?" : "";
        return firstLine(ex.getMessage()) + suggestion + " (see '" + ex.getCommandLine().getCommandSpec().qualifiedName() + " --help')";
    }

    /** Runs the command line with the given streams and returns the exit code (for tests too). */
    public static int execute(String[] args, PrintWriter out, PrintWriter err) {
        CommandLine cl = new CommandLine(new Main());
        cl.setOut(out);
        cl.setErr(err);
        cl.setParameterExceptionHandler((ex, ignored) -> {
            err.println("collsim: " + parameterError(ex));
            return BAD_INPUT;
        });
        cl.setExecutionExceptionHandler((ex, commandLine, parsed) -> {
            if (ex instanceof InputException) {
                err.println("collsim: " + firstLine(ex.getMessage()));
                return BAD_INPUT;
            }
            if (ex instanceof CollectiveStalledException) {
                // A diagnosis, not a crash: which ranks wait and for what.
                err.println("collsim: " + firstLine(ex.getMessage()) + " (please report it)");
                return 1;
            }
            if (System.getenv("COLLSIM_DEBUG") != null) {
                ex.printStackTrace(err);
            } else {
                err.println("collsim: internal error: " + firstLine(String.valueOf(ex))
                        + " (set COLLSIM_DEBUG=1 for the stack trace, and please report it)");
            }
            return 1;
        });
        cl.setExecutionStrategy(Main::runWithItsFiles);
        int code = cl.execute(args);
        out.flush();
        err.flush();
        return code;
    }

    /** Runs the command named, its files checked before it starts and written only if it ends well (see {@link RunFiles}). */
    private static int runWithItsFiles(CommandLine.ParseResult parsed) {
        RunFiles files;
        try {
            files = RunFiles.open(parsed);
        } catch (InputException e) {
            throw new CommandLine.ExecutionException(parsed.commandSpec().commandLine(), e.getMessage(), e); // to the handler above
        }
        try {
            int code = new CommandLine.RunLast().execute(parsed);
            if (code == 0) {
                files.commit();
            }
            return code;
        } finally {
            files.close();
        }
    }

    /** The most of a message one line shows: a terminal's few lines, not a 2,000-value list a user pasted. */
    static final int LONGEST_LINE = 600;

    /**
     * A message's first line, at most {@link #LONGEST_LINE} characters: a longer one keeps its start
     * (which file, line and field) and its end (what was expected) and says how much it left out.
     */
    static String firstLine(String message) {
        if (message == null) {
            return "";
        }
        int nl = message.indexOf('\n');
        String line = (nl < 0 ? message : message.substring(0, nl)).trim();
        if (line.length() <= LONGEST_LINE) {
            return line;
        }
        int head = LONGEST_LINE * 2 / 3;
        int tail = LONGEST_LINE - head;
        return line.substring(0, head) + " [... " + (line.length() - head - tail) + " characters left out ...] "
                + line.substring(line.length() - tail);
    }

    /** Reads the version from the jar's manifest, or says it is a development build. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = Main.class.getPackage().getImplementationVersion();
            return new String[] {"collsim " + (v == null ? "(development build)" : v)};
        }
    }
}
