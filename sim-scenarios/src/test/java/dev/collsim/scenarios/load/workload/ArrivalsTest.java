package dev.collsim.scenarios.load.workload;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.collsim.scenarios.stochastic.Mrg32k3aStreams;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import umontreal.ssj.rng.RandomStream;

/** Open-loop arrivals as vllm bench serve sends them: gamma gaps of mean 1/rate and CV 1/sqrt(burstiness). */
class ArrivalsTest {
    private static final int N = 100_000;

    private static RandomStream stream(long seed) {
        return Mrg32k3aStreams.fromSeed(seed, 1)[0];
    }

    private static double[] gaps(double[] times) {
        double[] g = new double[times.length];
        for (int i = 0; i < times.length; i++) {
            g[i] = times[i] - (i == 0 ? 0 : times[i - 1]);
        }
        return g;
    }

    /**
     * The sample CV of n gamma(k) gaps against 1/sqrt(k). vLLM's normalisation scales every gap by one
     * factor, which leaves the CV as drawn; by the delta method the sample CV^2 has variance
     * (2/k^2 + 2/k^3)/n (from the gamma's moments: mean k, variance k, third central 2k, fourth 3k(k+2)).
     */
    private static void cvIs(double burstiness, double[] gaps) {
        Stats s = new Stats(gaps);
        double k = burstiness;
        double seCv2 = Math.sqrt((2 / (k * k) + 2 / (k * k * k)) / gaps.length);
        double cv = 1 / Math.sqrt(k);
        assertEquals(cv, s.sd / s.mean, Stats.Z * seCv2 / (2 * cv), "CV at burstiness " + k);
    }

    @Test
    void poissonGapsHaveMeanOneOverTheRateAndCvOne() {
        double rate = 10;
        double[] t = new Arrivals.Open(rate, 1).timesMs(N, stream(1));
        // vLLM's normalize_factor: the last request at exactly N / rate, so the mean gap is 1/rate to rounding.
        assertEquals(N / rate * 1000, t[N - 1], 1e-9 * t[N - 1]);
        assertEquals(1000 / rate, new Stats(gaps(t)).mean, 1e-9);
        cvIs(1, gaps(t));
        for (int i = 1; i < N; i++) {
            assertFalse(t[i] < t[i - 1], "in order");
        }
    }

    @Test
    void burstinessHalfGivesCvRootTwo() {
        cvIs(0.5, gaps(new Arrivals.Open(10, 0.5).timesMs(N, stream(2))));
    }

    @Test
    void burstinessFourGivesCvHalf() {
        cvIs(4, gaps(new Arrivals.Open(3, 4).timesMs(N, stream(3))));
    }

    @Test
    void infiniteBurstinessSpacesRequestsEvenly() {
        double[] t = new Arrivals.Open(4, Double.POSITIVE_INFINITY).timesMs(5, stream(4));
        assertArrayEquals(new double[] {250, 500, 750, 1000, 1250}, t, 1e-9);
    }

    @Test
    void theSameSeedGivesTheSameTimesAndAnotherSeedOthers() {
        Arrivals a = new Arrivals.Open(7, 0.5);
        assertArrayEquals(a.timesMs(1000, stream(5)), a.timesMs(1000, stream(5)));
        assertFalse(Arrays.equals(a.timesMs(1000, stream(5)), a.timesMs(1000, stream(6))));
    }

    /** Inversion and vLLM's scale 1/(rate x burstiness): the same seed at twice the rate sends every request at half the time. */
    @Test
    void anotherRateScalesTheSameTimes() {
        double[] slow = new Arrivals.Open(10, 0.7).timesMs(1000, stream(7));
        double[] fast = new Arrivals.Open(20, 0.7).timesMs(1000, stream(7));
        for (int i = 0; i < slow.length; i++) {
            assertEquals(slow[i] / 2, fast[i], 1e-12 * slow[i]);
        }
    }

    @Test
    void aClosedLoopHasNoSendTimes() {
        assertArrayEquals(new double[3], new Arrivals.Closed(8).timesMs(3, stream(8)));
        assertEquals("closed loop of 8", new Arrivals.Closed(8).describe());
        assertEquals("Poisson arrivals at 10 req/s", new Arrivals.Open(10, 1).describe());
        assertEquals("gamma arrivals at 2.5 req/s, burstiness 0.5 (inter-arrival CV 1.41)", new Arrivals.Open(2.5, 0.5).describe());
    }
}
