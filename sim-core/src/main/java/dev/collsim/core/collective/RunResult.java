package dev.collsim.core.collective;

/**
 * What a schedule run produced. Times are picoseconds from the collective's start.
 *
 * @param durationPicos  until the last transfer's data was visible at its receiver
 * @param startPicos     per transfer, when its sender started it
 * @param deliveredPicos per transfer, when its data became visible at the receiver
 * @param linkBytes      per fabric link id, the wire bytes it carried
 */
public record RunResult(Schedule schedule, long durationPicos, long[] startPicos, long[] deliveredPicos, long[] linkBytes) {

    public double durationMicros() {
        return durationPicos / 1e6;
    }
}
