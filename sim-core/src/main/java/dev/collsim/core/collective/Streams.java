package dev.collsim.core.collective;

import java.util.Arrays;

/**
 * Streams of transfers that run in order (a connection, or one warp group of a channel on a rank):
 * each waits until the previous one's sender is free, and for the one a window earlier to be
 * delivered, its buffer slot being needed again. The window is {@link Protocol#STEPS} transfers, one
 * a buffer step, or more where a step moves in several transfers.
 */
final class Streams {
    private final ScheduleBuilder b;
    private final int window;
    /** Each stream's slot; a slot keeps the stream's last {@code window} transfers in a ring. */
    private final LongIntMap slotOf = new LongIntMap();
    private int slots;
    private int[] recent;
    private int[] count = new int[32];

    Streams(ScheduleBuilder b) {
        this(b, Protocol.STEPS);
    }

    Streams(ScheduleBuilder b, int window) {
        this.b = b;
        this.window = window;
        this.recent = new int[32 * window];
    }

    /** The dependencies {@link #next} adds to {@code streams} streams of {@code transfersEach} transfers each. */
    static long dependencies(long streams, long transfersEach) {
        return dependencies(streams, transfersEach, Protocol.STEPS);
    }

    /** {@link #dependencies(long, long)} for streams of the given window. */
    static long dependencies(long streams, long transfersEach, int window) {
        return streams * (Math.max(0, transfersEach - 1) + Math.max(0, transfersEach - window));
    }

    /** A stream key: what kind of stream, on which channel, from which rank to which (-1 for none). */
    static long key(int kind, int channel, int from, int to) {
        return ((long) kind << 58) | ((long) channel << 44) | ((long) (from + 1) << 22) | (to + 1);
    }

    /** Appends transfer {@code t} to the stream {@code key} and returns it. */
    int next(long key, int t) {
        int s = slot(key);
        int n = count[s];
        int base = s * window;
        if (n > 0) {
            b.afterSend(t, recent[base + (n - 1) % window]);
        }
        if (n >= window) {
            b.afterDelivery(t, recent[base + n % window]); // the one a window earlier, about to be overwritten
        }
        recent[base + n % window] = t;
        count[s] = n + 1;
        return t;
    }

    private int slot(long key) {
        int s = slotOf.get(key);
        if (s < 0) {
            if (slots == count.length) {
                count = Arrays.copyOf(count, slots * 2);
                recent = Arrays.copyOf(recent, slots * 2 * window);
            }
            s = slots++;
            slotOf.put(key, s);
        }
        return s;
    }

    /** Checks that every node has the same number of ranks, as NCCL's multi-node algorithms require. */
    static int[][] sameSize(int[][] nodes, String algorithm) {
        for (int[] node : nodes) {
            if (node.length != nodes[0].length) {
                throw new IllegalArgumentException(algorithm + " needs the same number of GPUs on every node");
            }
        }
        return nodes.clone();
    }
}
