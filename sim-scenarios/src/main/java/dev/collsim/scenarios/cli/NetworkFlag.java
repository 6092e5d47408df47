package dev.collsim.scenarios.cli;

import dev.collsim.topologies.catalog.NetworkPreset;
import picocli.CommandLine.Option;

/** {@code --network}, declared once for every command: the network between nodes, the system's own unless given. */
final class NetworkFlag {
    /** Null when not given: the system's own network then, and beside a topology file of one node it is an error. */
    @Option(names = "--network", paramLabel = "NAME", completionCandidates = Catalogue.Networks.class,
            description = "between nodes: ${COMPLETION-CANDIDATES} (default: the system's own)")
    String name;

    boolean given() {
        return name != null;
    }

    /** The network named, or null for the system's own; looked up when asked, so an unknown name is refused where it was. */
    NetworkPreset preset() {
        return name == null ? null : NetworkPreset.byName(name);
    }
}
