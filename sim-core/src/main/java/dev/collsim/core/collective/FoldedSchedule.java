package dev.collsim.core.collective;

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
}
