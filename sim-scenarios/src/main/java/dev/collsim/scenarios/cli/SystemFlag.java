package dev.collsim.scenarios.cli;

import dev.collsim.core.input.InputException;
import dev.collsim.topologies.systems.SystemPreset;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code --system}, declared once for every command. It holds a list because compare and serve take
 * several systems; a command that runs on one takes that one, or the default, and refuses a second.
 * What it means in each command is in {@link FlagHelp}.
 */
final class SystemFlag {
    /** The preset a command that runs on one system uses when none is given. */
    static final String DEFAULT = "hgx-h100";

    @Option(names = "--system", paramLabel = "NAME", completionCandidates = Catalogue.Systems.class,
            description = "a preset: ${COMPLETION-CANDIDATES} (default: " + DEFAULT + ")")
    List<String> names = List.of();

    /** Whether the command takes several systems (compare, serve); picocli makes the others' with the plain constructor. */
    private final boolean several;

    /** This mixin's own spec, to find the command its flag ended up in (bench's is inside SystemOptions). */
    @Spec
    CommandSpec self;

    SystemFlag() {
        this(false);
    }

    private SystemFlag(boolean several) {
        this.several = several;
    }

    /** The flag of a command that takes several systems. */
    static SystemFlag several() {
        return new SystemFlag(true);
    }

    /** Whether the flag was given: beside a topology file it is an error rather than ignored. */
    boolean given() {
        return !names.isEmpty();
    }

    /**
     * The one system named, or the default. A second is refused: single-system commands call this
     * first, where picocli refused a repeated flag before.
     */
    String name() {
        requireOne();
        return names.isEmpty() ? DEFAULT : names.get(0);
    }

    /** Refuses a second system, for a command that asks for its one later but must refuse first. */
    void requireOne() {
        if (several) {
            throw new IllegalStateException("this command takes several systems");
        }
        if (names.size() > 1) {
            throw new InputException("--system given twice: " + commandName() + " runs on one system; compare and serve take several");
        }
    }

    /** The one preset named, or the default. */
    SystemPreset preset() {
        return SystemPreset.byName(name());
    }

    /** Every preset named, in order, for the commands that take several. */
    List<SystemPreset> presets() {
        if (!several) {
            throw new IllegalStateException("this command takes one system");
        }
        for (int i = 0; i < names.size(); i++) {
            if (names.subList(0, i).contains(names.get(i))) {
                throw new InputException("--system " + names.get(i) + " given twice; name each system once");
            }
        }
        return names.stream().map(SystemPreset::byName).toList();
    }

    /**
     * Refuses a command that needs a system (serve) without one, in the words picocli has for a
     * required flag left out: the flag is optional elsewhere, so picocli cannot.
     */
    void requireGiven() {
        if (names.isEmpty()) {
            throw new InputException("Missing required option: '--system=NAME' (see '" + command().qualifiedName() + " --help')");
        }
    }

    /**
     * Whether {@code option} is the --system of a command that takes one system: a scenario file
     * gives it one value then, though the flag holds a list.
     */
    static boolean takesOne(OptionSpec option) {
        try {
            return option.scope() != null && option.scope().<Object>get() instanceof SystemFlag flag && !flag.several;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** The command as the user typed it, e.g. {@code topo show}. */
    private String commandName() {
        return command().qualifiedName().substring(command().root().name().length() + 1);
    }

    /** The command the flag ended up in: bench's, though it sits in SystemOptions there. */
    private CommandSpec command() {
        return self.findOption("--system").command();
    }
}
