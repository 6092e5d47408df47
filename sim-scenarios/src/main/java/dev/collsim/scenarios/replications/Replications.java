package dev.collsim.scenarios.replications;

import dev.collsim.core.collective.CollectiveOp;
import dev.collsim.core.input.InputException;
import dev.collsim.core.nccl.Communicator;
import dev.collsim.scenarios.bench.Bench;
import dev.collsim.scenarios.bench.BenchRow;
import dev.collsim.scenarios.bench.BenchSpec;
import dev.collsim.scenarios.decode.CommModel;
import dev.collsim.scenarios.decode.DecodeResult;
import dev.collsim.scenarios.decode.DecodeSpec;
import dev.collsim.scenarios.decode.DecodeStep;
import dev.collsim.scenarios.metrics.DecodeMetrics;
import dev.collsim.scenarios.metrics.Metric;
import dev.collsim.scenarios.stochastic.Variability;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Stochastic runs: R replications of a bench sweep or a decode step, replication r drawing from
 * substream r of every source, summarised per quantity.
 */
public final class Replications {
    private Replications() {}

    /** What a bench run summarises for each size, in this order: its quantities come two a size. */
    public static final List<String> BENCH_QUANTITIES = List.of("time_us", "busbw_GBps");

    /**
     * What a stochastic run reports: each quantity's summary, by its metric's key, in a fixed order.
     *
     * @param stragglerGpu the GPU a straggler slows, or -1 for one drawn per replication
     * @param outage       the link taken down and when, in words; null for none
     * @param sizes        a bench run's sizes in bytes, in the order of its quantities (two a size: time_us,
     *                     busbw_GBps); empty for decode
     */
    public record Result(String what, int replications, long seed, double launchJitter, double stepJitter, double straggler,
                         int stragglerGpu, String outage, Map<String, Summary> quantities, List<Long> sizes) {}

    /**
     * R decode steps of replica 0, as its users see them: a drawn straggler slows them only when it
     * lands on one of replica 0's GPUs. (The system's throughput is not summarised: the other
     * replicas are not followed.)
     */
    public static Result decode(DecodeSpec spec, Variability.Spec vs, long seed, int r) {
        check(r);
        if (vs.outage() != null) {
            throw new InputException("--outage takes a link down during a bench collective; decode's collectives are not timed against it");
        }
        Variability v = new Variability(vs, seed);
        CommModel.Cache cache = new CommModel.Cache();
        List<Metric<DecodeResult>> metrics = DecodeMetrics.REPLICATED;
        double[][] q = new double[metrics.size()][r];
        for (int i = 0; i < r; i++) {
            v.nextReplication();
            DecodeResult d = DecodeStep.run(spec, cache, v);
            for (int k = 0; k < metrics.size(); k++) {
                q[k][i] = metrics.get(k).value(d);
            }
        }
        Map<String, Summary> out = new LinkedHashMap<>();
        for (int k = 0; k < metrics.size(); k++) {
            out.put(metrics.get(k).key(), Summary.of(q[k]));
        }
        return result("decode " + spec.model().name() + " on " + spec.system().name(), r, seed, vs, out, List.of());
    }

    /** R replications of a bench sweep on a communicator built for the spec: each size's time and bus bandwidth. */
    public static Result bench(BenchSpec spec, Communicator comm, Variability.Spec vs, long seed, int r) {
        check(r);
        if (vs.stragglerFactor() > 1) {
            throw new InputException("--straggler slows a GPU's kernels in decode; bench has none (use --step-jitter or --launch-jitter)");
        }
        Variability v = new Variability(vs, seed);
        List<Long> sizes = spec.sizes().sizes().stream().filter(s -> Bench.roundedSize(spec, comm.nRanks(), s) > 0).toList();
        double[][] times = new double[sizes.size()][r];
        double[][] busbw = new double[sizes.size()][r];
        long[] bytes = new long[sizes.size()];
        for (int i = 0; i < r; i++) {
            v.nextReplication();
            for (int k = 0; k < sizes.size(); k++) {
                BenchRow row = Bench.runOne(spec, comm, sizes.get(k), v.launchFactor(), v.stepJitter(), v.outage(comm));
                times[k][i] = row.timeMicros();
                busbw[k][i] = row.busBwGBps();
                bytes[k] = row.sizeBytes();
            }
        }
        Map<String, Summary> out = new LinkedHashMap<>();
        for (int k = 0; k < sizes.size(); k++) {
            out.put(bytes[k] + " B " + BENCH_QUANTITIES.get(0), Summary.of(times[k]));
            out.put(bytes[k] + " B " + BENCH_QUANTITIES.get(1), Summary.of(busbw[k]));
        }
        CollectiveOp op = spec.op();
        return result("bench " + op.ncclName() + " on " + spec.system(), r, seed, vs, out,
                Arrays.stream(bytes).boxed().toList());
    }

    private static Result result(String what, int r, long seed, Variability.Spec vs, Map<String, Summary> q, List<Long> sizes) {
        String outage = vs.outage() == null ? null : vs.outage() + " down from " + vs.outageStartPicos() / 1e6 + " us for "
                + vs.outageDurationPicos() / 1e6 + " us";
        return new Result(what, r, seed, vs.launchCv(), vs.stepCv(), vs.stragglerFactor(), vs.stragglerGpu(), outage, q, sizes);
    }

    private static void check(int r) {
        if (r < 1 || r > 100_000) {
            throw new InputException("--replications " + r + ": expected 1 to 100000");
        }
    }
}
