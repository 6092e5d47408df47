package dev.collsim.core.flow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The solver alone: no bytes, no clock. Shares worked out by hand, then against filling from scratch. */
class MaxMinSolverTest {
    private final List<String> moves = new ArrayList<>();
    private final MaxMinSolver.RateChange record = (f, from, to) -> moves.add(f + ":" + from + "->" + to);

    /**
     * Link A (10) and link B (4). Flow 0 crosses A, flow 1 crosses A and B, flow 2 crosses B capped
     * at 1. B is the tightest: 2 each, but flow 2 stops at its cap 1, so flow 1 takes B's other 3,
     * and flow 0 what A has left, 7. Without flow 2, flow 1 takes all of B (4) and flow 0 gets 6.
     */
    @Test
    void sharesWorkedByHand() {
        MaxMinSolver s = new MaxMinSolver(new double[] {10, 4});
        s.add(0, new int[] {0}, Double.MAX_VALUE);
        s.add(1, new int[] {0, 1}, Double.MAX_VALUE);
        s.add(2, new int[] {1}, 1);
        assertTrue(s.hasChanges());
        assertEquals(0, s.rate(1), "no rate before the first solve");
        s.solve(record);
        assertFalse(s.hasChanges());
        assertEquals(7, s.rate(0), 1e-12);
        assertEquals(3, s.rate(1), 1e-12);
        assertEquals(1, s.rate(2), 1e-12);
        assertEquals(3, moves.size(), "every flow moved from 0");

        moves.clear();
        s.remove(2);
        s.solve(record);
        assertEquals(6, s.rate(0), 1e-12);
        assertEquals(4, s.rate(1), 1e-12);
        moves.sort(null);
        assertEquals(List.of("0:7.0->6.0", "1:3.0->4.0"), moves, "told of each move, old rate and new, once");
    }

    /** A flow of three members counts three times on its links: on a link of 8 beside one single flow, 2 each. */
    @Test
    void membersCountAsFlowsOfTheirOwn() {
        MaxMinSolver s = new MaxMinSolver(new double[] {8});
        s.add(0, new int[] {0}, Double.MAX_VALUE);
        s.addMember(0);
        s.addMember(0);
        s.add(1, new int[] {0}, Double.MAX_VALUE);
        s.solve(record);
        assertEquals(3, s.members(0));
        assertEquals(2, s.rate(0), 1e-12);
        assertEquals(2, s.rate(1), 1e-12);
    }

    /** A capacity change re-rates what it reaches, and a flow whose rate does not move is not reported. */
    @Test
    void aCapacityChangeMovesOnlyTheFlowsItReaches() {
        MaxMinSolver s = new MaxMinSolver(new double[] {10, 10});
        s.add(0, new int[] {0}, Double.MAX_VALUE);
        s.add(1, new int[] {1}, Double.MAX_VALUE);
        s.solve(record);
        moves.clear();
        s.setCapacity(1, 5);
        s.solve(record);
        assertEquals(List.of("1:10.0->5.0"), moves);
        assertEquals(10, s.rate(0), 1e-12);
        assertThrows(IllegalArgumentException.class, () -> s.setCapacity(0, 0));
    }

    /**
     * Random flows added and removed one at a time, each solve re-rating only what the change reaches:
     * every rate equals progressive filling over all flows from scratch.
     */
    @Test
    void incrementalRatesEqualFillingFromScratch() {
        for (long seed = 1; seed <= 50; seed++) {
            Random rnd = new Random(seed);
            int links = 2 + rnd.nextInt(10);
            double[] capacity = new double[links];
            for (int l = 0; l < links; l++) {
                capacity[l] = 1 + rnd.nextInt(50);
            }
            MaxMinSolver s = new MaxMinSolver(capacity);
            s.setCheckCapacity(true);
            List<int[]> routes = new ArrayList<>();
            List<Double> caps = new ArrayList<>();
            List<Integer> live = new ArrayList<>();
            for (int step = 0; step < 60; step++) {
                if (!live.isEmpty() && rnd.nextInt(3) == 0) {
                    int f = live.remove(rnd.nextInt(live.size()));
                    s.remove(f);
                } else {
                    int f = routes.size();
                    int[] route = rnd.ints(0, links).distinct().limit(1 + rnd.nextInt(Math.min(3, links))).toArray();
                    double cap = rnd.nextBoolean() ? Double.MAX_VALUE : 1 + rnd.nextInt(20);
                    routes.add(route);
                    caps.add(cap);
                    live.add(f);
                    s.add(f, route, cap);
                }
                s.solve(record);
                double[] expected = fromScratch(capacity, routes, caps, live);
                for (int f : live) {
                    assertEquals(expected[f], s.rate(f), 1e-7 * expected[f], "seed " + seed + " step " + step + " flow " + f);
                }
            }
            assertTrue(s.maxUtilisation() <= 1 + 1e-9);
        }
    }

    /** Progressive filling over the live flows, as FlowNetworkTest recomputes it from scratch. */
    private static double[] fromScratch(double[] capacity, List<int[]> routes, List<Double> caps, List<Integer> live) {
        List<double[]> flows = new ArrayList<>();
        boolean[] started = new boolean[routes.size()];
        double[] end = new double[routes.size()];
        for (int f = 0; f < routes.size(); f++) {
            flows.add(new double[] {0, 1, caps.get(f)});
            started[f] = live.contains(f);
            end[f] = -1;
        }
        return FlowNetworkTest.FromScratch.rates(capacity, routes, flows, started, end);
    }
}
