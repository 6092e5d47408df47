package dev.collsim.core.flow;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.core.engine.Engine;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
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
        double[] cap = randomCapacities(rnd, links);
        FlowNetwork net = new FlowNetwork(engine, cap);
        net.setCheckCapacity(true);
        int flows = 500;
        for (int i = 0; i < flows; i++) {
            int id = i;
            int len = 1 + rnd.nextInt(3);
            int[] route = rnd.ints(0, links).distinct().limit(len).toArray();
            double bytes = 1 + rnd.nextInt(1_000_000);
            double rateCap = randomRateCap(rnd);
            engine.schedule(rnd.nextInt(1_000_000), () -> net.start(route, bytes, rateCap, record, id));
        }
        engine.run();
        assertEquals(flows, finishedAt.size());
        assertEquals(0, net.activeFlows());
        assertTrue(net.maxUtilisation() <= 1 + 1e-9);
        assertTrue(net.maxUtilisation() > 0.99, "some link should have been saturated");
    }

    /** Two flows alike in links, bytes and cap, started together: one rate, both told, both counted. */
    @Test
    void identicalFlowsStartedTogetherShareOneFlow() {
        FlowNetwork net = new FlowNetwork(engine, new double[] {30 * GB, 30 * GB});
        int a = net.start(new int[] {0, 1}, 1e6, Double.MAX_VALUE, record, 1);
        int b = net.start(new int[] {0, 1}, 1e6, Double.MAX_VALUE, record, 2);
        int c = net.start(new int[] {0}, 1e6, Double.MAX_VALUE, record, 3);
        assertEquals(a, b);
        assertEquals(3, net.activeFlows());
        engine.runUntil(0);
        assertEquals(10 * GB, net.rate(a), 1);
        assertEquals(10 * GB, net.rate(c), 1);
        engine.run();
        assertEquals(100_000_000L, finishedAt.get(1));
        assertEquals(100_000_000L, finishedAt.get(2));
        assertEquals(100_000_000L, finishedAt.get(3));
        assertEquals(3_000_000L, net.bytesCarried(0));
        assertEquals(2_000_000L, net.bytesCarried(1));
        assertEquals(0, net.activeFlows());
    }

    /** A flow alike an earlier one but started after the earlier one was rated is a flow of its own. */
    @Test
    void aFlowStartedLaterDoesNotJoin() {
        FlowNetwork net = new FlowNetwork(engine, new double[] {10 * GB});
        int first = net.start(new int[] {0}, 1e6, Double.MAX_VALUE, record, 1);
        int[] second = new int[1];
        engine.schedule(50_000_000L, () -> second[0] = net.start(new int[] {0}, 1e6, Double.MAX_VALUE, record, 2));
        engine.run();
        assertTrue(first != second[0] || finishedAt.get(1) < finishedAt.get(2));
        // The first sends 5e5 alone in 50 us, then both at 5: it ends at 150 us, the second at 200 us.
        assertEquals(150_000_000L, finishedAt.get(1));
        assertEquals(200_000_000L, finishedAt.get(2));
    }

    /**
     * Random loads with many flows started in identical groups, against max-min fairness recomputed
     * from scratch over every flow on its own after each start and end: the same end for every flow.
     */
    @Test
    void matchesFromScratchMaxMinWithIdenticalGroups() {
        for (long seed = 1; seed <= 20; seed++) {
            Random rnd = new Random(seed);
            int links = 2 + rnd.nextInt(8);
            double[] cap = randomCapacities(rnd, links);
            List<int[]> routes = new ArrayList<>();
            List<double[]> flows = new ArrayList<>(); // start ps, bytes, cap
            int groups = 5 + rnd.nextInt(40);
            for (int g = 0; g < groups; g++) {
                int[] route = rnd.ints(0, links).distinct().limit(1 + rnd.nextInt(Math.min(3, links))).toArray();
                double start = rnd.nextInt(4) * 10_000_000.0;
                double bytes = 1 + rnd.nextInt(1_000_000);
                double rateCap = randomRateCap(rnd);
                for (int copies = 1 + rnd.nextInt(4); copies > 0; copies--) {
                    routes.add(route.clone());
                    flows.add(new double[] {start, bytes, rateCap});
                }
            }
            assertEndsAsFromScratch(cap, routes, flows, "seed " + seed);
        }
    }

    /**
     * Links slowed, nearly stopped and restored while random flows run (what an outage does): the
     * flows on a changed link are re-rated with those their new rates reach, and every end is still
     * max-min fairness's, recomputed from scratch with the same capacities.
     */
    @Test
    void capacityChangesMoveEndsAsFromScratch() {
        for (long seed = 1; seed <= 20; seed++) {
            Random rnd = new Random(seed);
            int links = 3 + rnd.nextInt(8);
            double[] cap = randomCapacities(rnd, links);
            List<int[]> routes = new ArrayList<>();
            List<double[]> flows = new ArrayList<>(); // start ps, bytes, cap
            for (int f = 20 + rnd.nextInt(40); f > 0; f--) {
                routes.add(rnd.ints(0, links).distinct().limit(1 + rnd.nextInt(3)).toArray());
                double rateCap = randomRateCap(rnd);
                flows.add(new double[] {rnd.nextInt(40) * 1_000_000.0, 1e5 * (1 + rnd.nextInt(100)), rateCap});
            }
            List<double[]> changes = new ArrayList<>(); // time ps, link, capacity
            for (int c = 0; c < 3; c++) {
                int link = rnd.nextInt(links);
                double start = 5_000_000.0 + rnd.nextInt(30) * 1_000_000.0;
                changes.add(new double[] {start, link, cap[link] / (rnd.nextBoolean() ? 3 : 1000)});
                changes.add(new double[] {start + 5_000_000.0, link, cap[link]});
            }
            changes.sort(java.util.Comparator.comparingDouble(c -> c[0]));
            assertEndsAsFromScratch(cap, routes, flows, changes, "seed " + seed);
        }
    }

    /**
     * Flows each over two neighbouring links of a long chain whose links grow faster along it, so
     * pairs of neighbours share a link's rate and one flow's end moves every pair after it (the first
     * flow's end raises the second, which lowers the third, ...). The re-rating must follow the
     * ripple as far as it goes (past the rounds it grows the re-rated set, over the whole component),
     * and every end must still be max-min fairness's, recomputed from scratch.
     */
    @Test
    void aRippleDownAChainOfLinksEndsWhereMaxMinFromScratchSays() {
        for (long seed = 1; seed <= 10; seed++) {
            Random rnd = new Random(seed);
            int links = 40;
            double[] cap = new double[links];
            for (int l = 0; l < links; l++) {
                cap[l] = (l == 0 ? 1000 : l + 1) * GB;
            }
            List<int[]> routes = new ArrayList<>();
            List<double[]> flows = new ArrayList<>(); // start ps, bytes, cap
            for (int l = 0; l + 1 < links; l++) {
                routes.add(new int[] {l, l + 1});
                double bytes = l == 0 ? 1e5 : 1e6 * (1 + rnd.nextInt(100));
                flows.add(new double[] {rnd.nextInt(3) * 1_000_000.0, bytes, Double.MAX_VALUE});
            }
            assertEndsAsFromScratch(cap, routes, flows, "seed " + seed);
        }
    }

    /**
     * Runs the flows (start ps, bytes, cap) over their routes, never above a link's capacity, and
     * checks every end against max-min fairness recomputed from scratch at every start and end.
     */
    private static void assertEndsAsFromScratch(double[] cap, List<int[]> routes, List<double[]> flows, String what) {
        assertEndsAsFromScratch(cap, routes, flows, List.of(), what);
    }

    /** The same, with link capacities changed on the way: (time ps, link, capacity), in time order. */
    private static void assertEndsAsFromScratch(double[] cap, List<int[]> routes, List<double[]> flows, List<double[]> changes,
                                                String what) {
        Engine eng = new Engine();
        long[] ends = new long[flows.size()];
        FlowNetwork net = new FlowNetwork(eng, cap);
        net.setCheckCapacity(true);
        FlowListener onEnd = tag -> ends[tag] = eng.now();
        for (int i = 0; i < flows.size(); i++) {
            int id = i;
            double[] f = flows.get(i);
            eng.schedule((long) f[0], () -> net.start(routes.get(id), f[1], f[2], onEnd, id));
        }
        for (double[] c : changes) {
            eng.schedule((long) c[0], () -> net.setCapacity((int) c[1], c[2]));
        }
        eng.run();
        double[] expected = FromScratch.ends(cap, routes, flows, changes);
        for (int i = 0; i < flows.size(); i++) {
            assertEquals(expected[i], ends[i], 2 + expected[i] * 1e-9, what + ", flow " + i);
        }
    }

    /**
     * Declaring the routes lets the solver keep one link of each set of twins (links the same routes
     * cross); every end time and every link's bytes must be exactly those of the solver without it.
     * Routes are runs of fixed chains of links, so chains used only whole are twins; rates tie often,
     * flows start alike (joined) and apart, and a link of a chain is slowed and restored midway.
     */
    @Test
    void declaredRoutesChangeNoEndTimeByAPicosecond() {
        for (long seed = 1; seed <= 30; seed++) {
            Random rnd = new Random(seed);
            List<int[]> chains = new ArrayList<>();
            int links = 0;
            for (int c = 3 + rnd.nextInt(6); c > 0; c--) {
                int length = 1 + rnd.nextInt(3);
                chains.add(java.util.stream.IntStream.range(links, links + length).toArray());
                links += length;
            }
            double[] cap = new double[links];
            for (int l = 0; l < links; l++) {
                cap[l] = (10 + 10 * rnd.nextInt(3)) * GB;
            }
            List<int[]> routes = new ArrayList<>();
            for (int r = 2 + rnd.nextInt(8); r > 0; r--) {
                routes.add(rnd.ints(0, chains.size()).distinct().limit(1 + rnd.nextInt(Math.min(3, chains.size())))
                        .flatMap(c -> Arrays.stream(chains.get(c))).toArray());
            }
            List<double[]> flows = new ArrayList<>(); // start ps, route, bytes, cap
            for (int f = 10 + rnd.nextInt(60); f > 0; f--) {
                flows.add(new double[] {rnd.nextInt(5) * 5_000_000.0, rnd.nextInt(routes.size()), 1000 * (1 + rnd.nextInt(4000)),
                        rnd.nextBoolean() ? Double.MAX_VALUE : (5 + 5 * rnd.nextInt(4)) * GB});
            }
            int slowed = rnd.nextInt(links);
            long[][] plain = runFlows(cap, routes, flows, slowed, false);
            long[][] declared = runFlows(cap, routes, flows, slowed, true);
            assertArrayEquals(plain[0], declared[0], "end times, seed " + seed);
            assertArrayEquals(plain[1], declared[1], "bytes carried, seed " + seed);
        }
    }

    /** End time of every flow, and the bytes each link carried. */
    private static long[][] runFlows(double[] cap, List<int[]> routes, List<double[]> flows, int slowed, boolean declare) {
        Engine eng = new Engine();
        FlowNetwork net = new FlowNetwork(eng, cap);
        if (declare) {
            net.declareRoutes(routes);
        }
        long[] ends = new long[flows.size()];
        FlowListener onEnd = tag -> ends[tag] = eng.now();
        for (int i = 0; i < flows.size(); i++) {
            int id = i;
            double[] f = flows.get(i);
            eng.schedule((long) f[0], () -> net.start(routes.get((int) f[1]), f[2], f[3], onEnd, id));
        }
        eng.schedule(7_000_000, () -> net.setCapacity(slowed, cap[slowed] / 3));
        eng.schedule(40_000_000, () -> net.setCapacity(slowed, cap[slowed]));
        eng.run();
        long[] carried = new long[cap.length];
        Arrays.setAll(carried, net::bytesCarried);
        return new long[][] {ends, carried};
    }

    @Test
    void onceRoutesAreDeclaredOnlyThoseMayStartAndTheyAreDeclaredOnce() {
        FlowNetwork net = new FlowNetwork(engine, new double[] {10 * GB, 10 * GB});
        int[] declared = {0, 1};
        net.declareRoutes(List.of(declared));
        assertThrows(IllegalArgumentException.class, () -> net.start(new int[] {0, 1}, 100, Double.MAX_VALUE, record, 1));
        net.start(declared, 100, Double.MAX_VALUE, record, 2);
        assertThrows(IllegalStateException.class, () -> net.declareRoutes(List.of(declared)));
        engine.run();
        assertEquals(100, net.bytesCarried(0));
        assertEquals(100, net.bytesCarried(1));
    }

    /** Link rates of 1 to 50 GB/s. */
    private static double[] randomCapacities(Random rnd, int links) {
        double[] cap = new double[links];
        for (int l = 0; l < links; l++) {
            cap[l] = (1 + rnd.nextInt(50)) * GB;
        }
        return cap;
    }

    /** No cap half the time, else 1 to 20 GB/s. */
    private static double randomRateCap(Random rnd) {
        return rnd.nextBoolean() ? Double.MAX_VALUE : (1 + rnd.nextInt(20)) * GB;
    }

    /** Max-min fair shares by progressive filling over all flows, recomputed at every start and end. */
    static final class FromScratch {
        /** Each flow's end; {@code changes} are (time ps, link, capacity) in time order. */
        static double[] ends(double[] capacity, List<int[]> routes, List<double[]> flows, List<double[]> changes) {
            int n = flows.size();
            double[] cap = capacity.clone();
            double[] left = new double[n];
            double[] end = new double[n];
            boolean[] started = new boolean[n];
            Arrays.fill(end, -1);
            double now = 0;
            int changed = 0;
            while (true) {
                for (; changed < changes.size() && changes.get(changed)[0] <= now; changed++) {
                    cap[(int) changes.get(changed)[1]] = changes.get(changed)[2];
                }
                for (int i = 0; i < n; i++) {
                    if (!started[i] && flows.get(i)[0] <= now) {
                        started[i] = true;
                        left[i] = flows.get(i)[1];
                    }
                }
                double[] rate = rates(cap, routes, flows, started, end);
                double next = Double.POSITIVE_INFINITY;
                for (int i = 0; i < n; i++) {
                    if (!started[i]) {
                        next = Math.min(next, flows.get(i)[0]);
                    } else if (end[i] < 0) {
                        next = Math.min(next, now + left[i] / rate[i] * 1e12);
                    }
                }
                if (next == Double.POSITIVE_INFINITY) {
                    return end;
                }
                if (changed < changes.size()) {
                    next = Math.min(next, changes.get(changed)[0]);
                }
                for (int i = 0; i < n; i++) {
                    if (started[i] && end[i] < 0) {
                        left[i] -= rate[i] * (next - now) / 1e12;
                        if (left[i] <= flows.get(i)[1] * 1e-9) {
                            end[i] = next;
                        }
                    }
                }
                now = next;
            }
        }

        /** Each open flow's rate (started and not ended); flows are (start ps, bytes, rate cap). */
        static double[] rates(double[] cap, List<int[]> routes, List<double[]> flows, boolean[] started, double[] end) {
            int n = flows.size();
            double[] rate = new double[n];
            double[] room = cap.clone();
            boolean[] open = new boolean[n];
            int openCount = 0;
            for (int i = 0; i < n; i++) {
                open[i] = started[i] && end[i] < 0;
                openCount += open[i] ? 1 : 0;
            }
            while (openCount > 0) {
                int[] users = new int[cap.length];
                for (int i = 0; i < n; i++) {
                    for (int l : open[i] ? routes.get(i) : new int[0]) {
                        users[l]++;
                    }
                }
                double level = Double.POSITIVE_INFINITY;
                for (int l = 0; l < cap.length; l++) {
                    if (users[l] > 0) {
                        level = Math.min(level, room[l] / users[l]);
                    }
                }
                for (int i = 0; i < n; i++) {
                    if (open[i]) {
                        level = Math.min(level, flows.get(i)[2]);
                    }
                }
                boolean[] hold = new boolean[n];
                for (int i = 0; i < n; i++) {
                    if (open[i]) {
                        hold[i] = flows.get(i)[2] <= level * (1 + 1e-12);
                        for (int l : routes.get(i)) {
                            hold[i] |= room[l] / users[l] <= level * (1 + 1e-12);
                        }
                    }
                }
                for (int i = 0; i < n; i++) {
                    if (hold[i]) {
                        rate[i] = level;
                        open[i] = false;
                        openCount--;
                        for (int l : routes.get(i)) {
                            room[l] -= level;
                        }
                    }
                }
            }
            return rate;
        }
    }
}
