package dev.collsim.scenarios.metrics;

import java.util.function.Function;

/**
 * One reported quantity of a result of type {@code R}.
 *
 * @param key   its name in JSON, CSV headers and sweeps' rows (a contract: users' scripts read it)
 * @param title its column title in tables
 * @param unit  what its number counts
 * @param read  reads it from a result: an {@link Integer} or {@link Long} for counts and bytes held whole,
 *              else a {@link Double}, so that JSON writes it as the number it is
 */
public record Metric<R>(String key, String title, Unit unit, Function<R, Number> read) {

    /** What a metric's number counts. */
    public enum Unit {
        MILLISECONDS("ms"), MICROSECONDS("us"), TOKENS_PER_SECOND("tokens/s"), REQUESTS_PER_SECOND("requests/s"), BYTES("B"),
        GIGABYTES_PER_SECOND("GB/s"), COUNT("");

        private final String symbol;

        Unit(String symbol) {
            this.symbol = symbol;
        }

        /** As a column's unit line writes it; empty for a count. */
        public String symbol() {
            return symbol;
        }
    }

    public Number of(R result) {
        return read.apply(result);
    }

    public double value(R result) {
        return read.apply(result).doubleValue();
    }
}
