package dev.collsim.scenarios.cli;

import dev.collsim.core.nccl.Communicator;
import dev.collsim.topologies.catalog.NetworkPreset;
import dev.collsim.topologies.systems.SystemPreset;

/**
 * Where a bench run is, as its spec records it: a preset's nodes on a network, or a system given
 * whole (a topology file, the flat switch), which carries its own nodes and network.
 *
 * @param whole   the system given whole, or null for a preset
 * @param network the network's name, or null where there is none (one PCIe server, a whole system)
 */
record BenchSystem(String name, Communicator whole, int nodes, int gpusPerNode, String network) {
    /** {@code nodes} of a preset, {@code gpusPerNode} of each in use (checked already), on {@code network} or, if null, the preset's own. */
    static BenchSystem preset(SystemPreset preset, int nodes, int gpusPerNode, NetworkPreset network) {
        NetworkPreset net = network != null ? network : preset.defaultNetwork();
        return new BenchSystem(preset.id(), null, nodes, gpusPerNode, net == null ? null : net.id());
    }

    /** A system given whole, its GPUs spread evenly over its nodes. */
    static BenchSystem whole(Communicator system) {
        return new BenchSystem(system.name(), system, system.nNodes(), system.nRanks() / system.nNodes(), null);
    }
}
