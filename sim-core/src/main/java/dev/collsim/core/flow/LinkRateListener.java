package dev.collsim.core.flow;

/**
 * Told whenever the bytes per second crossing some links change: a flow started, was re-rated or
 * ended. Summing the changes per link gives each link's load over time, which never exceeds its
 * capacity, and whose integral is what crossed it.
 */
@FunctionalInterface
public interface LinkRateListener {
    /**
     * From {@code picos} on, every link of {@code links} (the flow's path as started; not to be
     * modified) carries {@code bytesPerSecond} more (less, if negative).
     */
    void rateChanged(long picos, int[] links, double bytesPerSecond);
}
