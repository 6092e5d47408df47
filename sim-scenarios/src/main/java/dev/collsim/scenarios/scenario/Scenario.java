package dev.collsim.scenarios.scenario;

import dev.collsim.core.input.TextFile;
import dev.collsim.topologies.file.Doc;
import java.io.Reader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiPredicate;

/**
 * A run captured in a file so it can be reproduced from it (docs/scenario-format.md): the command
 * (bench, decode, compare, explain or sweep), its options by their command-line names, and for a
 * sweep the axes whose product are its points. Strict: unknown fields and options, values given
 * twice and wrong shapes are errors that name the file and the line.
 *
 * @param command the command a point runs (for a sweep, {@code sweep.command})
 * @param args    the command line of the run (for a sweep, of every point before its axes)
 * @param axes    for a sweep, each axis's option and values, in the file's order; empty otherwise
 */
public record Scenario(String name, String command, List<String> args, Map<String, List<String>> axes) {
    public static final Set<String> COMMANDS = Set.of("bench", "decode", "compare", "explain", "sweep");
    private static final Set<String> TOP = Set.of("version", "name", "command", "options", "sweep");
    private static final Set<String> SWEEP = Set.of("command", "axes");
    /** Options whose value is the command's positional operation rather than a flag. */
    private static final String OP = "op";

    public boolean isSweep() {
        return !axes.isEmpty();
    }

    /**
     * @param knows whether a command has an option of that long name (without dashes), so that an
     *              unknown one is an error with its line rather than the command's later complaint
     */
    public static Scenario load(Path path, BiPredicate<String, String> knows) {
        return read(new java.io.StringReader(TextFile.read(path)), path.toString(), knows);
    }

    public static Scenario read(Reader reader, String file, BiPredicate<String, String> knows) {
        Doc top = Doc.parse(reader, file, "a scenario with version, command and options");
        Map<String, Doc> f = top.fields(TOP);
        Doc version = Doc.required(f, "version", top);
        if (version.integer() != 1) {
            throw version.error("version " + version.text() + " is not supported; expected 1");
        }
        Doc commandDoc = Doc.required(f, "command", top);
        String command = commandDoc.text();
        if (!COMMANDS.contains(command)) {
            throw commandDoc.error("unknown command '" + command + "'; expected bench, decode, compare, explain or sweep");
        }
        String name = f.containsKey("name") ? f.get("name").text() : Path.of(file).getFileName().toString().replaceFirst("\\.ya?ml$", "");
        Map<String, List<String>> axes = new LinkedHashMap<>();
        String runs = command;
        if (command.equals("sweep")) {
            Map<String, Doc> s = Doc.required(f, "sweep", top).fields(SWEEP);
            Doc pointCommand = Doc.required(s, "command", f.get("sweep"));
            runs = pointCommand.text();
            if (!runs.equals("bench") && !runs.equals("decode")) {
                throw pointCommand.error("a sweep's points run bench or decode, not '" + runs + "'");
            }
            Doc axesDoc = Doc.required(s, "axes", f.get("sweep"));
            for (Map.Entry<String, Doc> axis : axesDoc.fields(null).entrySet()) {
                checkOption(axis.getValue(), runs, axis.getKey(), knows);
                List<String> values = new ArrayList<>();
                for (Doc v : axis.getValue().list()) {
                    values.add(v.text());
                }
                if (values.isEmpty()) {
                    throw axis.getValue().error("an axis needs at least one value");
                }
                axes.put(axis.getKey(), List.copyOf(values));
            }
            if (axes.isEmpty()) {
                throw axesDoc.error("a sweep needs at least one axis");
            }
        } else if (f.containsKey("sweep")) {
            throw f.get("sweep").error("only a sweep has axes; this scenario's command is " + command);
        }
        List<String> args = new ArrayList<>();
        if (f.containsKey("options")) {
            for (Map.Entry<String, Doc> o : f.get("options").fields(null).entrySet()) {
                if (axes.containsKey(o.getKey())) {
                    throw o.getValue().error("also an axis of the sweep; give it in one place");
                }
                checkOption(o.getValue(), runs, o.getKey(), knows);
                // A list repeats the option (compare's --system A --system B).
                for (Doc v : o.getValue().isList() ? o.getValue().list() : List.of(o.getValue())) {
                    args.addAll(arg(runs, o.getKey(), v.text()));
                }
            }
        }
        return new Scenario(name, runs, List.copyOf(args), axes);
    }

    /** The command line of one option: {@code --name value}, or the operation in front for bench and explain. */
    public static List<String> arg(String command, String option, String value) {
        if (option.equals(OP)) {
            return List.of(value);
        }
        if (command.equals("bench") && option.equals("size")) {
            return List.of("-b", value, "-e", value);
        }
        // A switch (force: true): present or absent, as on the command line.
        if (value.equals("true")) {
            return List.of("--" + option);
        }
        if (value.equals("false")) {
            return List.of();
        }
        return List.of("--" + option, value);
    }

    private static void checkOption(Doc where, String command, String option, BiPredicate<String, String> knows) {
        boolean positional = option.equals(OP) && (command.equals("bench") || command.equals("explain"));
        boolean size = option.equals("size") && command.equals("bench");
        if (!positional && !size && !knows.test(command, option)) {
            throw where.error("unknown option for " + command + " (see 'collsim " + command + " --help')");
        }
    }
}
