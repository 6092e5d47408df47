package dev.collsim.core.units;

/**
 * A length of simulated time in integer picoseconds, so that equal times compare equal and runs
 * are reproducible. The engine works on the raw {@code long}; this type is for APIs and files.
 */
public record TimeSpan(long picos) implements Comparable<TimeSpan> {
    public static final long PICOS_PER_NANO = 1_000L;
    public static final long PICOS_PER_MICRO = 1_000_000L;
    public static final long PICOS_PER_MILLI = 1_000_000_000L;
    public static final long PICOS_PER_SECOND = 1_000_000_000_000L;
    public static final TimeSpan ZERO = new TimeSpan(0);

    public TimeSpan {
        if (picos < 0) {
            throw new IllegalArgumentException("negative time span: " + picos + " ps");
        }
    }

    public static TimeSpan ofMicros(double micros) {
        return new TimeSpan(Math.round(micros * PICOS_PER_MICRO));
    }

    public static TimeSpan ofNanos(double nanos) {
        return new TimeSpan(Math.round(nanos * PICOS_PER_NANO));
    }

    /** Parses a time with its unit: {@code s}, {@code ms}, {@code us} (or {@code µs}), {@code ns}, {@code ps}. */
    public static TimeSpan parse(String text) {
        return Units.parseTime(text);
    }

    public double micros() {
        return picos / (double) PICOS_PER_MICRO;
    }

    public double seconds() {
        return picos / (double) PICOS_PER_SECOND;
    }

    /** This span scaled by {@code factor}, to the nearest picosecond. */
    public TimeSpan times(double factor) {
        return factor == 1 ? this : new TimeSpan(Math.round(picos * factor));
    }

    public TimeSpan plus(TimeSpan other) {
        return new TimeSpan(Math.addExact(picos, other.picos));
    }

    @Override
    public int compareTo(TimeSpan o) {
        return Long.compare(picos, o.picos);
    }

    @Override
    public String toString() {
        return Units.formatTime(picos);
    }
}
