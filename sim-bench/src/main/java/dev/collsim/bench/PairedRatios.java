package dev.collsim.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * A benchmark's throughput over its baseline's, each pair measured back to back: on a shared
 * machine whose speed drifts by tens of percent over minutes, JMH's usual order (every fork of the
 * baseline, then every fork of the benchmark) puts the drift into the ratio. Here each round runs
 * one fork of the baseline and then one of the benchmark, per parameter value, and the median of
 * the rounds' ratios is reported beside each round's. Run:
 * {@code java -cp sim-bench/target/benchmarks.jar dev.collsim.bench.PairedRatios [rounds]}
 * (EngineBenchmark's engine against its binary heap, at each of its pending counts).
 */
public final class PairedRatios {
    private PairedRatios() {}

    public static void main(String[] args) throws RunnerException {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        for (String pending : new String[] {"1000", "100000", "1000000"}) {
            double[] ratios = new double[rounds];
            List<String> each = new ArrayList<>();
            for (int r = 0; r < rounds; r++) {
                double baseline = score("EngineBenchmark.baselineBinaryHeap", pending);
                double engine = score("EngineBenchmark.engine", pending);
                ratios[r] = engine / baseline;
                each.add(String.format(Locale.ROOT, "%.2f (%.2f M / %.2f M)", ratios[r], engine / 1e6, baseline / 1e6));
            }
            double[] sorted = ratios.clone();
            Arrays.sort(sorted);
            System.out.printf(Locale.ROOT, "pending %s: engine/baseline median %.2f over %d rounds: %s%n", pending,
                    sorted[rounds / 2], rounds, String.join(", ", each));
        }
    }

    /** Events per second of one fork of a benchmark (3 x 1 s warm-up, 5 x 1 s measured). */
    private static double score(String benchmark, String pending) throws RunnerException {
        RunResult result = new Runner(new OptionsBuilder().include(benchmark + "$").param("pending", pending).forks(1)
                .warmupIterations(3).measurementIterations(5).shouldFailOnError(true).verbosity(
                        VerboseMode.SILENT).build()).runSingle();
        return result.getPrimaryResult().getScore();
    }
}
