package dev.collsim.core.collective;

import java.util.Arrays;
import java.util.BitSet;

/** Growable arrays an algorithm fills with pieces, transfers and dependencies, then freezes. */
public final class ScheduleBuilder {
    private final CollectiveRequest request;
    private final String algorithm;
    private int n;
    private int[] src;
    private int[] dst;
    private int[] channel;
    private int[] step;
    private int[] piece;
    private long[] bytes;
    private boolean[] reduce;
    private TransferKind[] kind;
    private final PieceTable pieces = new PieceTable();
    private int edges;
    private int[] edgeFrom;
    /** The dependent transfer and the kind of the dependency, as {@link Schedule#successors} gives them. */
    private int[] edgeEntry;
    private boolean built;
    private ThreadSplit split = ThreadSplit.NONE;
    private final BitSet unsplit = new BitSet();
    private final BitSet postedWithPrevious = new BitSet();

    public ScheduleBuilder(CollectiveRequest request, String algorithm) {
        this(request, algorithm, new ScheduleSize(64, 128));
    }

    /**
     * A builder with room for {@code size}'s transfers and dependencies. An algorithm that knows
     * its counts passes them: a large schedule then fills its arrays once
     * and hands them over, instead of copying them at every doubling and again to trim them (at a
     * million transfers that copying, and the first touch of the memory it takes, cost more than
     * generating the schedule). More is taken when needed.
     */
    ScheduleBuilder(CollectiveRequest request, String algorithm, ScheduleSize size) {
        this.request = request;
        this.algorithm = algorithm;
        if (size.transfers() >= Schedule.MAX_TRANSFERS || size.dependencies() > ARRAY_LIMIT) {
            throw Schedule.tooLarge(request);
        }
        int t = room(size.transfers());
        src = new int[t];
        dst = new int[t];
        channel = new int[t];
        step = new int[t];
        piece = new int[t];
        bytes = new long[t];
        reduce = new boolean[t];
        kind = new TransferKind[t];
        int e = room(size.dependencies());
        edgeFrom = new int[e];
        edgeEntry = new int[e];
    }

    /** Room for {@code count} entries, no more than an array can hold (beyond that, growing fails as it would have). */
    static int room(long count) {
        return (int) Math.max(1, Math.min(count, ARRAY_LIMIT));
    }

    /** The most entries a Java array can hold. */
    private static final int ARRAY_LIMIT = Integer.MAX_VALUE - 8;

    /** Registers a byte range of the logical buffer; {@code segment} is its owner rank or -1. */
    public int piece(long offset, long length, int segment) {
        return piece(offset, length, segment, -1);
    }

    /** Registers a byte range owned by {@code segment} that must end at rank {@code dest} (alltoall, sendrecv). */
    public int piece(long offset, long length, int segment, int dest) {
        return pieces.add(offset, length, segment, dest);
    }

    /** The bytes of a registered piece. */
    public long pieceLength(int pieceId) {
        return pieces.length(pieceId);
    }

    /** Adds a point-to-point transfer of one piece and returns its number. */
    public int transfer(int channelId, int stepId, int from, int to, int pieceId, boolean reduces) {
        if (from == to || to < 0) {
            throw new IllegalArgumentException("a transfer from rank " + from + " to " + to);
        }
        return add(channelId, stepId, from, to, pieceId, reduces, TransferKind.P2P);
    }

    /** Splits each channel's threads as {@code split} says, for every transfer not marked {@link #unsplit}. */
    public void splitThreads(ThreadSplit split) {
        this.split = split;
    }

    /** Marks {@code t} as sent by its channel's whole thread block, whatever {@link #splitThreads} says. */
    public void unsplit(int t) {
        unsplit.set(t);
    }

    /**
     * Marks {@code t} as more of the buffer step its connection's previous transfer, {@code t - 1},
     * began: across nodes the proxy posts the step to the NIC once, not once a transfer.
     */
    public void postedWithPrevious(int t) {
        if (t < 1 || t >= n || src[t] != src[t - 1] || dst[t] != dst[t - 1] || channel[t] != channel[t - 1]) {
            throw new IllegalArgumentException("transfer " + t + " does not follow another on its connection");
        }
        postedWithPrevious.set(t);
    }

    /** Adds an in-switch all-reduce of one piece over the ranks on {@code anchor}'s switch. */
    public int switchAllReduce(int channelId, int stepId, int anchor, int pieceId) {
        return add(channelId, stepId, anchor, Schedule.ALL, pieceId, true, TransferKind.SWITCH_ALLREDUCE);
    }

    /** Adds an in-network all-reduce of one piece over the ranks on {@code anchor}'s SHARP switch. */
    public int networkAllReduce(int channelId, int stepId, int anchor, int pieceId) {
        return add(channelId, stepId, anchor, Schedule.ALL, pieceId, true, TransferKind.NETWORK_ALLREDUCE);
    }

    /** Adds an in-switch reduction of one piece, from every rank on {@code head}'s switch to {@code head}. */
    public int switchReduce(int channelId, int stepId, int head, int pieceId) {
        return add(channelId, stepId, Schedule.ALL, head, pieceId, true, TransferKind.SWITCH_REDUCE);
    }

    /** Adds a multicast of one piece from {@code head} to every rank on its switch. */
    public int switchMulticast(int channelId, int stepId, int head, int pieceId) {
        return add(channelId, stepId, head, Schedule.ALL, pieceId, false, TransferKind.SWITCH_MULTICAST);
    }

    /** Adds a copy of one piece inside {@code rank}'s memory. */
    public int localCopy(int channelId, int stepId, int rank, int pieceId) {
        return add(channelId, stepId, rank, rank, pieceId, false, TransferKind.LOCAL_COPY);
    }

    /** Adds a copy of {@code bytes} inside {@code rank}'s memory, tracked as piece {@code pieceId}. */
    public int localCopy(int channelId, int stepId, int rank, int pieceId, long bytes) {
        int t = add(channelId, stepId, rank, rank, pieceId, false, TransferKind.LOCAL_COPY);
        this.bytes[t] = bytes;
        return t;
    }

    private int add(int channelId, int stepId, int from, int to, int pieceId, boolean reduces, TransferKind k) {
        checkNotBuilt();
        if (n == Schedule.MAX_TRANSFERS - 1) {
            throw Schedule.tooLarge(request);
        }
        if (n == src.length) {
            int cap = (int) Math.min(2L * n, Schedule.MAX_TRANSFERS);
            src = Arrays.copyOf(src, cap);
            dst = Arrays.copyOf(dst, cap);
            channel = Arrays.copyOf(channel, cap);
            step = Arrays.copyOf(step, cap);
            piece = Arrays.copyOf(piece, cap);
            bytes = Arrays.copyOf(bytes, cap);
            reduce = Arrays.copyOf(reduce, cap);
            kind = Arrays.copyOf(kind, cap);
        }
        src[n] = from;
        dst[n] = to;
        channel[n] = channelId;
        step[n] = stepId;
        piece[n] = pieceId;
        bytes[n] = pieces.length(pieceId);
        reduce[n] = reduces;
        kind[n] = k;
        return n++;
    }

    /** {@code t} starts only once {@code before}'s data is visible at its receiver. */
    public void afterDelivery(int t, int before) {
        edge(before, t, true);
    }

    /** {@code t} starts only once {@code before}'s sender is free again. */
    public void afterSend(int t, int before) {
        edge(before, t, false);
    }

    private void edge(int from, int to, boolean delivery) {
        checkNotBuilt();
        if (from < 0 || from >= n || to < 0 || to >= n || from == to) {
            throw new IllegalArgumentException("bad dependency " + from + " -> " + to);
        }
        if (edges == edgeFrom.length) {
            if (edges >= ARRAY_LIMIT) {
                throw Schedule.tooLarge(request);
            }
            int cap = (int) Math.min(2L * edges, ARRAY_LIMIT);
            edgeFrom = Arrays.copyOf(edgeFrom, cap);
            edgeEntry = Arrays.copyOf(edgeEntry, cap);
        }
        edgeFrom[edges] = from;
        edgeEntry[edges] = to << 1 | (delivery ? 1 : 0);
        edges++;
    }

    public int transferCount() {
        return n;
    }

    /** The schedule; the builder hands its arrays over and cannot be used again. */
    public Schedule build() {
        checkNotBuilt();
        built = true;
        int[] succStart = new int[n + 1];
        for (int e = 0; e < edges; e++) {
            succStart[edgeFrom[e] + 1]++;
        }
        for (int t = 0; t < n; t++) {
            succStart[t + 1] += succStart[t];
        }
        // Filled from the back, each transfer's range keeps the order its successors were added in,
        // and succStart[t + 1] comes down to where t's range starts.
        int[] succ = new int[edges];
        for (int e = edges - 1; e >= 0; e--) {
            succ[--succStart[edgeFrom[e] + 1]] = edgeEntry[e];
        }
        System.arraycopy(succStart, 1, succStart, 0, n);
        succStart[n] = edges;
        edgeFrom = null;
        edgeEntry = null;
        return new ArraySchedule(request, algorithm, n, fit(src), fit(dst), fit(channel), fit(step), fit(piece),
                bytes.length == n ? bytes : Arrays.copyOf(bytes, n), reduce.length == n ? reduce : Arrays.copyOf(reduce, n),
                kind.length == n ? kind : Arrays.copyOf(kind, n), succStart, succ, pieces, split, unsplit, postedWithPrevious);
    }

    private void checkNotBuilt() {
        if (built) {
            throw new IllegalStateException("the schedule is built; its builder cannot change it");
        }
    }

    private int[] fit(int[] a) {
        return a.length == n ? a : Arrays.copyOf(a, n);
    }
}
