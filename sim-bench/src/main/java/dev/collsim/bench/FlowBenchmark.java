package dev.collsim.bench;

import dev.collsim.core.engine.Engine;
import dev.collsim.core.flow.FlowListener;
import dev.collsim.core.flow.FlowNetwork;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Max-min flow rates under churn on a two-level fat-tree: 256 hosts, 16 leaves, 8 spines, leaves
 * oversubscribed 4:1 so the spine links bind. A constant number of flows between random hosts; when
 * one completes a new one starts. One benchmark operation is one flow completing and its successor
 * starting. {@code incremental}: the simulator's FlowNetwork, which re-rates only the connected
 * component around the links that changed; {@code baselineFromScratch}: progressive filling over
 * every flow and link after each change, the textbook recomputation. Both give the same max-min rates.
 * Run: {@code java -jar sim-bench/target/benchmarks.jar FlowBenchmark}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class FlowBenchmark {
    static final int HOSTS = 256;
    static final int LEAVES = 16;
    static final int SPINES = 8;
    static final double HOST_LINK = 50e9;
    static final double SPINE_LINK = HOST_LINK * HOSTS / LEAVES / SPINES / 4;
    /** Far above any link: the flows are limited by the network alone, as in the baseline. */
    static final double NO_CAP = 1e15;

    @Param({"64", "1024"})
    int flows;

    Random rnd;
    double[] capacity;
    Engine engine;
    FlowNetwork network;
    long completions;
    Baseline baseline;

    @Setup(Level.Trial)
    public void setUp() {
        rnd = new Random(1);
        capacity = new double[2 * HOSTS + 2 * LEAVES * SPINES];
        Arrays.fill(capacity, 0, 2 * HOSTS, HOST_LINK);
        Arrays.fill(capacity, 2 * HOSTS, capacity.length, SPINE_LINK);
        engine = new Engine();
        network = new FlowNetwork(engine, capacity);
        FlowListener restart = new FlowListener() {
            @Override
            public void transferred(int tag) {
                completions++;
                network.start(route(), bytes(), NO_CAP, this, 0);
            }
        };
        for (int i = 0; i < flows; i++) {
            network.start(route(), bytes(), NO_CAP, restart, 0);
        }
        baseline = new Baseline(this);
    }

    @Benchmark
    public long incremental() {
        long before = completions;
        while (completions == before) {
            engine.fireNext();
        }
        return engine.now();
    }

    @Benchmark
    public double baselineFromScratch() {
        return baseline.next();
    }

    /** Up from a host, through a random spine when the other host is under another leaf, down to it. */
    int[] route() {
        int a = rnd.nextInt(HOSTS);
        int b = rnd.nextInt(HOSTS - 1);
        b += b >= a ? 1 : 0;
        int la = a / (HOSTS / LEAVES);
        int lb = b / (HOSTS / LEAVES);
        if (la == lb) {
            return new int[] {a, HOSTS + b};
        }
        int s = rnd.nextInt(SPINES);
        return new int[] {a, 2 * HOSTS + la * SPINES + s, 2 * HOSTS + LEAVES * SPINES + lb * SPINES + s, HOSTS + b};
    }

    /** Exponential, mean 1 MB. */
    double bytes() {
        return 1 + -Math.log(1 - rnd.nextDouble()) * 1e6;
    }

    /** Every rate recomputed from scratch after each change, by progressive filling. */
    static final class Baseline {
        final FlowBenchmark b;
        final int[][] route;
        final double[] remaining;
        final double[] rate;
        final boolean[] frozen;
        final int[] justFrozen;
        final double[] linkLeft;
        final int[] linkUnfrozen;
        double now;

        Baseline(FlowBenchmark b) {
            this.b = b;
            int n = b.flows;
            route = new int[n][];
            remaining = new double[n];
            rate = new double[n];
            frozen = new boolean[n];
            justFrozen = new int[n];
            linkLeft = new double[b.capacity.length];
            linkUnfrozen = new int[b.capacity.length];
            for (int f = 0; f < n; f++) {
                route[f] = b.route();
                remaining[f] = b.bytes();
            }
            rates();
        }

        /** The next completion: advance every flow to it, replace the finished one, re-rate all. */
        double next() {
            int first = 0;
            double dt = Double.POSITIVE_INFINITY;
            for (int f = 0; f < route.length; f++) {
                double t = remaining[f] / rate[f];
                if (t < dt) {
                    dt = t;
                    first = f;
                }
            }
            for (int f = 0; f < route.length; f++) {
                remaining[f] -= rate[f] * dt;
            }
            now += dt;
            route[first] = b.route();
            remaining[first] = b.bytes();
            rates();
            return now;
        }

        private void rates() {
            System.arraycopy(b.capacity, 0, linkLeft, 0, linkLeft.length);
            Arrays.fill(linkUnfrozen, 0);
            Arrays.fill(frozen, false);
            for (int[] r : route) {
                for (int l : r) {
                    linkUnfrozen[l]++;
                }
            }
            int unfrozen = route.length;
            while (unfrozen > 0) {
                double level = Double.POSITIVE_INFINITY;
                for (int l = 0; l < linkLeft.length; l++) {
                    if (linkUnfrozen[l] > 0) {
                        level = Math.min(level, linkLeft[l] / linkUnfrozen[l]);
                    }
                }
                double threshold = level * (1 + 1e-12);
                int fresh = 0;
                for (int f = 0; f < route.length; f++) {
                    if (frozen[f]) {
                        continue;
                    }
                    boolean bottlenecked = false;
                    for (int l : route[f]) {
                        bottlenecked |= linkLeft[l] / linkUnfrozen[l] <= threshold;
                    }
                    if (bottlenecked) {
                        rate[f] = level;
                        justFrozen[fresh++] = f;
                    }
                }
                for (int k = 0; k < fresh; k++) {
                    int f = justFrozen[k];
                    frozen[f] = true;
                    for (int l : route[f]) {
                        linkLeft[l] -= level;
                        linkUnfrozen[l]--;
                    }
                }
                unfrozen -= fresh;
            }
        }
    }
}
