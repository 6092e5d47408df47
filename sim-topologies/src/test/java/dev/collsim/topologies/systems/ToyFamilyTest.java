package dev.collsim.topologies.systems;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.core.fabric.DeviceKind;
import dev.collsim.core.fabric.FabricBuilder;
import dev.collsim.core.fabric.LinkTechnology;
import dev.collsim.core.nccl.Communicator;
import dev.collsim.core.units.Rate;
import dev.collsim.core.units.TimeSpan;
import dev.collsim.topologies.catalog.GpuModel;
import org.junit.jupiter.api.Test;

/**
 * The recipe of docs/architecture.md for a fabric family, done once in test code: a new kind of
 * system is a builder of its fabric, and {@link FabricCommunicator} derives what NCCL makes of it
 * from the links, so every collective runs on it as on a preset. (Naming it for {@code --system} is a
 * record in {@code SystemFamily}'s permits list and its entries in {@code SystemPreset}: at most
 * three main files.)
 */
class ToyFamilyTest {
    /** A toy pod: nodes of four GPUs on one NVSwitch, each GPU with its own NIC on one network switch. */
    private static Communicator pod(int nodes, Rate nic) {
        FabricBuilder b = new FabricBuilder();
        int network = b.addDevice("net", DeviceKind.NETWORK_SWITCH);
        int[] ranks = new int[4 * nodes];
        int[] rankNodes = new int[4 * nodes];
        for (int n = 0; n < nodes; n++) {
            int nvswitch = b.addDevice("n" + n + ".nvswitch", DeviceKind.NVSWITCH);
            for (int g = 0; g < 4; g++) {
                int r = 4 * n + g;
                ranks[r] = b.addDevice("n" + n + ".gpu" + g, DeviceKind.GPU);
                rankNodes[r] = n;
                int nicDevice = b.addDevice("n" + n + ".nic" + g, DeviceKind.NIC);
                b.addDuplex(ranks[r], nvswitch, Rate.gigabytesPerSecond(450), TimeSpan.ofNanos(250), "NVLink4 x18",
                        LinkTechnology.NVLINK, 18);
                b.addDuplex(ranks[r], nicDevice, Rate.gigabytesPerSecond(50), TimeSpan.ofNanos(250), "PCIe5 x16",
                        LinkTechnology.PCIE, 16);
                b.addDuplex(nicDevice, network, nic, TimeSpan.ofNanos(500), "IB NDR", LinkTechnology.NETWORK, 1);
            }
        }
        return FabricCommunicator.build("toy-pod", GpuModel.H100_SXM, b.build(), ranks, rankNodes, true);
    }

    /** An all_reduce of 64 MiB across two nodes by NCCL's ring: every rank ends with the sum, and a faster NIC makes it faster. */
    @Test
    void aToyFamilyRunsEveryCollectiveAsNcclWouldSeeIt() {
        Communicator slow = pod(2, Rate.gigabitsPerSecond(200));
        Communicator fast = pod(2, Rate.gigabitsPerSecond(400));
        assertEquals(2, slow.nNodes());
        double slowMicros = CheckedRuns.ringAllReduceMicros(slow, 64L << 20);
        double fastMicros = CheckedRuns.ringAllReduceMicros(fast, 64L << 20);
        assertTrue(fastMicros < 0.75 * slowMicros, "400 Gb/s NICs against 200: " + fastMicros + " us against " + slowMicros + " us");
    }
}
