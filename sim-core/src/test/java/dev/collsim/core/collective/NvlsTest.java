package dev.collsim.core.collective;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.core.engine.Engine;
import dev.collsim.core.fabric.Capability;
import dev.collsim.core.fabric.DeviceKind;
import dev.collsim.core.fabric.Fabric;
import dev.collsim.core.fabric.FabricBuilder;
import dev.collsim.core.fabric.Link;
import dev.collsim.core.flow.FlowNetwork;
import dev.collsim.core.units.Rate;
import dev.collsim.core.units.TimeSpan;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** NVLS all_reduce: correct contributions, and the (1 + 1/n) traffic per link and direction. */
class NvlsTest {
    private static final NvlsCosts COSTS = new NvlsCosts(0.85, Rate.gigabytesPerSecond(30), TimeSpan.ofNanos(500),
            TimeSpan.ofMicros(1), TimeSpan.ofMicros(2), Rate.gigabytesPerSecond(25));

    @ParameterizedTest(name = "n={0} {1}B ch={2}")
    @CsvSource({"2, 1000, 1", "4, 3000000, 3", "8, 16777216, 16", "8, 200000000, 16", "5, 777777, 4"})
    void nvlsIsCorrectAndMovesOnePlusOneOverNPerDirection(int n, long bytes, int channels) {
        FabricBuilder b = new FabricBuilder();
        int[] ranks = new int[n];
        for (int g = 0; g < n; g++) {
            ranks[g] = b.addDevice("gpu" + g, DeviceKind.GPU);
        }
        int sw = b.addDevice("nvs", DeviceKind.NVSWITCH, Set.of(Capability.NVLS));
        for (int g = 0; g < n; g++) {
            b.addDuplex(ranks[g], sw, Rate.gigabytesPerSecond(370.8), TimeSpan.ofNanos(250), "NVLink4 x18");
        }
        Fabric fabric = b.build();
        int[] switches = new int[n];
        java.util.Arrays.fill(switches, sw);
        CollectiveRequest req = new CollectiveRequest(CollectiveOp.ALL_REDUCE, n, bytes, 0, Protocol.SIMPLE, channels);
        Schedule s = new NvlsAlgorithm().schedule(req);
        Engine engine = new Engine();
        FlowNetwork net = new FlowNetwork(engine, fabric.links().stream().mapToDouble(l -> l.rate().bytesPerSecond()).toArray());
        net.setCheckCapacity(true);
        ScheduleRunner runner = new ScheduleRunner(engine, net, fabric, ranks, switches);
        ContributionTracker tracker = new ContributionTracker(s);
        runner.setObserver(tracker);
        ProtocolCosts unused = new ProtocolCosts(Rate.gigabytesPerSecond(1), TimeSpan.ZERO, TimeSpan.ZERO);
        RunResult r = runner.run(s, unused, COSTS, COSTS.launchLatency());

        assertEquals(List.of(), tracker.verify());
        assertTrue(r.durationPicos() > COSTS.launchLatency().picos());
        double expected = bytes * (1 + 1.0 / n) / 0.85;
        for (Link l : fabric.links()) {
            assertEquals(expected, net.bytesCarried(l.id()), 2.0 * s.transferCount(), "bytes on " + l);
        }
    }
}
