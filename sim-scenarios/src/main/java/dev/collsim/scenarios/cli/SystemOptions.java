package dev.collsim.scenarios.cli;

import dev.collsim.core.input.InputException;
import dev.collsim.core.nccl.Communicator;
import dev.collsim.core.units.Rate;
import dev.collsim.core.units.TimeSpan;
import dev.collsim.topologies.catalog.NetworkPreset;
import dev.collsim.topologies.file.TopologyFile;
import dev.collsim.topologies.systems.FabricSystem;
import dev.collsim.topologies.systems.FlatSwitch;
import dev.collsim.topologies.systems.NamedSystem;
import dev.collsim.topologies.systems.NodeCopies;
import dev.collsim.topologies.systems.SystemPreset;
import dev.collsim.topologies.systems.WhatIf;
import java.nio.file.Path;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** Which system a command runs on: a preset, its node count and network, a topology file, or the flat switch. */
final class SystemOptions {
    @Mixin
    SystemFlag system;

    @Option(names = "--gpus", paramLabel = "N", description = "with --system flat-switch: GPUs, one per node, on one switch")
    Integer gpus;

    @Option(names = "--link-bw", paramLabel = "RATE", description = "with --system flat-switch: each GPU's link to the switch,"
            + " per direction (default: 50GB/s)")
    String linkBw;

    @Option(names = "--link-latency", paramLabel = "TIME", description = "with --system flat-switch: each link's latency (default: 1us)")
    String linkLatency;

    @Mixin
    GpusPerNodeFlag gpusPerNode;

    @Option(names = "--topology", paramLabel = "FILE",
            description = "a topology file (docs/topology-format.md) instead of --system; with --nodes N, N copies of its node"
                    + " joined through its NICs by --network")
    String topology;

    @Option(names = "--nodes", paramLabel = "N", defaultValue = "1", description = "nodes joined by the network (default: ${DEFAULT-VALUE})")
    int nodes;

    @Mixin
    NetworkFlag network;

    /**
     * A topology file describes its nodes: the flags that shape a preset would be ignored, so they are
     * errors; but {@code --nodes N} joins N copies of a one-node file through its NICs, on {@code
     * --network} with the network's knobs.
     */
    static void requireTopologyAlone(String topology, SystemFlag system, int nodes, GpusPerNodeFlag gpusPerNode, NetworkFlag network,
                                     WhatIf whatIf) {
        boolean joined = nodes > 1;
        if (topology != null && (system.given() || gpusPerNode.count != null || whatIf.changesNode()
                || (!joined && (network.given() || whatIf.changesPreset())))) {
            throw new InputException("--topology describes the whole system; leave out --system, --gpus-per-node and the what-if"
                    + " knobs but --degrade and --link-down (edit the file instead); --nodes N joins N copies of a one-node file"
                    + " through its NICs, on --network with --nic-bw, --oversubscription, --spines and network scaling");
        }
    }

    /** A topology file's system: the file's, or with --nodes N that many copies of its node joined by --network (default ib-ndr). */
    static FabricSystem topology(String topology, int nodes, NetworkFlag network, WhatIf whatIf) {
        FabricSystem file = TopologyFile.loadSystem(Path.of(topology));
        return nodes > 1 ? NodeCopies.join(file, nodes, network.given() ? network.preset() : NetworkPreset.IB_NDR, whatIf) : file;
    }

    /**
     * The system a topology file or the flat switch describes whole, with the link edits of {@code
     * whatIf} still to apply; null for a preset. The flags that shape a preset are errors beside either.
     */
    Communicator whole(WhatIf whatIf) {
        requireTopologyAlone(topology, system, nodes, gpusPerNode, network, whatIf);
        boolean flat = flat();
        if (!flat && (gpus != null || linkBw != null || linkLatency != null)) {
            throw new InputException("--gpus, --link-bw and --link-latency shape --system flat-switch; a preset takes --nodes,"
                    + " --gpus-per-node and the what-if knobs");
        }
        if (topology != null) {
            return topology(topology, nodes, network, whatIf).communicator();
        }
        return flat ? flatSwitch(whatIf).system().communicator() : null;
    }

    /** Where a bench run is: the system given whole ({@link #whole}), or else the preset's nodes. */
    BenchSystem on(Communicator whole) {
        return whole != null ? BenchSystem.whole(whole) : onPreset();
    }

    /** The preset's nodes, --gpus-per-node checked against its node, on --network or its own. */
    BenchSystem onPreset() {
        SystemPreset preset = system.preset();
        int gpusInUse = preset.gpusPerNode(gpusPerNode.count);
        return BenchSystem.preset(preset, nodes, gpusInUse, network.preset());
    }

    /** What the system is, for a table's header: the file it came from, the flat switch's links, or the preset's board. */
    String description(WhatIf whatIf) {
        if (topology != null) {
            return "from " + topology;
        }
        return flat() ? flatSwitch(whatIf).description() : system.preset().description();
    }

    /** Whether --system names the flat switch; an unknown name is left to the preset lookup, which refuses it where it always has. */
    boolean flat() {
        return system.given() && NamedSystem.find(system.name()).orElse(null) instanceof FlatSwitch.Family;
    }

    /** The flat switch the flags describe. */
    FlatSwitch flatSwitch(WhatIf whatIf) {
        if (gpus == null) {
            throw new InputException("--system flat-switch: give its size with --gpus N");
        }
        if (whatIf.changesPreset() || nodes != 1 || gpusPerNode.count != null || network.given()) {
            throw new InputException("--system flat-switch is --gpus GPUs, one per node, on one switch; leave out --nodes,"
                    + " --gpus-per-node, --network and the what-if knobs but --degrade and --link-down");
        }
        return new FlatSwitch(gpus, linkBw == null ? Rate.gigabytesPerSecond(50) : Flags.parse("--link-bw", () -> Rate.parse(linkBw)),
                linkLatency == null ? TimeSpan.ofMicros(1) : Flags.parse("--link-latency", () -> TimeSpan.parse(linkLatency)));
    }
}
