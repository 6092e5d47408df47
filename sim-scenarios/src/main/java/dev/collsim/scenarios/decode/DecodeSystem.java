package dev.collsim.scenarios.decode;

import dev.collsim.core.fabric.LinkEdit;
import dev.collsim.core.input.InputException;
import dev.collsim.core.input.Require;
import dev.collsim.topologies.catalog.GpuModel;
import dev.collsim.topologies.catalog.NetworkPreset;
import dev.collsim.topologies.systems.FabricSystem;
import dev.collsim.topologies.systems.SystemPreset;
import dev.collsim.topologies.systems.WhatIf;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

/** Where a decode step is asked to run: a preset, as many of its nodes as the layout needs, or a topology file's system. */
public sealed interface DecodeSystem {
    /** The name results report. */
    String name();

    /** The what-if knobs in force: any for a preset, the link edits alone for a topology file. */
    WhatIf whatIf();

    /** The system's GPU. */
    GpuModel gpu();

    /**
     * The GPUs of each node (NVLink domain) in use when a search places up to {@code gpus} GPUs; a
     * one-line error where the system cannot give that many.
     */
    int gpusPerNodeFor(int gpus);

    /**
     * A preset system.
     *
     * @param network     the network between its nodes, or null for the preset's own
     * @param gpusPerNode GPUs of each node in use, or empty for all, so groups can be spread over more nodes
     * @param whatIf      the what-if knobs the system is built with
     */
    record Preset(SystemPreset preset, NetworkPreset network, OptionalInt gpusPerNode, WhatIf whatIf) implements DecodeSystem {
        public Preset {
            gpusPerNode.ifPresent(g -> Require.atLeastOne("--gpus-per-node", g));
        }

        /** The preset as it is. */
        public Preset(SystemPreset preset, NetworkPreset network, OptionalInt gpusPerNode) {
            this(preset, network, gpusPerNode, WhatIf.NONE);
        }

        @Override
        public String name() {
            return preset.id();
        }

        @Override
        public GpuModel gpu() {
            return preset.gpu();
        }

        @Override
        public int gpusPerNodeFor(int gpus) {
            if (preset.family().maxNodes() == 1 && gpus > preset.gpusPerNode()) {
                throw new InputException("--gpus " + gpus + ": " + preset.id() + " is one server of " + preset.gpusPerNode() + " GPUs");
            }
            return preset.gpusPerNode(gpusPerNode.isPresent() ? gpusPerNode.getAsInt() : null);
        }
    }

    /**
     * A topology file's system, loaded once by the caller; {@code name} is what results call it (the
     * file's name); {@code linkEdits} the connections degraded or taken down.
     */
    record File(String name, FabricSystem system, List<LinkEdit> linkEdits) implements DecodeSystem {
        public File {
            linkEdits = List.copyOf(linkEdits);
        }

        /** The file's system as it is. */
        public File(String name, FabricSystem system) {
            this(name, system, List.of());
        }

        @Override
        public WhatIf whatIf() {
            return new WhatIf(null, 0, 1, 1, true, Map.of(), Map.of(), linkEdits);
        }

        @Override
        public GpuModel gpu() {
            return system.gpu();
        }

        @Override
        public int gpusPerNodeFor(int gpus) {
            if (gpus > system.ranks().length) {
                throw new InputException("--gpus " + gpus + ": " + name + " has " + system.ranks().length + " GPUs (" + system.nodes()
                        + " node(s) of " + system.gpusPerNode() + "; --nodes N joins N copies of a one-node file)");
            }
            return system.gpusPerNode();
        }
    }

    /** A preset by its name, on its own network with all its GPUs. */
    static DecodeSystem preset(String name) {
        return new Preset(SystemPreset.byName(name), null, OptionalInt.empty());
    }
}
