package dev.collsim.core.collective;

import dev.collsim.core.engine.Engine;
import dev.collsim.core.fabric.Capability;
import dev.collsim.core.fabric.DeviceKind;
import dev.collsim.core.fabric.Fabric;
import dev.collsim.core.fabric.FabricBuilder;
import dev.collsim.core.flow.FlowNetwork;
import dev.collsim.core.units.Rate;
import dev.collsim.core.units.TimeSpan;
import java.util.Arrays;
import java.util.Set;

/** Small fabrics for tests, and a run of a schedule with every invariant checked on the way. */
final class TestFabrics {
    final Fabric fabric;
    final int[] ranks;
    final int[] switches;

    private TestFabrics(Fabric fabric, int[] ranks, int[] switches) {
        this.fabric = fabric;
        this.ranks = ranks;
        this.switches = switches;
    }

    /** n GPUs on one plain switch, each with a duplex link of the given rate. */
    static TestFabrics star(int gpus, double gbps, double latencyMicros) {
        return star(gpus, gbps, latencyMicros, false);
    }

    /** n GPUs on an NVSwitch that can reduce and multicast, 370.8 GB/s per direction each (an H100's NVLinks). */
    static TestFabrics nvlsStar(int gpus) {
        return star(gpus, 370.8, 0.25, true);
    }

    private static TestFabrics star(int gpus, double gbps, double latencyMicros, boolean nvls) {
        FabricBuilder b = new FabricBuilder();
        int[] ranks = new int[gpus];
        for (int g = 0; g < gpus; g++) {
            ranks[g] = b.addDevice("gpu" + g, DeviceKind.GPU);
        }
        int sw = b.addDevice("switch", DeviceKind.NVSWITCH, nvls ? Set.of(Capability.NVLS) : Set.of());
        for (int g = 0; g < gpus; g++) {
            b.addDuplex(ranks[g], sw, Rate.gigabytesPerSecond(gbps), TimeSpan.ofMicros(latencyMicros), "test");
        }
        int[] switches = new int[gpus];
        Arrays.fill(switches, nvls ? sw : -1);
        return new TestFabrics(b.build(), ranks, switches);
    }

    /** What a tracked run leaves: its result, the tracker's verdict and the bytes each link carried. */
    record Tracked(RunResult result, ContributionTracker tracker, FlowNetwork network) {}

    Tracked run(Schedule s, ProtocolCosts costs, NvlsCosts nvls, TimeSpan launch) {
        return run(fabric, ranks, switches, null, s, costs, nvls, null, launch);
    }

    /** Runs a schedule with link capacities checked at every rate change and contributions tracked per switch. */
    static Tracked run(Fabric fabric, int[] ranks, int[] switches, int[] sharp, Schedule s, ProtocolCosts costs,
                       NvlsCosts nvls, NvlsCosts sharpCosts, TimeSpan launch) {
        Engine engine = new Engine();
        FlowNetwork net = new FlowNetwork(engine, fabric.links().stream().mapToDouble(l -> l.rate().bytesPerSecond()).toArray());
        net.setCheckCapacity(true);
        ScheduleRunner runner = new ScheduleRunner(engine, net, new RankPlacement(fabric, ranks, switches, sharp, null));
        ContributionTracker tracker = new ContributionTracker(s, switches, sharp);
        runner.setObserver(tracker);
        RunResult result = runner.run(s, new StepCosts(costs, nvls, sharpCosts, launch));
        return new Tracked(result, tracker, net);
    }

    /**
     * Asserts that an algorithm's count of the transfers and dependencies it builds, made without
     * building them to size its builder, is what it built (a wrong count copies, or wastes, the arrays).
     */
    static void assertCounted(ScheduleSize counted, Schedule s) {
        org.junit.jupiter.api.Assertions.assertEquals(ScheduleSize.of(s), counted);
    }
}
