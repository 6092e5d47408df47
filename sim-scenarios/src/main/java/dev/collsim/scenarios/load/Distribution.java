package dev.collsim.scenarios.load;

import java.util.Arrays;

/**
 * Values with weights (an inter-token gap that a whole batch saw counts once per sequence), sorted,
 * summarised as serving benchmarks do: mean, standard deviation (population, as numpy's), and
 * percentiles by linear interpolation between closest ranks (numpy's default, which vLLM's benchmark
 * uses), a value of weight w standing for w equal values.
 */
public final class Distribution {
    private final double[] values;
    private final long[] cumulative;
    private final double mean;
    private final double std;

    private Distribution(double[] sortedValues, long[] weights) {
        this.values = sortedValues;
        this.cumulative = new long[weights.length];
        long n = 0;
        double sum = 0;
        for (int i = 0; i < weights.length; i++) {
            n += weights[i];
            cumulative[i] = n;
            sum += sortedValues[i] * weights[i];
        }
        this.mean = n == 0 ? 0 : sum / n;
        double squares = 0;
        for (int i = 0; i < weights.length; i++) {
            double d = sortedValues[i] - mean;
            squares += d * d * weights[i];
        }
        this.std = n == 0 ? 0 : Math.sqrt(squares / n);
    }

    /** Each value once. */
    public static Distribution of(double[] values) {
        long[] ones = new long[values.length];
        Arrays.fill(ones, 1);
        return weighted(values, ones);
    }

    /** {@code values[i]} counted {@code weights[i]} times; zero weights are dropped. */
    public static Distribution weighted(double[] values, long[] weights) {
        Integer[] order = new Integer[values.length];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (a, b) -> Double.compare(values[a], values[b]));
        int kept = 0;
        for (long w : weights) {
            kept += w > 0 ? 1 : 0;
        }
        double[] v = new double[kept];
        long[] w = new long[kept];
        int k = 0;
        for (int i : order) {
            if (weights[i] > 0) {
                v[k] = values[i];
                w[k++] = weights[i];
            }
        }
        return new Distribution(v, w);
    }

    public long count() {
        return cumulative.length == 0 ? 0 : cumulative[cumulative.length - 1];
    }

    public double mean() {
        return mean;
    }

    public double std() {
        return std;
    }

    public double median() {
        return percentile(50);
    }

    /** The {@code p}th percentile (0 to 100), interpolated between the two closest ranks; 0 when empty. */
    public double percentile(double p) {
        long n = count();
        if (n == 0) {
            return 0;
        }
        double rank = p / 100 * (n - 1);
        long below = (long) Math.floor(rank);
        double lo = at(below);
        double hi = at(Math.min(n - 1, below + 1));
        return lo + (hi - lo) * (rank - below);
    }

    /** The value of rank {@code r} (0-based) among the n. */
    private double at(long r) {
        int i = Arrays.binarySearch(cumulative, r + 1);
        return values[i >= 0 ? i : -i - 1];
    }

    /** The distinct values, sorted, and the fraction of the weight at or below each: a CDF to draw. */
    public double[][] cdf() {
        double n = count();
        double[] f = new double[values.length];
        for (int i = 0; i < f.length; i++) {
            f[i] = cumulative[i] / n;
        }
        return new double[][] {values.clone(), f};
    }
}
