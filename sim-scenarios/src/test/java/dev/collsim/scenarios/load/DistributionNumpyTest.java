package dev.collsim.scenarios.load;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** Distribution's figures against numpy's (numpy 2.4: np.percentile's default linear method, np.std, np.mean), worked out beside each. */
class DistributionNumpyTest {
    private static final double EPS = 1e-12;

    /** np.percentile([1, 2, 3, 4], [50, 99, 90, 0, 100]) = [2.5, 3.97, 3.7, 1, 4]; np.std = 1.118033988749895. */
    @Test
    void oneToFourAsNumpy() {
        Distribution d = Distribution.of(new double[] {4, 2, 1, 3});
        assertEquals(2.5, d.percentile(50), EPS);
        assertEquals(2.5, d.median(), EPS);
        assertEquals(3.97, d.percentile(99), EPS);
        assertEquals(3.7, d.percentile(90), EPS);
        assertEquals(1, d.percentile(0), EPS);
        assertEquals(4, d.percentile(100), EPS);
        assertEquals(2.5, d.mean(), EPS);
        assertEquals(1.118033988749895, d.std(), EPS);
        assertEquals(4, d.count());
    }

    /**
     * Seven unsorted values: np.percentile(x, [50, 90, 99, 99.9]) = [4.75, 10.1, 10.91, 10.991], np.std(x) =
     * 3.6516001524632165, np.mean(x) = 5.428571428571429.
     */
    @Test
    void sevenValuesAsNumpy() {
        Distribution d = Distribution.of(new double[] {0.5, 7.25, 3.0, 11.0, 2.0, 9.5, 4.75});
        assertEquals(4.75, d.percentile(50), EPS);
        assertEquals(10.1, d.percentile(90), EPS);
        assertEquals(10.91, d.percentile(99), EPS);
        assertEquals(10.991, d.percentile(99.9), EPS);
        assertEquals(3.6516001524632165, d.std(), EPS);
        assertEquals(5.428571428571429, d.mean(), EPS);
    }

    /**
     * A value of weight w is w equal values: 30 twice, 10 three times, 20 once (and 99 with weight 0, dropped)
     * is numpy's [10, 10, 10, 20, 30, 30]: percentiles 25, 45, 50, 60, 70, 90, 99.9 = 10, 12.5, 15, 20, 25, 30,
     * 30; std 8.975274678557506, mean 18.333333333333332.
     */
    @Test
    void weightedValuesAsRepeatedOnes() {
        Distribution d = Distribution.weighted(new double[] {30, 99, 10, 20}, new long[] {2, 0, 3, 1});
        assertEquals(6, d.count());
        double[] p = {25, 45, 50, 60, 70, 90, 99.9};
        double[] numpy = {10, 12.5, 15, 20, 25, 30, 30};
        for (int i = 0; i < p.length; i++) {
            assertEquals(numpy[i], d.percentile(p[i]), EPS, "p" + p[i]);
        }
        assertEquals(8.975274678557506, d.std(), EPS);
        assertEquals(18.333333333333332, d.mean(), EPS);
        double[][] cdf = d.cdf();
        assertArrayEquals(new double[] {10, 20, 30}, cdf[0]);
        assertArrayEquals(new double[] {0.5, 4 / 6.0, 1}, cdf[1], EPS);
    }

    /** One value is every percentile (np.percentile([5], 99) = 5); none gives 0 everywhere, as vLLM's np.mean(x or 0). */
    @Test
    void oneValueAndNone() {
        Distribution one = Distribution.of(new double[] {5});
        assertEquals(5, one.percentile(99), EPS);
        assertEquals(0, one.std(), EPS);
        Distribution none = Distribution.of(new double[0]);
        assertEquals(0, none.count());
        assertEquals(0, none.mean());
        assertEquals(0, none.percentile(99));
    }
}
