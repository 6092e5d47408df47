package dev.collsim.topologies.systems;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A name {@code --system} takes: a preset, or a family whose size the caller gives (the flat switch).
 * Every name is registered here, so a caller dispatches on what it finds rather than matching names.
 */
public sealed interface NamedSystem permits SystemPreset, FlatSwitch.Family {
    /** What {@code --system} calls it. */
    String id();

    /** Every name, the presets first. */
    static List<NamedSystem> all() {
        List<NamedSystem> all = new ArrayList<>(List.of(SystemPreset.values()));
        all.addAll(List.of(FlatSwitch.Family.values()));
        return List.copyOf(all);
    }

    /** The entry of that name, ignoring case; empty if none has it. */
    static Optional<NamedSystem> find(String name) {
        return all().stream().filter(s -> s.id().equalsIgnoreCase(name)).findFirst();
    }

    /**
     * The entry of that name. An unknown name gets the presets' one-line error, which lists the
     * presets alone: the flat switch is no choice without the size that goes with it.
     */
    static NamedSystem byName(String name) {
        return find(name).orElseGet(() -> SystemPreset.byName(name));
    }
}
