package dev.collsim.scenarios.load.workload;

/** Sample moments for the statistical tests, with the standard errors their tolerances come from. */
final class Stats {
    /** Four standard errors: a seeded test that holds the right law fails with probability 6e-5, a wrong law by more fails. */
    static final double Z = 4;

    final int n;
    final double mean;
    final double sd;

    Stats(double[] x) {
        n = x.length;
        double sum = 0;
        for (double v : x) {
            sum += v;
        }
        mean = sum / n;
        double squares = 0;
        for (double v : x) {
            squares += (v - mean) * (v - mean);
        }
        sd = Math.sqrt(squares / (n - 1));
    }

    static Stats ofInts(int[] x) {
        double[] d = new double[x.length];
        for (int i = 0; i < x.length; i++) {
            d[i] = x[i];
        }
        return new Stats(d);
    }

    /** Tolerance on the sample mean of draws whose law has standard deviation {@code sigma}. */
    double meanTolerance(double sigma) {
        return Z * sigma / Math.sqrt(n);
    }
}
