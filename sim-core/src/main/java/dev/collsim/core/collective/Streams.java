package dev.collsim.core.collective;

import java.util.HashMap;
import java.util.Map;

/**
 * Streams of transfers that run in order (a connection, or one warp group of a channel on a rank):
 * each waits until the previous one's sender is free, and for the one {@link Protocol#STEPS}
 * earlier to be delivered, its buffer slot being needed again.
 */
final class Streams {
    private final ScheduleBuilder b;
    private final Map<Long, IntList> streams = new HashMap<>();

    Streams(ScheduleBuilder b) {
        this.b = b;
    }

    /** A stream key: what kind of stream, on which channel, from which rank to which (-1 for none). */
    static long key(int kind, int channel, int from, int to) {
        return ((long) kind << 58) | ((long) channel << 44) | ((long) (from + 1) << 22) | (to + 1);
    }

    /** Appends transfer {@code t} to the stream {@code key} and returns it. */
    int next(long key, int t) {
        IntList seq = streams.computeIfAbsent(key, k -> new IntList());
        if (seq.size() > 0) {
            b.afterSend(t, seq.get(seq.size() - 1));
        }
        if (seq.size() >= Protocol.STEPS) {
            b.afterDelivery(t, seq.get(seq.size() - Protocol.STEPS));
        }
        seq.add(t);
        return t;
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
