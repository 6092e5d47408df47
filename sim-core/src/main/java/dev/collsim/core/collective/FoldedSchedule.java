package dev.collsim.core.collective;

import java.util.Arrays;

/**
 * One orbit of a schedule that a turn of its ranks maps onto itself: where rank {@code r} does
 * what rank {@code turn[r]} does, at the same times, moved by the turn. Every transfer of the whole
 * schedule is one of {@code orbit}'s turned {@code 0..order-1} times, and each waits on the turned
 * transfers its own waits on; so, where the fabric is the same under the turn too ({@link
 * LinkOrbits}), simulating the orbit gives the whole schedule's times.
 *
 * @param orbit the transfers simulated, each waiting on transfers of the orbit
 * @param turn  per rank, the rank it is moved to
 * @param order how many turns bring every rank back, and how many transfers each orbit has
 */
public record FoldedSchedule(Schedule orbit, int[] turn, int order) {
    public FoldedSchedule {
        turn = turn.clone();
        if (order < 2 || turn.length != orbit.request().nRanks()) {
            throw new IllegalArgumentException("a fold of order " + order + " with a turn of " + turn.length + " ranks");
        }
    }

    /**
     * For a map whose defined entries ({@code >= 0}) are one to one and come back to where they
     * started after exactly {@code order} steps and not before, the smallest entry of each cycle, by
     * entry (-1 where undefined); null for any other map.
     */
    static int[] firstOfCycles(int[] map, int order) {
        int[] first = new int[map.length];
        Arrays.fill(first, -1);
        for (int start = 0; start < map.length; start++) {
            if (map[start] < 0 || first[start] >= 0) {
                continue;
            }
            int x = start;
            for (int j = 0; j < order; j++) {
                if (x < 0 || first[x] >= 0) {
                    return null;
                }
                first[x] = start;
                x = map[x];
            }
            if (x != start) {
                return null;
            }
        }
        return first;
    }
}
