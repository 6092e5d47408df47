package dev.collsim.scenarios.load;

import java.util.HashMap;
import java.util.Map;

/**
 * Every gap between two successive tokens of a measured request, counted by value: a batch's
 * sequences mostly see the same gap (the step's length), so a run of 10^8 tokens keeps about as
 * many values as steps.
 */
final class Gaps {
    private final Map<Double, long[]> counts = new HashMap<>();

    void add(double gapMs) {
        counts.computeIfAbsent(gapMs, g -> new long[1])[0]++;
    }

    Distribution distribution() {
        double[] values = new double[counts.size()];
        long[] weights = new long[counts.size()];
        int k = 0;
        for (Map.Entry<Double, long[]> e : counts.entrySet()) {
            values[k] = e.getKey();
            weights[k++] = e.getValue()[0];
        }
        return Distribution.weighted(values, weights);
    }
}
