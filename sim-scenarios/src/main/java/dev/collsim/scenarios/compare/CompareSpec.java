package dev.collsim.scenarios.compare;

import dev.collsim.core.input.InputException;
import dev.collsim.core.input.Require;
import dev.collsim.core.units.TimeSpan;
import dev.collsim.scenarios.decode.DecodeSystem;
import dev.collsim.scenarios.decode.EngineSetup;
import dev.collsim.scenarios.decode.ModelConfig;
import dev.collsim.scenarios.decode.Precision;
import dev.collsim.topologies.catalog.NetworkPreset;
import dev.collsim.topologies.systems.HgxCluster;
import dev.collsim.topologies.systems.SystemPreset;
import dev.collsim.topologies.systems.WhatIf;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

/**
 * Systems to compare for one model: every layout of it on up to {@code gpus} GPUs of each, ranked
 * within an inter-token latency target.
 *
 * @param systems   the systems, the first the one the others are measured against
 * @param gpus      GPUs of each system
 * @param context   tokens in each sequence's KV cache
 * @param precision the weights' type
 * @param itlSlo    the inter-token latency target
 * @param engine    whose kernels and host loop the steps follow
 * @param network     the network between each system's nodes, or null for each system's own
 * @param whatIf      the what-if knobs every system is built with
 * @param gpusPerNode GPUs of each node in use, or empty for all
 * @param topologies  topology files' systems (a user's own machine, its nodes joined as asked), compared after the presets
 */
public record CompareSpec(ModelConfig model, List<SystemPreset> systems, int gpus, int context, Precision precision, TimeSpan itlSlo,
                          EngineSetup engine, NetworkPreset network, WhatIf whatIf, OptionalInt gpusPerNode,
                          List<DecodeSystem.File> topologies) {
    public CompareSpec {
        if (systems.isEmpty() && topologies.isEmpty()) {
            throw new InputException("--system: give the systems to compare (presets, or --topology FILE)");
        }
        systems = List.copyOf(systems);
        topologies = List.copyOf(topologies);
        Require.atLeastOne("--gpus", gpus);
        HgxCluster.requireBuildable("--gpus " + gpus, gpus);
        Require.atLeastOne("--context", context);
        if (itlSlo.picos() <= 0) {
            throw new InputException("--itl-slo " + itlSlo + ": expected a positive time");
        }
    }

    /** The systems as they are, each on its own network. */
    public CompareSpec(ModelConfig model, List<SystemPreset> systems, int gpus, int context, Precision precision, TimeSpan itlSlo,
                       EngineSetup engine) {
        this(model, systems, gpus, context, precision, itlSlo, engine, null, WhatIf.NONE, OptionalInt.empty(), List.of());
    }

    /** Every system to search, in order: the presets with the network, GPUs per node and what-ifs asked, then the files. */
    public List<DecodeSystem> decodeSystems() {
        List<DecodeSystem> all = new ArrayList<>();
        systems.forEach(p -> all.add(new DecodeSystem.Preset(p, network, gpusPerNode, whatIf)));
        all.addAll(topologies);
        return all;
    }

    /** The GPUs per node, network and what-ifs in force, as a result's header says them; empty for none. */
    public String changes() {
        String knobs = whatIf.describe();
        List<String> parts = new ArrayList<>();
        gpusPerNode.ifPresent(g -> parts.add("--gpus-per-node " + g));
        if (network != null) {
            parts.add("--network " + network.id());
        }
        if (!knobs.isEmpty()) {
            parts.add(knobs);
        }
        return String.join(", ", parts);
    }

    /** The target in milliseconds, as the results state it. */
    public double itlSloMs() {
        return itlSlo.picos() / 1e9;
    }
}
