package dev.collsim.core.flow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.core.engine.Engine;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Max-min shares worked out by hand. Capacities in GB/s, so 1 byte takes 1e3/rate ps. */
class FlowNetworkTest {
    private static final double GB = 1e9;

    private final Engine engine = new Engine();
    private final Map<Integer, Long> finishedAt = new HashMap<>();
    private final FlowListener record = tag -> finishedAt.put(tag, engine.now());

    @Test
    void oneFlowTakesBytesOverRate() {
        FlowNetwork net = new FlowNetwork(engine, new double[] {100 * GB});
        net.start(new int[] {0}, 1 << 20, Double.MAX_VALUE, record, 1);
        engine.run();
        assertEquals(10_485_760L, finishedAt.get(1)); // 1 MiB at 100 GB/s = 10.48576 us
        assertEquals(1 << 20, net.bytesCarried(0));
    }

    /** Link of 30: flow A capped at 5 gets 5; B and C share the other 25: 12.5 each. */
    @Test
    void threeFlowsOnOneLinkOneCapped() {
        FlowNetwork net = new FlowNetwork(engine, new double[] {30 * GB});
        int a = net.start(new int[] {0}, 1e6, 5 * GB, record, 0);
        int b = net.start(new int[] {0}, 1e6, Double.MAX_VALUE, record, 1);
        int c = net.start(new int[] {0}, 1e6, Double.MAX_VALUE, record, 2);
        engine.runUntil(0);
        assertEquals(5 * GB, net.rate(a), 1);
        assertEquals(12.5 * GB, net.rate(b), 1);
        assertEquals(12.5 * GB, net.rate(c), 1);
        engine.run();
        // B and C finish 1e6 B at 12.5 GB/s = 80 us; then A alone still capped at 5 GB/s: 200 us in all.
        assertEquals(80_000_000L, finishedAt.get(1));
        assertEquals(80_000_000L, finishedAt.get(2));
        assertEquals(200_000_000L, finishedAt.get(0));
    }

    /**
     * Link 0 (10 GB/s) then link 1 (20 GB/s) in series. F1 crosses both, F2 only link 1, F3 only
     * link 0. Link 0 is the bottleneck of F1 and F3: 5 each. F2 takes what is left of link 1: 15.
     */
    @Test
    void twoLinksInSeriesWithCrossTraffic() {
        FlowNetwork net = new FlowNetwork(engine, new double[] {10 * GB, 20 * GB});
        int f1 = net.start(new int[] {0, 1}, 1e6, Double.MAX_VALUE, record, 1);
        int f2 = net.start(new int[] {1}, 3e6, Double.MAX_VALUE, record, 2);
        int f3 = net.start(new int[] {0}, 2e6, Double.MAX_VALUE, record, 3);
        engine.runUntil(0);
        assertEquals(5 * GB, net.rate(f1), 1);
        assertEquals(15 * GB, net.rate(f2), 1);
        assertEquals(5 * GB, net.rate(f3), 1);
        engine.run();
        // t=200us: F1 done (1e6 at 5). F2 has sent 3e6 at 15: done at 200us too. F3 has 1e6 left,
        // alone on link 0 at 10 GB/s: 100 us more.
        assertEquals(200_000_000L, finishedAt.get(1));
        assertEquals(200_000_000L, finishedAt.get(2));
        assertEquals(300_000_000L, finishedAt.get(3));
    }

    @Test
    void aLateFlowSlowsAnEarlyOne() {
        FlowNetwork net = new FlowNetwork(engine, new double[] {10 * GB});
        net.start(new int[] {0}, 2e6, Double.MAX_VALUE, record, 1);
        engine.schedule(100_000_000L, () -> net.start(new int[] {0}, 1e6, Double.MAX_VALUE, record, 2));
        engine.run();
        // F1 sends 1e6 alone in 100 us; then both at 5: F2's 1e6 and F1's last 1e6 end at 300 us.
        assertEquals(300_000_000L, finishedAt.get(1));
        assertEquals(300_000_000L, finishedAt.get(2));
    }

    /** Random flows on random routes: no link is ever above its capacity, and every flow ends. */
    @Test
    void randomLoadNeverExceedsCapacity() {
        Random rnd = new Random(7);
        int links = 12;
        double[] cap = new double[links];
        for (int l = 0; l < links; l++) {
            cap[l] = (1 + rnd.nextInt(50)) * GB;
        }
        FlowNetwork net = new FlowNetwork(engine, cap);
        net.setCheckCapacity(true);
        int flows = 500;
        for (int i = 0; i < flows; i++) {
            int id = i;
            int len = 1 + rnd.nextInt(3);
            int[] route = rnd.ints(0, links).distinct().limit(len).toArray();
            double bytes = 1 + rnd.nextInt(1_000_000);
            double rateCap = rnd.nextBoolean() ? Double.MAX_VALUE : (1 + rnd.nextInt(20)) * GB;
            engine.schedule(rnd.nextInt(1_000_000), () -> net.start(route, bytes, rateCap, record, id));
        }
        engine.run();
        assertEquals(flows, finishedAt.size());
        assertEquals(0, net.activeFlows());
        assertTrue(net.maxUtilisation() <= 1 + 1e-9);
        assertTrue(net.maxUtilisation() > 0.99, "some link should have been saturated");
    }
}
