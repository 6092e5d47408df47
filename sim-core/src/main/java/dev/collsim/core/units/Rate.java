package dev.collsim.core.units;

/**
 * A data rate in bytes per second, <em>per direction</em>. Network rates quoted in bits
 * ({@code 400Gb/s}) are divided by 8 on parse; "bidirectional" marketing totals must be halved by
 * whoever reads them, never stored as a rate.
 */
public record Rate(double bytesPerSecond) implements Comparable<Rate> {

    public Rate {
        if (!(bytesPerSecond > 0) || Double.isInfinite(bytesPerSecond)) {
            throw new IllegalArgumentException("a rate must be positive and finite, got " + bytesPerSecond + " B/s");
        }
    }

    public static Rate gigabytesPerSecond(double gbps) {
        return new Rate(gbps * 1e9);
    }

    public static Rate gigabitsPerSecond(double gbitps) {
        return new Rate(gbitps * 1e9 / 8);
    }

    /** Parses a rate with its unit: {@code B/s KB/s MB/s GB/s TB/s}, bits {@code b/s Kb/s Mb/s Gb/s Tb/s}, or binary {@code GiB/s}. */
    public static Rate parse(String text) {
        return Units.parseRate(text);
    }

    public double gigabytesPerSecond() {
        return bytesPerSecond / 1e9;
    }

    public Rate times(double factor) {
        return new Rate(bytesPerSecond * factor);
    }

    /** Picoseconds to move {@code bytes} at this rate, rounded up to the next picosecond. */
    public long picosFor(double bytes) {
        return (long) Math.ceil(bytes / bytesPerSecond * TimeSpan.PICOS_PER_SECOND);
    }

    @Override
    public int compareTo(Rate o) {
        return Double.compare(bytesPerSecond, o.bytesPerSecond);
    }

    @Override
    public String toString() {
        return Units.formatRate(bytesPerSecond);
    }
}
