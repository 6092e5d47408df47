package dev.collsim.core.collective;

import java.util.BitSet;
import java.util.stream.IntStream;

/** A schedule that holds every transfer and dependency in arrays indexed by transfer number. */
final class ArraySchedule extends Schedule {
    private final int n;
    private final int[] src;
    private final int[] dst;
    private final int[] channel;
    private final int[] step;
    private final int[] piece;
    private final long[] bytes;
    private final boolean[] reduce;
    private final TransferKind[] kind;
    /** Transfer t's successors are {@code succ[succStart[t]]..succ[succStart[t + 1] - 1]}. */
    private final int[] succStart;
    private final int[] succ;
    private final int maxSuccessors;
    private final ThreadSplit split;
    /** Transfers sent by a channel's whole thread block although the schedule splits its threads. */
    private final BitSet unsplit;
    private final BitSet postedWithPrevious;

    ArraySchedule(CollectiveRequest request, String algorithm, int n, int[] src, int[] dst, int[] channel, int[] step,
                  int[] piece, long[] bytes, boolean[] reduce, TransferKind[] kind, int[] succStart, int[] succ,
                  PieceTable pieces, ThreadSplit split, BitSet unsplit,
                  BitSet postedWithPrevious) {
        super(request, algorithm, pieces);
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
        this.split = split;
        this.unsplit = unsplit;
        this.postedWithPrevious = postedWithPrevious;
        int most = 0;
        for (int t = 0; t < n; t++) {
            most = Math.max(most, succStart[t + 1] - succStart[t]);
        }
        this.maxSuccessors = most;
    }

    @Override
    public int transferCount() {
        return n;
    }

    @Override
    public int src(int t) {
        return src[t];
    }

    @Override
    public int dst(int t) {
        return dst[t];
    }

    @Override
    public int channel(int t) {
        return channel[t];
    }

    @Override
    public int step(int t) {
        return step[t];
    }

    @Override
    public int piece(int t) {
        return piece[t];
    }

    @Override
    public long bytes(int t) {
        return bytes[t];
    }

    @Override
    public boolean reduces(int t) {
        return reduce[t];
    }

    @Override
    public double threadShare(int t) {
        return unsplit.get(t) ? 1 : split.share(reduce[t]);
    }

    @Override
    public boolean postedWithPrevious(int t) {
        return postedWithPrevious.get(t);
    }

    @Override
    public TransferKind kind(int t) {
        return kind[t];
    }

    @Override
    public long dependencyCount() {
        return succ.length;
    }

    @Override
    public int maxSuccessors() {
        return maxSuccessors;
    }

    @Override
    public int successors(int t, int[] into) {
        int from = succStart[t];
        int count = succStart[t + 1] - from;
        System.arraycopy(succ, from, into, 0, count);
        return count;
    }

    @Override
    public void countPredecessors(int[] counts) {
        for (int entry : succ) {
            counts[entry >>> 1]++;
        }
    }

    @Override
    public IntStream representatives() {
        return IntStream.range(0, n);
    }
}
