package dev.collsim.bench;

import dev.collsim.core.engine.Engine;
import dev.collsim.core.engine.IndexedEvent;
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
 * Event throughput of the engine in the hold model (each fired event schedules one more at
 * now + a random delay, so the number of pending events stays constant), beside a minimal
 * array-based binary heap of (time, sequence, id) doing the same work: that heap is the practical
 * limit. One benchmark operation is one event. Run:
 * {@code java -jar sim-bench/target/benchmarks.jar EngineBenchmark -prof gc}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class EngineBenchmark {
    private static final int DELAYS = 1 << 16;

    @Param({"1000", "100000", "1000000"})
    int pending;

    long[] delays;
    int next;
    Engine engine;
    BinaryHeap heap;
    long heapNow;

    @Setup(Level.Trial)
    public void setUp() {
        Random rnd = new Random(1);
        delays = new long[DELAYS];
        for (int i = 0; i < DELAYS; i++) {
            // Exponential delays with a mean of 1 us, in picoseconds.
            delays[i] = 1 + (long) (-Math.log(1 - rnd.nextDouble()) * 1_000_000);
        }
        engine = new Engine(pending);
        IndexedEvent hold = new IndexedEvent() {
            @Override
            public void fire(int index) {
                engine.schedule(engine.now() + delays[next++ & (DELAYS - 1)], this, index);
            }
        };
        for (int i = 0; i < pending; i++) {
            engine.schedule(delays[next++ & (DELAYS - 1)], hold, i);
        }
        heap = new BinaryHeap(pending);
        for (int i = 0; i < pending; i++) {
            heap.push(delays[next++ & (DELAYS - 1)], i);
        }
    }

    @Benchmark
    public long engine() {
        engine.fireNext();
        return engine.now();
    }

    @Benchmark
    public long baselineBinaryHeap() {
        int id = heap.popId();
        heapNow = heap.lastTime;
        heap.push(heapNow + delays[next++ & (DELAYS - 1)], id);
        return heapNow;
    }

    /** The baseline: parallel arrays of (time, sequence, id), nothing else. */
    static final class BinaryHeap {
        long[] time;
        long[] seq;
        int[] id;
        int size;
        long nextSeq;
        long lastTime;

        BinaryHeap(int capacity) {
            time = new long[capacity + 1];
            seq = new long[capacity + 1];
            id = new int[capacity + 1];
        }

        void push(long t, int i) {
            int pos = size++;
            long s = nextSeq++;
            while (pos > 0) {
                int parent = (pos - 1) >>> 1;
                if (time[parent] < t || (time[parent] == t && seq[parent] < s)) {
                    break;
                }
                time[pos] = time[parent];
                seq[pos] = seq[parent];
                id[pos] = id[parent];
                pos = parent;
            }
            time[pos] = t;
            seq[pos] = s;
            id[pos] = i;
        }

        int popId() {
            int top = id[0];
            lastTime = time[0];
            int last = --size;
            long t = time[last];
            long s = seq[last];
            int i = id[last];
            int pos = 0;
            int half = size >>> 1;
            while (pos < half) {
                int child = 2 * pos + 1;
                int right = child + 1;
                if (right < size && (time[right] < time[child] || (time[right] == time[child] && seq[right] < seq[child]))) {
                    child = right;
                }
                if (t < time[child] || (t == time[child] && s < seq[child])) {
                    break;
                }
                time[pos] = time[child];
                seq[pos] = seq[child];
                id[pos] = id[child];
                pos = child;
            }
            time[pos] = t;
            seq[pos] = s;
            id[pos] = i;
            return top;
        }
    }
}
