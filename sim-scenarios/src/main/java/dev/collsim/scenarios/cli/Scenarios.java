package dev.collsim.scenarios.cli;

import dev.collsim.core.input.InputException;
import dev.collsim.scenarios.scenario.Scenario;
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
            return spec.isMultiValue() ? Scenario.OptionKind.REPEATABLE : Scenario.OptionKind.SINGLE;
        });
    }

    /** Runs a command line in this process: its standard output, or the command's own error as an InputException. */
    static String run(List<String> args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = execute(args, new PrintWriter(out), new PrintWriter(err));
        if (code != 0) {
            throw new IllegalStateException(err.toString().strip());
        }
        return out.toString();
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
