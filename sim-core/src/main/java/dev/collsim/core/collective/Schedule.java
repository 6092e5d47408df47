package dev.collsim.core.collective;

/**
 * A collective as a directed acyclic graph of chunk transfers, built by an algorithm and run by a
 * {@link ScheduleRunner}. Transfers are numbered 0..n-1; every array below is indexed by that number.
 *
 * <p>A transfer moves {@code bytes(t)} of data of one {@linkplain #piece piece} of the buffer from
 * rank {@code src(t)} to rank {@code dst(t)} on one channel, and either reduces it into what the
 * receiver holds or copies it there. It may start once each of its dependencies is met: a
 * <em>delivery</em> dependency waits until the other transfer's data is visible at its receiver; a
 * <em>send</em> dependency waits until the other transfer's sender is free again (the same
 * connection in order, or a buffer slot handed back).
 *
 * <p>A {@link TransferKind#SWITCH_ALLREDUCE} transfer has {@code dst(t) == ALL}: its sender names
 * the switch (the one that rank's GPU hangs off), and every rank on that switch both contributes
 * and receives.
 *
 * <p>Pieces are the byte ranges of the logical buffer that the schedule moves: the unit in which
 * the {@link ContributionTracker} checks that every rank ends with the right contributions.
 */
public final class Schedule {
    /** {@code dst} of a transfer that reaches every rank of the sender's switch. */
    public static final int ALL = -1;

    private final CollectiveRequest request;
    private final String algorithm;
    private final int n;
    private final int[] src;
    private final int[] dst;
    private final int[] channel;
    private final int[] step;
    private final int[] piece;
    private final long[] bytes;
    private final boolean[] reduce;
    private final TransferKind[] kind;
    private final int[] succStart;
    private final int[] succ;
    private final long[] pieceOffset;
    private final long[] pieceLength;
    private final int[] pieceSegment;
    private final int[] pieceDest;

    Schedule(CollectiveRequest request, String algorithm, int n, int[] src, int[] dst, int[] channel, int[] step,
             int[] piece, long[] bytes, boolean[] reduce, TransferKind[] kind, int[] succStart, int[] succ,
             long[] pieceOffset, long[] pieceLength, int[] pieceSegment, int[] pieceDest) {
        this.request = request;
        this.algorithm = algorithm;
        this.n = n;
        this.src = src;
        this.dst = dst;
        this.channel = channel;
        this.step = step;
        this.piece = piece;
        this.bytes = bytes;
        this.reduce = reduce;
        this.kind = kind;
        this.succStart = succStart;
        this.succ = succ;
        this.pieceOffset = pieceOffset;
        this.pieceLength = pieceLength;
        this.pieceSegment = pieceSegment;
        this.pieceDest = pieceDest;
    }

    public CollectiveRequest request() {
        return request;
    }

    public String algorithm() {
        return algorithm;
    }

    public int transferCount() {
        return n;
    }

    public int src(int t) {
        return src[t];
    }

    public int dst(int t) {
        return dst[t];
    }

    public int channel(int t) {
        return channel[t];
    }

    /** The algorithm's step number of a transfer (for the teaching view). */
    public int step(int t) {
        return step[t];
    }

    public int piece(int t) {
        return piece[t];
    }

    /** Data bytes (not wire bytes) the transfer moves. */
    public long bytes(int t) {
        return bytes[t];
    }

    /** True if the receiver reduces the data into what it holds, false if it copies it. */
    public boolean reduces(int t) {
        return reduce[t];
    }

    public TransferKind kind(int t) {
        return kind[t];
    }

    /**
     * The rank an in-switch or in-network operation is anchored at, whose switch it runs on: the
     * receiver of a reduction to one rank ({@code src(t) == ALL}), the sender otherwise.
     */
    public int anchor(int t) {
        return kind[t] == TransferKind.SWITCH_REDUCE ? dst[t] : src[t];
    }

    /** Dependencies of all transfers together: the entries {@link #successorEntry(int)} holds. */
    public int dependencyCount() {
        return succ.length;
    }

    /** Start (inclusive) of t's successors in {@link #successorEntry(int)}. */
    public int successorsFrom(int t) {
        return succStart[t];
    }

    /** End (exclusive) of t's successors. */
    public int successorsTo(int t) {
        return succStart[t + 1];
    }

    /** The successor at an index: {@code transfer << 1 | 1} if it waits for delivery, {@code | 0} if for the send. */
    public int successorEntry(int i) {
        return succ[i];
    }

    public int pieceCount() {
        return pieceOffset.length;
    }

    /** Offset of a piece in the logical buffer (one rank's buffer, or the whole all_gather output). */
    public long pieceOffset(int p) {
        return pieceOffset[p];
    }

    public long pieceLength(int p) {
        return pieceLength[p];
    }

    /** The rank whose segment a piece belongs to (all_gather, reduce_scatter, alltoall, sendrecv), or -1. */
    public int pieceSegment(int p) {
        return pieceSegment[p];
    }

    /** The rank a piece must reach (alltoall, sendrecv), or -1. */
    public int pieceDest(int p) {
        return pieceDest[p];
    }

    /** Total data bytes one rank sends point to point. */
    public long bytesSentBy(int rank) {
        long sum = 0;
        for (int t = 0; t < n; t++) {
            if (src[t] == rank && kind[t] == TransferKind.P2P) {
                sum += bytes[t];
            }
        }
        return sum;
    }
}
