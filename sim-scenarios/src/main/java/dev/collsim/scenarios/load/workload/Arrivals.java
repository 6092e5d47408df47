package dev.collsim.scenarios.load.workload;

import java.util.Locale;
import umontreal.ssj.probdist.ExponentialDist;
import umontreal.ssj.probdist.GammaDist;
import umontreal.ssj.rng.RandomStream;

/** When requests are sent: a closed loop of N in flight, or an open loop at a rate. */
public sealed interface Arrivals {
    /** The send times of {@code n} requests, ms from the run's start, in order. */
    double[] timesMs(int n, RandomStream stream);

    /** As the outputs say it, e.g. "closed loop of 64" or "Poisson arrivals at 10 req/s". */
    String describe();

    /**
     * N requests always in flight, a new one sent as one ends (vLLM's {@code --max-concurrency} with
     * every request ready at once, InferenceX's conc, aiconfigurator's silicon runs): no send times.
     */
    record Closed(int concurrency) implements Arrivals {
        @Override
        public double[] timesMs(int n, RandomStream stream) {
            return new double[n];
        }

        @Override
        public String describe() {
            return "closed loop of " + concurrency;
        }
    }

    /**
     * An open loop at {@code rate} requests per second, as {@code vllm bench serve --request-rate R
     * --burstiness B} sends them (vllm/benchmarks/serve.py, {@code get_request}, vllm-project/vllm at
     * def9ce8): inter-arrival gaps drawn from a gamma of shape B and scale 1/(R B), so their mean is 1/R
     * and their coefficient of variation 1/sqrt(B) (B = 1: exponential, a Poisson process; B below 1
     * burstier; infinite: every gap exactly 1/R); the first request waits its own gap; and the cumulative
     * times are then scaled so the last request is sent at exactly N/R, vLLM's "normalize_factor" that
     * keeps the throughput from varying with the seed. Each gap is drawn by inversion from one number of
     * the stream, so the same seed at another rate gives the same times scaled by the ratio of the rates.
     */
    record Open(double rate, double burstiness) implements Arrivals {
        /** Decimal digits SSJ's gamma inversion resolves: past a double's, so inversion loses nothing. */
        private static final int DIGITS = 15;

        @Override
        public double[] timesMs(int n, RandomStream stream) {
            double[] t = new double[n];
            double sum = 0;
            for (int i = 0; i < n; i++) {
                sum += gapSeconds(stream.nextDouble());
                t[i] = sum;
            }
            double normalise = sum > 0 ? (n / rate) / sum : 1;
            for (int i = 0; i < n; i++) {
                t[i] *= normalise * 1000;
            }
            return t;
        }

        private double gapSeconds(double u) {
            if (Double.isInfinite(burstiness)) {
                return 1 / rate;
            }
            // Shape 1 is the exponential, whose inverse is exact and cheap; SSJ's lambda is the gamma's rate, 1/scale.
            return burstiness == 1 ? ExponentialDist.inverseF(rate, u) : GammaDist.inverseF(burstiness, rate * burstiness, DIGITS, u);
        }

        @Override
        public String describe() {
            String r = String.format(Locale.ROOT, "%s req/s", rate == Math.rint(rate) ? Long.toString((long) rate) : Double.toString(rate));
            if (burstiness == 1) {
                return "Poisson arrivals at " + r;
            }
            if (Double.isInfinite(burstiness)) {
                return "arrivals evenly spaced at " + r;
            }
            return String.format(Locale.ROOT, "gamma arrivals at %s, burstiness %s (inter-arrival CV %.2f)", r, burstiness, 1 / Math.sqrt(burstiness));
        }
    }
}
