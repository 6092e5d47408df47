package dev.collsim.scenarios.cli;

import dev.collsim.core.input.InputException;
import dev.collsim.scenarios.scenario.Scenario;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code collsim run FILE}: reproduces the run a scenario file captures. */
@Command(name = "run", mixinStandardHelpOptions = true,
        description = "Runs a scenario file (docs/scenario-format.md): a bench, decode, compare, explain or sweep with all its options.")
public final class RunCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "FILE", description = "a scenario file, YAML or JSON")
    Path file;

    @Override
    public Integer call() {
        Scenario scenario = Scenarios.load(file);
        List<String> args = new ArrayList<>();
        if (scenario.isSweep()) {
            args.addAll(List.of("sweep", file.toString()));
        } else {
            args.add(scenario.command());
            args.addAll(scenario.args());
        }
        try {
            return Scenarios.execute(args, spec.commandLine().getOut(), spec.commandLine().getErr());
        } catch (InputException e) {
            // The command's complaint is about a value in the file: say which file.
            throw e.getMessage().startsWith(file.toString()) ? e : e.in(file + ": options");
        }
    }
}
