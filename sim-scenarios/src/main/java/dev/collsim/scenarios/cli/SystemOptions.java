package dev.collsim.scenarios.cli;

import dev.collsim.core.input.InputException;
import dev.collsim.topologies.systems.WhatIf;
import picocli.CommandLine.Option;

/** Which system a command runs on: a preset, its node count and network, or a topology file. */
final class SystemOptions {
    /** The preset when neither --system nor --topology is given. */
    static final String DEFAULT_SYSTEM = "hgx-h100";

    /** Null when not given, so that a --topology beside it is an error rather than ignored. */
    @Option(names = "--system", paramLabel = "NAME", completionCandidates = Catalogue.Systems.class,
            description = "a preset: ${COMPLETION-CANDIDATES} (default: hgx-h100)")
    String system;

    @Option(names = "--gpus-per-node", paramLabel = "G", description = "use G of the node's GPUs (default: all)")
    Integer gpusPerNode;

    @Option(names = "--topology", paramLabel = "FILE",
            description = "a topology file (docs/topology-format.md) instead of --system, --nodes and --network")
    String topology;

    @Option(names = "--nodes", paramLabel = "N", defaultValue = "1", description = "nodes joined by the network (default: ${DEFAULT-VALUE})")
    int nodes;

    @Option(names = "--network", paramLabel = "NAME", completionCandidates = Catalogue.Networks.class,
            description = "between nodes: ${COMPLETION-CANDIDATES} (default: the system's, ib-ndr on HGX H100)")
    String network;

    /** A topology file describes the whole system: the flags that shape a preset would be ignored, so they are errors. */
    static void requireTopologyAlone(String topology, String system, int nodes, Integer gpusPerNode, String network, WhatIf whatIf) {
        if (topology != null && (whatIf.changesPreset() || system != null || nodes != 1 || gpusPerNode != null || network != null)) {
            throw new InputException("--topology describes the whole system; leave out --system, --nodes, --gpus-per-node, "
                    + "--network and the what-if knobs but --degrade and --link-down (edit the file instead)");
        }
    }

    /** The preset given, or the default. */
    static String preset(String system) {
        return system == null ? DEFAULT_SYSTEM : system;
    }
}
