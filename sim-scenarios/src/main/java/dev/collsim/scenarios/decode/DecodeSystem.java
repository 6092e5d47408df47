package dev.collsim.scenarios.decode;

import dev.collsim.core.input.Require;
import dev.collsim.topologies.catalog.NetworkPreset;
import dev.collsim.topologies.systems.FabricSystem;
import dev.collsim.topologies.systems.SystemPreset;
import java.util.OptionalInt;

/** Where a decode step is asked to run: a preset, as many of its nodes as the layout needs, or a topology file's system. */
public sealed interface DecodeSystem {
    /** The name results report. */
    String name();

    /**
     * A preset system.
     *
     * @param network     the network between its nodes, or null for the preset's own
     * @param gpusPerNode GPUs of each node in use, or empty for all, so groups can be spread over more nodes
     */
    record Preset(SystemPreset preset, NetworkPreset network, OptionalInt gpusPerNode) implements DecodeSystem {
        public Preset {
            gpusPerNode.ifPresent(g -> Require.atLeastOne("--gpus-per-node", g));
        }

        @Override
        public String name() {
            return preset.id();
        }
    }

    /** A topology file's system, loaded once by the caller; {@code name} is what results call it (the file's name). */
    record File(String name, FabricSystem system) implements DecodeSystem {}

    /** A preset by its name, on its own network with all its GPUs. */
    static DecodeSystem preset(String name) {
        return new Preset(SystemPreset.byName(name), null, OptionalInt.empty());
    }
}
