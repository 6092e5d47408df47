package dev.collsim.topologies.systems;

import dev.collsim.core.fabric.DeviceKind;
import dev.collsim.core.fabric.FabricBuilder;
import dev.collsim.core.fabric.LinkTechnology;
import dev.collsim.core.input.InputException;
import dev.collsim.core.units.Rate;
import dev.collsim.core.units.TimeSpan;
import dev.collsim.topologies.catalog.GpuModel;
import java.util.Locale;

/**
 * The flat fabric simulators are compared on: {@code gpus} GPUs, one per node, each with one link to
 * a single switch at {@code linkRate} per direction and {@code linkLatency}. A GPU reaches the switch
 * through its NIC (NCCL's network transport, as between nodes), whose link to the GPU costs nothing:
 * a transfer crosses two links of the given rate and latency, as in ASTRA-sim's analytical switch.
 * The GPUs are H100s, for NCCL's constants.
 */
public record FlatSwitch(int gpus, Rate linkRate, TimeSpan linkLatency) {
    /** What {@code --system} calls it. */
    public static final String NAME = "flat-switch";

    /** The flat switch among the names {@code --system} takes; its size and links come with the command. */
    public enum Family implements NamedSystem {
        FLAT_SWITCH;

        @Override
        public String id() {
            return NAME;
        }
    }

    public FlatSwitch {
        if (gpus < 2) {
            throw new InputException("--gpus " + gpus + ": a flat switch joins 2 GPUs or more");
        }
        HgxCluster.requireBuildable("--gpus " + gpus, gpus);
        if (!(linkRate.bytesPerSecond() > 0)) {
            throw new InputException("--link-bw " + linkRate + ": expected a positive rate");
        }
    }

    public String description() {
        return String.format(Locale.ROOT, "%d H100 GPUs, one per node, each linked to one switch at %s per direction and %s",
                gpus, linkRate, linkLatency);
    }

    /** The fabric, its GPUs in rank order, node i holding rank i. */
    public FabricSystem system() {
        FabricBuilder b = new FabricBuilder();
        int sw = b.addDevice("switch", DeviceKind.NETWORK_SWITCH);
        int[] ranks = new int[gpus];
        int[] nodes = new int[gpus];
        for (int g = 0; g < gpus; g++) {
            ranks[g] = b.addDevice("n" + g + ".gpu0", DeviceKind.GPU);
            nodes[g] = g;
            int nic = b.addDevice("n" + g + ".nic0", DeviceKind.NIC);
            // The GPU's side of its port: as fast as the link, no latency of its own.
            b.addDuplex(ranks[g], nic, linkRate, TimeSpan.ZERO, "port", LinkTechnology.OTHER, 1);
            b.addDuplex(nic, sw, linkRate, linkLatency, "link", LinkTechnology.NETWORK, 1);
        }
        return new FabricSystem(NAME, GpuModel.H100_SXM, b.build(), ranks, nodes, true);
    }
}
