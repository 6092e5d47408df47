package dev.collsim.core.collective;

/**
 * What a schedule run produced. Times are picoseconds from the collective's start; a
 * {@link TransferTimes} observer records each transfer's.
 *
 * @param schedule      the schedule run: for a folded run, one orbit's ({@link FoldedSchedule})
 * @param durationPicos until the last transfer's data was visible at its receiver
 * @param linkBytes     per fabric link id, the wire bytes it carried
 */
public record RunResult(Schedule schedule, long durationPicos, long[] linkBytes) {

    public double durationMicros() {
        return durationPicos / 1e6;
    }
}
