package dev.collsim.scenarios.decode;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs kernels on CUDA-like streams: each stream in issue order, one kernel at a time; a kernel
 * starts once the one before it on its stream and all it depends on have ended. While a collective
 * holds {@code s} of the GPU's {@code S} SMs, a compute kernel running beside it gets the rest and
 * progresses at {@code (S - s) / S} of its speed; collectives are bound by links, not SMs, and keep
 * theirs.
 */
final class StreamScheduler {
    private StreamScheduler() {}

    /** Sets every op's start and end (us from 0); ops are given in issue order. */
    static void run(List<Op> ops, int sms, int streams) {
        List<ArrayDeque<Op>> queues = new ArrayList<>();
        for (int s = 0; s < streams; s++) {
            queues.add(new ArrayDeque<>());
        }
        for (Op op : ops) {
            queues.get(op.stream).add(op);
        }
        Op[] running = new Op[streams];
        double[] left = new double[streams];
        double now = 0;
        int done = 0;
        while (done < ops.size()) {
            for (int s = 0; s < streams; s++) {
                Op head = queues.get(s).peek();
                if (running[s] == null && head != null && ready(head, now)) {
                    running[s] = queues.get(s).poll();
                    running[s].start = now;
                    left[s] = running[s].micros;
                }
            }
            int commSms = 0;
            for (Op r : running) {
                if (r != null && r.kind == Op.Kind.COMM) {
                    commSms += r.sms;
                }
            }
            double computeRate = Math.max(0.05, (sms - Math.min(commSms, sms)) / (double) sms);
            double step = Double.POSITIVE_INFINITY;
            for (int s = 0; s < streams; s++) {
                if (running[s] != null) {
                    step = Math.min(step, left[s] / rate(running[s], computeRate));
                }
            }
            if (step == Double.POSITIVE_INFINITY) {
                throw new IllegalStateException("decode schedule stalled: a kernel waits on one that never runs");
            }
            double t = now + step;
            for (int s = 0; s < streams; s++) {
                if (running[s] != null) {
                    left[s] -= step * rate(running[s], computeRate);
                    if (left[s] <= 1e-9 * Math.max(1, running[s].micros)) {
                        running[s].end = t;
                        running[s] = null;
                        done++;
                    }
                }
            }
            now = t;
        }
    }

    private static boolean ready(Op op, double now) {
        for (Op d : op.deps) {
            if (Double.isNaN(d.end) || d.end > now) {
                return false;
            }
        }
        return true;
    }

    private static double rate(Op op, double computeRate) {
        return op.kind == Op.Kind.COMPUTE ? computeRate : 1.0;
    }
}
