package dev.collsim.core.collective;

import dev.collsim.core.fabric.DeviceKind;
import dev.collsim.core.fabric.Fabric;
import dev.collsim.core.fabric.FabricBuilder;
import dev.collsim.core.units.Rate;
import dev.collsim.core.units.TimeSpan;

/** Small fabrics for tests: n GPUs on one switch, each with a duplex link of the given rate. */
final class TestFabrics {
    final Fabric fabric;
    final int[] ranks;

    private TestFabrics(Fabric fabric, int[] ranks) {
        this.fabric = fabric;
        this.ranks = ranks;
    }

    static TestFabrics star(int gpus, double gbps, double latencyMicros) {
        FabricBuilder b = new FabricBuilder();
        int[] ranks = new int[gpus];
        for (int g = 0; g < gpus; g++) {
            ranks[g] = b.addDevice("gpu" + g, DeviceKind.GPU);
        }
        int sw = b.addDevice("switch", DeviceKind.NVSWITCH);
        for (int g = 0; g < gpus; g++) {
            b.addDuplex(ranks[g], sw, Rate.gigabytesPerSecond(gbps), TimeSpan.ofMicros(latencyMicros), "test");
        }
        return new TestFabrics(b.build(), ranks);
    }
}
