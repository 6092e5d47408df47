package dev.collsim.core.collective;

import dev.collsim.core.input.InputException;
import java.util.Locale;
import java.util.stream.IntStream;

/**
 * A collective as a directed acyclic graph of chunk transfers, built by an algorithm and run by a
 * {@link ScheduleRunner}. Transfers are numbered 0..n-1.
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
 *
 * <p>Most schedules hold every transfer ({@link ScheduleBuilder}); one whose channels repeat the
 * same step many times holds that step once ({@link SteppedSchedule}); a ring works its transfers
 * out from their numbers ({@link RingSchedule}).
 */
public abstract sealed class Schedule permits ArraySchedule, SteppedSchedule, RingSchedule, TreeSchedule {
    /** {@code dst} of a transfer that reaches every rank of the sender's switch. */
    public static final int ALL = -1;
    /** Successor entries hold {@code transfer << 1}: a schedule numbers fewer transfers than this. */
    static final int MAX_TRANSFERS = 1 << 30;

    /** The error for a collective whose schedule would number {@link #MAX_TRANSFERS} transfers or more. */
    static InputException tooLarge(CollectiveRequest request) {
        return new InputException(String.format(Locale.ROOT,
                "%s of %d bytes on %d ranks over %d channel(s) would take more than %,d transfers, more than one"
                        + " schedule can hold: try a smaller size, fewer channels or fewer ranks", request.op().ncclName(),
                request.bytes(), request.nRanks(), request.channels(), MAX_TRANSFERS));
    }

    private final CollectiveRequest request;
    private final String algorithm;
    private final long[] pieceOffset;
    private final long[] pieceLength;
    private final int[] pieceSegment;
    private final int[] pieceDest;

    Schedule(CollectiveRequest request, String algorithm, PieceTable pieces) {
        this.request = request;
        this.algorithm = algorithm;
        this.pieceOffset = pieces.offsets();
        this.pieceLength = pieces.lengths();
        this.pieceSegment = pieces.segments();
        this.pieceDest = pieces.dests();
    }

    public CollectiveRequest request() {
        return request;
    }

    public String algorithm() {
        return algorithm;
    }

    public abstract int transferCount();

    public abstract int src(int t);

    public abstract int dst(int t);

    public abstract int channel(int t);

    /** The algorithm's step number of a transfer (for the teaching view). */
    public abstract int step(int t);

    public abstract int piece(int t);

    /** Data bytes (not wire bytes) the transfer moves. */
    public abstract long bytes(int t);

    /** True if the receiver reduces the data into what it holds, false if it copies it. */
    public abstract boolean reduces(int t);

    /**
     * The share of its channel's threads that send {@code t}: 1 unless the algorithm splits a
     * channel's threads between groups that run at the same time (NCCL's tree: one group reduces up
     * while the other broadcasts down), each then moving data at its share of the channel's rate.
     */
    public double threadShare(int t) {
        return 1;
    }

    /**
     * True if the channel that sends {@code t} also stores {@code t}'s data in its own rank's output buffer, its threads
     * busy with that local copy before they send again: in NCCL's ring the rank's own slice of an all_gather
     * ({@code directCopySend}: input to output and to the next rank), the reduced slice an all_reduce keeps
     * ({@code directRecvReduceCopySend}) and a reduce_scatter's last step ({@code directRecvReduceCopy}), out of place
     * as nccl-tests times them.
     */
    public boolean copiesLocally(int t) {
        return false;
    }

    /**
     * True if {@code t} carries more of the buffer step that transfer {@code t - 1}, on the same
     * connection, began: a network proxy posts that step once ({@code sendProxyProgress} in
     * {@code transport/net.cc} hands the NIC one send per step), not once per transfer.
     */
    public boolean postedWithPrevious(int t) {
        return false;
    }

    public abstract TransferKind kind(int t);

    /**
     * The rank an in-switch or in-network operation is anchored at, whose switch it runs on: the
     * receiver of a reduction to one rank ({@code src(t) == ALL}), the sender otherwise.
     */
    public int anchor(int t) {
        return kind(t) == TransferKind.SWITCH_REDUCE ? dst(t) : src(t);
    }

    /** Dependencies of all transfers together. */
    public abstract long dependencyCount();

    /** The most successors any one transfer has: room enough for {@link #successors}. */
    public abstract int maxSuccessors();

    /**
     * Writes t's successors into {@code into} in the order they were added, each as {@code
     * transfer << 1 | 1} if it waits for t's delivery or {@code | 0} if for its send, and returns
     * how many.
     */
    public abstract int successors(int t, int[] into);

    /** Adds each transfer's number of dependencies to {@code counts[transfer]}. */
    public abstract void countPredecessors(int[] counts);

    /**
     * Transfers that between them have the kind, sender and receiver of every transfer (all of
     * them, or fewer where transfers repeat): what finding the routes a run takes needs to look at.
     */
    public abstract IntStream representatives();

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
        for (int t = 0, n = transferCount(); t < n; t++) {
            if (src(t) == rank && kind(t) == TransferKind.P2P) {
                sum += bytes(t);
            }
        }
        return sum;
    }
}
