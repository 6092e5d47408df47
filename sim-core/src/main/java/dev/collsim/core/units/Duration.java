package dev.collsim.core.units;

import java.util.Locale;

/**
 * A length of time that a model estimates rather than an engine schedules: a decode step's inter-token
 * latency, a prefill's time to first token, a queue's mean wait. Held in milliseconds as a double,
 * the unit the step and serving models compute in, so that turning their numbers into durations and
 * back moves no digit. Instants on the engine are {@link TimeSpan}s (integer picoseconds); a span
 * converts to a duration exactly enough for any report ({@link #of(TimeSpan)}).
 */
public record Duration(double ms) implements Comparable<Duration> {
    public static final Duration ZERO = new Duration(0);

    public Duration {
        if (Double.isNaN(ms)) {
            throw new IllegalArgumentException("a duration is not a number");
        }
    }

    public static Duration ofMillis(double ms) {
        return new Duration(ms);
    }

    /** {@code micros / 1000}: the same division the models did before durations were typed. */
    public static Duration ofMicros(double micros) {
        return new Duration(micros / 1000);
    }

    public static Duration ofSeconds(double seconds) {
        return new Duration(seconds * 1000);
    }

    public static Duration of(TimeSpan span) {
        return new Duration(span.picos() / (double) TimeSpan.PICOS_PER_MILLI);
    }

    public double micros() {
        return ms * 1000;
    }

    public double seconds() {
        return ms / 1000;
    }

    public Duration plus(Duration other) {
        return new Duration(ms + other.ms);
    }

    public Duration minus(Duration other) {
        return new Duration(ms - other.ms);
    }

    public Duration times(double factor) {
        return new Duration(ms * factor);
    }

    /** How many of {@code other} fit in this (a ratio, for shares and speed-ups). */
    public double over(Duration other) {
        return ms / other.ms;
    }

    public boolean isLongerThan(Duration other) {
        return ms > other.ms;
    }

    @Override
    public int compareTo(Duration o) {
        return Double.compare(ms, o.ms);
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "%.3f ms", ms);
    }
}
