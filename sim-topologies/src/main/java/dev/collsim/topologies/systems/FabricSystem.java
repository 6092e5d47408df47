package dev.collsim.topologies.systems;

import dev.collsim.core.fabric.Fabric;
import dev.collsim.core.nccl.Communicator;
import dev.collsim.topologies.catalog.GpuModel;
import dev.collsim.topologies.catalog.NetworkPreset;
import java.util.Arrays;

/**
 * A system described by its fabric (a topology file's): the GPUs in rank order, node by node, and
 * whether they reach each other's memory. Groups of its first ranks make smaller communicators on
 * the same wires.
 *
 * @param ranks     fabric device of each rank's GPU, node by node
 * @param rankNodes node of each rank
 * @param network   the network preset its nodes are joined by (its step costs), or null for a fabric
 *                  whose links say all there is
 * @param gdrFlush  whether the library flushes what a NIC wrote before the GPU reads it, where the GPU needs it
 */
public record FabricSystem(String name, GpuModel gpu, Fabric fabric, int[] ranks, int[] rankNodes, boolean p2p,
                           NetworkPreset network, boolean gdrFlush) {
    public FabricSystem {
        ranks = ranks.clone();
        rankNodes = rankNodes.clone();
    }

    /** A fabric whose links say all there is. */
    public FabricSystem(String name, GpuModel gpu, Fabric fabric, int[] ranks, int[] rankNodes, boolean p2p) {
        this(name, gpu, fabric, ranks, rankNodes, p2p, null, true);
    }

    public int nodes() {
        return Arrays.stream(rankNodes).max().orElse(0) + 1;
    }

    public int gpusPerNode() {
        return ranks.length / nodes();
    }

    /** NCCL's view of all the ranks. */
    public Communicator communicator() {
        return FabricCommunicator.build(name, gpu, fabric, ranks, rankNodes, p2p, network, gdrFlush);
    }

    /** A communicator of the given ranks (by rank number), renumbered from 0 in that order. */
    public Communicator of(int... members) {
        int[] devices = new int[members.length];
        int[] nodes = new int[members.length];
        int[] renumber = new int[nodes()];
        Arrays.fill(renumber, -1);
        int next = 0;
        for (int i = 0; i < members.length; i++) {
            devices[i] = ranks[members[i]];
            int node = rankNodes[members[i]];
            if (renumber[node] < 0) {
                renumber[node] = next++;
            }
            nodes[i] = renumber[node];
        }
        return FabricCommunicator.build(name, gpu, fabric, devices, nodes, p2p, network, gdrFlush);
    }
}
