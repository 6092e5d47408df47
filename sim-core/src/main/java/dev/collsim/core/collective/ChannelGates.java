package dev.collsim.core.collective;

import java.util.PriorityQueue;
import java.util.function.IntUnaryOperator;

/**
 * The thread blocks of each rank's channels when they copy through host memory: a block runs one
 * primitive at a time (a send, a receive, or a receive fused with the send that forwards it), in
 * program order among those that are ready. Primitives are numbered so that a lower number comes
 * earlier in the program; the runner tells a gate how many legs the primitive it starts has and
 * when each ends.
 */
final class ChannelGates {
    private final int channels;
    private final PriorityQueue<Integer>[] waiting;
    private final int[] legsLeft;

    @SuppressWarnings("unchecked")
    ChannelGates(int ranks, int channels) {
        this.channels = channels;
        this.waiting = new PriorityQueue[ranks * channels];
        this.legsLeft = new int[ranks * channels];
    }

    int gate(int rank, int channel) {
        return rank * channels + channel;
    }

    /** Queues a ready primitive; returns true if the gate is idle, so the caller should {@link #next} it. */
    boolean offer(int gate, int primitive) {
        if (waiting[gate] == null) {
            waiting[gate] = new PriorityQueue<>();
        }
        waiting[gate].add(primitive);
        return legsLeft[gate] == 0;
    }

    /** The next primitive to run on an idle gate, now holding it for {@code legs} legs, or -1 if none waits. */
    int next(int gate, IntUnaryOperator legsOf) {
        PriorityQueue<Integer> q = waiting[gate];
        if (legsLeft[gate] > 0 || q == null || q.isEmpty()) {
            return -1;
        }
        int primitive = q.poll();
        legsLeft[gate] = legsOf.applyAsInt(primitive);
        return primitive;
    }

    /** One leg of the running primitive ended; returns true if the gate is now idle. */
    boolean legDone(int gate) {
        return --legsLeft[gate] == 0;
    }
}
