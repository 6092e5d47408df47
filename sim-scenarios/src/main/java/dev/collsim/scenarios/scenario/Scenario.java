package dev.collsim.scenarios.scenario;

import dev.collsim.core.input.TextFile;
import dev.collsim.topologies.file.Doc;
import java.io.Reader;
import java.io.StringReader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;

/**
 * A run captured in a file so it can be reproduced from it (docs/scenario-format.md): the command
 * (bench, decode, compare, explain or sweep), its options by their command-line names, and for a
 * sweep the axes whose product are its points. Strict: unknown fields and options, values given
 * twice and wrong shapes are errors that name the file and the line.
 *
 * @param command  the command a point runs (for a sweep, {@code sweep.command})
 * @param args     the command line of the run (for a sweep, of every point before its axes)
 * @param axes     for a sweep, each axis's option and values, in the file's order; empty otherwise
 * @param switches the axes that are switches ({@code force: true}), present or absent on a point's command line
 */
public record Scenario(String name, String command, List<String> args, Map<String, List<String>> axes, Set<String> switches) {
    public static final Set<String> COMMANDS = Set.of("bench", "decode", "compare", "explain", "sweep");
    private static final Set<String> TOP = Set.of("version", "name", "command", "options", "sweep");
    private static final Set<String> SWEEP = Set.of("command", "axes");
    /** Options whose value is the command's positional operation rather than a flag. */
    private static final String OP = "op";

    /** What a command's option is, as its command line defines it. */
    public enum OptionKind {
        /** The command has no such option. */
        UNKNOWN,
        /** Present or absent, no value: true or false in a file. */
        SWITCH,
        /** One value. */
        SINGLE,
        /** Given once per value (compare's --system A --system B): a list in a file. */
        REPEATABLE
    }

    public boolean isSweep() {
        return !axes.isEmpty();
    }

    /**
     * @param options what a command's option of that long name (without dashes) is, so that an
     *                unknown one, or a value of the wrong shape, is an error with its line rather
     *                than the command's later complaint
     */
    public static Scenario load(Path path, BiFunction<String, String, OptionKind> options) {
        return read(new StringReader(TextFile.read(path)), path.toString(), options);
    }

    public static Scenario read(Reader reader, String file, BiFunction<String, String, OptionKind> options) {
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
        String name = f.containsKey("name") ? plainName(f.get("name")) : Path.of(file).getFileName().toString().replaceFirst("\\.ya?ml$", "");
        Map<String, List<String>> axes = new LinkedHashMap<>();
        Set<String> switches = new HashSet<>();
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
                OptionKind kind = kind(axis.getValue(), runs, axis.getKey(), options);
                if (kind == OptionKind.SWITCH) {
                    switches.add(axis.getKey());
                }
                List<String> values = new ArrayList<>();
                for (Doc v : axis.getValue().list()) {
                    values.add(value(v, kind));
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
                Doc given = o.getValue();
                OptionKind kind = kind(given, runs, o.getKey(), options);
                if (given.isList() && kind != OptionKind.REPEATABLE) {
                    throw given.error("takes one value; to run each of a list, make it an axis of a sweep");
                }
                for (Doc v : given.isList() ? given.list() : List.of(given)) {
                    args.addAll(arg(runs, o.getKey(), value(v, kind), kind == OptionKind.SWITCH));
                }
            }
        }
        return new Scenario(name, runs, List.copyOf(args), axes, Set.copyOf(switches));
    }

    /** A sweep's results are named after the scenario, in the working directory: no folders in the name. */
    private static String plainName(Doc name) {
        String text = name.text();
        if (!text.matches("[A-Za-z0-9][A-Za-z0-9._-]{0,99}")) {
            throw name.error("'" + text + "': expected a plain name (letters, digits, '.', '_', '-'; results are named after it)");
        }
        return text;
    }

    /** The command line of an axis at one of its values. */
    public List<String> axisArg(String axis, String value) {
        return arg(command, axis, value, switches.contains(axis));
    }

    /** The command line of one option: {@code --name value}, a switch or nothing, or the operation in front for bench and explain. */
    private static List<String> arg(String command, String option, String value, boolean isSwitch) {
        if (option.equals(OP)) {
            return List.of(value);
        }
        if (command.equals("bench") && option.equals("size")) {
            return List.of("-b", value, "-e", value);
        }
        if (isSwitch) {
            return value.equals("true") ? List.of("--" + option) : List.of();
        }
        return List.of("--" + option, value);
    }

    private static String value(Doc v, OptionKind kind) {
        String text = v.text();
        if (kind == OptionKind.SWITCH && !text.equals("true") && !text.equals("false")) {
            throw v.error("'" + text + "': a switch, expected true or false");
        }
        return text;
    }

    private static OptionKind kind(Doc where, String command, String option, BiFunction<String, String, OptionKind> options) {
        boolean positional = option.equals(OP) && (command.equals("bench") || command.equals("explain"));
        boolean size = option.equals("size") && command.equals("bench");
        if (positional || size) {
            return OptionKind.SINGLE;
        }
        OptionKind kind = options.apply(command, option);
        if (kind == OptionKind.UNKNOWN) {
            throw where.error("unknown option for " + command + " (see 'collsim " + command + " --help')");
        }
        return kind;
    }
}
