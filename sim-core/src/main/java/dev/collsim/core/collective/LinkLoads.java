package dev.collsim.core.collective;

import java.util.Arrays;

/**
 * Each link's load over a run, in wire bytes per second: a step function that changes whenever a
 * flow on the link starts, is re-rated or ends, read off the flow network itself (so it never
 * exceeds the link's rate, and its integral is what crossed the link). For the views that show link
 * use over time (traces); a run keeps nothing of the kind itself.
 */
public final class LinkLoads implements TransferObserver {
    private long[][] times;
    private double[][] levels;
    private int[] count;

    public LinkLoads(int links) {
        times = new long[links][];
        levels = new double[links][];
        count = new int[links];
    }

    @Override
    public void started(int t, long time) {
    }

    @Override
    public void delivered(int t, long time) {
    }

    @Override
    public void linkRateChanged(long picos, int[] links, double bytesPerSecond) {
        for (int l : links) {
            int n = count[l];
            double before = n == 0 ? 0 : levels[l][n - 1];
            if (n > 0 && times[l][n - 1] == picos) {
                levels[l][n - 1] = before + bytesPerSecond; // several changes at one instant: one step
                continue;
            }
            if (times[l] == null || n == times[l].length) {
                int cap = n == 0 ? 8 : 2 * n;
                times[l] = times[l] == null ? new long[cap] : Arrays.copyOf(times[l], cap);
                levels[l] = levels[l] == null ? new double[cap] : Arrays.copyOf(levels[l], cap);
            }
            times[l][n] = picos;
            levels[l][n] = before + bytesPerSecond;
            count[l] = n + 1;
        }
    }

    /** How many steps link {@code link}'s load takes (0 if nothing crossed it). */
    public int steps(int link) {
        return count[link];
    }

    /** When the {@code i}-th step of the link's load begins, in ps. */
    public long stepPicos(int link, int i) {
        return times[link][i];
    }

    /**
     * The link's load from its {@code i}-th step on, in bytes per second; never below 0 (sums of
     * rates that cancel can leave a rounding residue of either sign).
     */
    public double load(int link, int i) {
        return Math.max(0, levels[link][i]);
    }

    /** The bytes that crossed the link: the load's integral over time. */
    public double bytes(int link) {
        double sum = 0;
        for (int i = 0; i + 1 < count[link]; i++) {
            sum += load(link, i) * (times[link][i + 1] - times[link][i]) / 1e12;
        }
        return sum;
    }
}
