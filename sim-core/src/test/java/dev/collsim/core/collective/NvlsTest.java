package dev.collsim.core.collective;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.core.fabric.Fabric;
import dev.collsim.core.fabric.Link;
import dev.collsim.core.flow.FlowNetwork;
import dev.collsim.core.units.Rate;
import dev.collsim.core.units.TimeSpan;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** NVLS all_reduce: correct contributions, and the (1 + 1/n) traffic per link and direction. */
class NvlsTest {
    private static final NvlsCosts COSTS = new NvlsCosts(0.85, Rate.gigabytesPerSecond(30), TimeSpan.ofNanos(500),
            TimeSpan.ofMicros(1), TimeSpan.ofMicros(2), Rate.gigabytesPerSecond(25));

    @ParameterizedTest(name = "n={0} {1}B ch={2}")
    @CsvSource({"2, 1000, 1", "4, 3000000, 3", "8, 16777216, 16", "8, 200000000, 16", "5, 777777, 4"})
    void nvlsIsCorrectAndMovesOnePlusOneOverNPerDirection(int n, long bytes, int channels) {
        TestFabrics f = TestFabrics.nvlsStar(n);
        Fabric fabric = f.fabric;
        CollectiveRequest req = new CollectiveRequest(CollectiveOp.ALL_REDUCE, n, bytes, 0, Protocol.SIMPLE, channels);
        Schedule s = new NvlsAlgorithm().schedule(req);
        ProtocolCosts unused = new ProtocolCosts(Rate.gigabytesPerSecond(1), TimeSpan.ZERO, TimeSpan.ZERO);
        TestFabrics.Tracked run = f.run(s, unused, COSTS, COSTS.launchLatency());
        RunResult r = run.result();
        FlowNetwork net = run.network();

        assertEquals(List.of(), run.tracker().verify());
        assertTrue(r.durationPicos() > COSTS.launchLatency().picos());
        double expected = bytes * (1 + 1.0 / n) / 0.85;
        for (Link l : fabric.links()) {
            assertEquals(expected, net.bytesCarried(l.id()), 2.0 * s.transferCount(), "bytes on " + l);
        }
    }
}
