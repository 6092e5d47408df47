package dev.collsim.core.compute;

import dev.collsim.core.engine.Engine;
import dev.collsim.core.engine.IndexedEvent;
import java.util.Arrays;

/**
 * Kernels on CUDA-like streams of one GPU, run on an {@link Engine} in integer picoseconds: each
 * stream runs its kernels in issue order, one at a time; a kernel starts once the one before it on
 * its stream and every kernel it waits on have ended. While collectives hold {@code s} of the GPU's
 * {@code S} SMs, a compute kernel beside them gets the rest and progresses at {@code (S - s) / S} of
 * its speed (at least {@value #LEAST_SHARE} of it); collectives are bound by links, not SMs, and keep
 * theirs. A compute kernel's end moves whenever its share does.
 *
 * <p>A kernel's time is known when it is added, or, for an open kernel (a collective run on the
 * same engine's fabric, say), decided by whoever it tells when it starts: it ends at {@link #finish}.
 *
 * <p>Kernels are numbered in the order they are added; each waits only on kernels added before it.
 */
public final class GpuStreams {
    /** The least share of its speed a compute kernel keeps however many SMs collectives hold. */
    static final double LEAST_SHARE = 0.05;

    private final Engine engine;
    private final int sms;
    private int count;
    private int[] stream = new int[64];
    private long[] picos = new long[64];
    private boolean[] compute = new boolean[64];
    private int[] kernelSms = new int[64];
    /** Kernel k waits on {@code waits[waitStart[k]..waitStart[k + 1] - 1]}. */
    private int[] waitStart = new int[65];
    private int[] waits = new int[64];
    private int waitCount;
    private long[] start;
    private long[] end;
    /** Per kernel: an open kernel's runner has been told it started. */
    private boolean[] told;
    /** Per stream, its kernels in issue order. */
    private int[][] queue;
    private int[] queued;
    private int[] head;
    /** Per stream, the kernel it runs, or -1. */
    private int[] running;
    /** Per stream, the full-speed picoseconds its running kernel has left, as of {@link #lastUpdate}. */
    private double[] left;
    private double share = 1;
    private long lastUpdate;
    private int[] timer;
    private int done;
    /** Told when an open kernel starts. */
    private OpenKernels open;

    /**
     * What runs open kernels: told when kernel {@code k} starts (after the streams have settled this
     * instant), it calls {@link #finish} from an event on the engine at the kernel's end.
     */
    @FunctionalInterface
    public interface OpenKernels {
        void started(int k);
    }

    /** Picoseconds that mark an open kernel. */
    private static final long OPEN = -1;
    private final IndexedEvent ended = this::ended;

    public GpuStreams(Engine engine, int sms, int streams) {
        if (sms < 1 || streams < 1) {
            throw new IllegalArgumentException(sms + " SMs, " + streams + " streams");
        }
        this.engine = engine;
        this.sms = sms;
        this.queue = new int[streams][8];
        this.queued = new int[streams];
    }

    /**
     * Adds a kernel that takes {@code picos} alone, on {@code stream}, holding {@code kernelSms} SMs
     * if it is a collective ({@code compute} false), once every kernel of {@code after} has ended;
     * returns its number.
     */
    public int kernel(int stream, long picos, boolean compute, int kernelSms, int... after) {
        if (picos < 0) {
            throw new IllegalArgumentException("a kernel of " + picos + " ps on stream " + stream);
        }
        return add(stream, picos, compute, kernelSms, after);
    }

    /**
     * Adds a collective's kernel, holding {@code kernelSms} SMs on {@code stream} once every kernel of
     * {@code after} has ended, whose end {@code runs} decides: told its number when it starts, it
     * calls {@link #finish}. Returns its number.
     */
    public int openKernel(int stream, int kernelSms, OpenKernels runs, int... after) {
        if (open != null && open != runs) {
            throw new IllegalArgumentException("one runner of open kernels per GPU's streams");
        }
        open = runs;
        return add(stream, OPEN, false, kernelSms, after);
    }

    private int add(int stream, long picos, boolean compute, int kernelSms, int... after) {
        if (stream < 0 || stream >= queue.length) {
            throw new IllegalArgumentException("a kernel on stream " + stream + " of " + queue.length);
        }
        int k = count++;
        if (k == this.stream.length) {
            int cap = 2 * k;
            this.stream = Arrays.copyOf(this.stream, cap);
            this.picos = Arrays.copyOf(this.picos, cap);
            this.compute = Arrays.copyOf(this.compute, cap);
            this.kernelSms = Arrays.copyOf(this.kernelSms, cap);
            waitStart = Arrays.copyOf(waitStart, cap + 1);
        }
        this.stream[k] = stream;
        this.picos[k] = picos;
        this.compute[k] = compute;
        this.kernelSms[k] = kernelSms;
        for (int d : after) {
            if (d < 0 || d >= k) {
                throw new IllegalArgumentException("kernel " + k + " waits on " + d + ", not added before it");
            }
            if (waitCount == waits.length) {
                waits = Arrays.copyOf(waits, 2 * waitCount);
            }
            waits[waitCount++] = d;
        }
        waitStart[k + 1] = waitCount;
        if (queued[stream] == queue[stream].length) {
            queue[stream] = Arrays.copyOf(queue[stream], 2 * queued[stream]);
        }
        queue[stream][queued[stream]++] = k;
        return k;
    }

    /**
     * Runs every kernel from the engine's now to the last one's end.
     *
     * @throws IllegalStateException if some kernel waits on one that never runs
     */
    public void run() {
        int streams = queue.length;
        start = new long[count];
        end = new long[count];
        told = new boolean[count];
        Arrays.fill(end, -1);
        head = new int[streams];
        running = new int[streams];
        Arrays.fill(running, -1);
        left = new double[streams];
        timer = new int[streams];
        for (int s = 0; s < streams; s++) {
            timer[s] = engine.newTimer(ended, s);
        }
        lastUpdate = engine.now();
        startReady();
        engine.run();
        if (done != count) {
            throw new IllegalStateException("decode schedule stalled: " + (count - done) + " kernel(s) wait on one that never runs");
        }
    }

    public int count() {
        return count;
    }

    /** When kernel {@code k} started, in engine picoseconds. */
    public long startPicos(int k) {
        return start[k];
    }

    /** When kernel {@code k} ended, in engine picoseconds. */
    public long endPicos(int k) {
        return end[k];
    }

    /**
     * Open kernel {@code k}, running, ends now.
     *
     * @throws IllegalStateException if it is not an open kernel that runs
     */
    public void finish(int k) {
        int s = k >= 0 && k < count ? stream[k] : -1;
        if (s < 0 || picos[k] != OPEN || running[s] != k) {
            throw new IllegalStateException("kernel " + k + " is not an open kernel that runs");
        }
        ended(s);
    }

    /** The running kernel of {@code s} has done its work. */
    private void ended(int s) {
        advance();
        int k = running[s];
        end[k] = engine.now();
        running[s] = -1;
        done++;
        startReady();
    }

    /** Charges every running kernel the work it did at its share since the last change. */
    private void advance() {
        long now = engine.now();
        for (int s = 0; s < running.length; s++) {
            if (running[s] >= 0) {
                left[s] -= (now - lastUpdate) * (compute[running[s]] ? share : 1);
            }
        }
        lastUpdate = now;
    }

    /** Starts every stream's next kernel that may start now, then re-times what the new SM split moves. */
    private void startReady() {
        long now = engine.now();
        for (int s = 0; s < running.length; s++) {
            if (running[s] < 0 && head[s] < queued[s] && ready(queue[s][head[s]])) {
                int k = queue[s][head[s]++];
                running[s] = k;
                start[k] = now;
                left[s] = picos[k];
            }
        }
        int commSms = 0;
        for (int k : running) {
            if (k >= 0 && !compute[k]) {
                commSms += kernelSms[k];
            }
        }
        share = Math.max(LEAST_SHARE, (sms - Math.min(commSms, sms)) / (double) sms);
        for (int s = 0; s < running.length; s++) {
            if (running[s] >= 0 && picos[running[s]] != OPEN) {
                double rate = compute[running[s]] ? share : 1;
                engine.setTimer(timer[s], now + (long) Math.ceil(Math.max(0, left[s]) / rate));
            }
        }
        for (int s = 0; s < running.length; s++) {
            if (running[s] >= 0 && picos[running[s]] == OPEN && start[running[s]] == now && !told[running[s]]) {
                told[running[s]] = true;
                open.started(running[s]);
            }
        }
    }

    private boolean ready(int k) {
        for (int i = waitStart[k]; i < waitStart[k + 1]; i++) {
            if (end[waits[i]] < 0) {
                return false;
            }
        }
        return true;
    }
}
