package dev.collsim.scenarios.replications;

import java.util.Arrays;
import umontreal.ssj.stat.Tally;

/**
 * A quantity over replications: mean, median, 99th percentile (nearest rank) and the half-width of
 * the mean's 95 % confidence interval (Student's t, SSJ's {@link Tally}); 0 with one replication.
 */
public record Summary(int n, double mean, double p50, double p99, double ci95HalfWidth,
                      double min, double max) {
    public static Summary of(double[] values) {
        if (values.length == 0) {
            throw new IllegalArgumentException("no values");
        }
        Tally tally = new Tally();
        for (double v : values) {
            tally.add(v);
        }
        double half = 0;
        if (values.length > 1) {
            double[] centerAndRadius = new double[2];
            tally.confidenceIntervalStudent(0.95, centerAndRadius);
            half = centerAndRadius[1];
        }
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return new Summary(values.length, tally.average(), percentile(sorted, 0.50), percentile(sorted, 0.99), half,
                sorted[0], sorted[sorted.length - 1]);
    }

    private static double percentile(double[] sorted, double p) {
        int rank = (int) Math.ceil(p * sorted.length);
        return sorted[Math.max(0, rank - 1)];
    }
}
