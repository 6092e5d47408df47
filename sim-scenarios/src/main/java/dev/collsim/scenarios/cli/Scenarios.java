package dev.collsim.scenarios.cli;

import dev.collsim.core.input.InputException;
import dev.collsim.scenarios.scenario.Scenario;
import dev.collsim.scenarios.sweep.PointResult;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine;

/** Scenario files against the command line: which options a command has, and running one in-process. */
final class Scenarios {
    private Scenarios() {}

    static Scenario load(Path file) {
        CommandLine cl = new CommandLine(new Main());
        return Scenario.load(file, (command, option) -> {
            CommandLine sub = cl.getSubcommands().get(command);
            CommandLine.Model.OptionSpec spec = sub == null ? null : sub.getCommandSpec().findOption("--" + option);
            if (spec == null) {
                return Scenario.OptionKind.UNKNOWN;
            }
            if (spec.arity().max() == 0) {
                return Scenario.OptionKind.SWITCH;
            }
            return spec.isMultiValue() && !SystemFlag.takesOne(spec) ? Scenario.OptionKind.REPEATABLE : Scenario.OptionKind.SINGLE;
        });
    }

    /**
     * Runs a sweep's point in this process: the command line parsed into its command, which hands back
     * its typed result; bad input (a flag, or what the command refuses) is an InputException in the
     * words the command line would print.
     */
    static PointResult point(List<String> args) {
        CommandLine cl = new CommandLine(new Main());
        CommandLine.ParseResult parsed;
        try {
            parsed = cl.parseArgs(args.toArray(String[]::new));
        } catch (CommandLine.ParameterException e) {
            throw new InputException(Main.parameterError(e));
        }
        Object command = parsed.subcommand() == null ? null : parsed.subcommand().commandSpec().userObject();
        if (command instanceof SweptCommand swept) {
            try {
                return swept.point();
            } catch (InputException e) {
                throw new InputException(Main.firstLine(e.getMessage()));
            }
        }
        throw new IllegalArgumentException("a sweep runs bench or decode, not " + args);
    }

    /** Runs a command line in this process, printing to {@code out} and {@code err}; bad input is thrown, not printed. */
    static int execute(List<String> args, PrintWriter out, PrintWriter err) {
        StringWriter captured = new StringWriter();
        int code = Main.execute(args.toArray(String[]::new), out, new PrintWriter(captured));
        if (code == Main.BAD_INPUT) {
            throw new InputException(captured.toString().strip().replaceFirst("^collsim: ", ""));
        }
        err.print(captured);
        err.flush();
        return code;
    }
}
