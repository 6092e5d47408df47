package dev.collsim.core.collective;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

/**
 * A ring's all_reduce, reduce_scatter or all_gather, worked out from each transfer's number instead
 * of held: at 1,024 ranks a gibibyte's ring takes 34 million transfers, which held one by one took
 * 3.2 GB. Numbered, and each transfer's successors listed, exactly as {@link RingAlgorithm} would
 * add them one by one to a {@link ScheduleBuilder}: channel by channel, loop by loop, step by step,
 * ring position by position, slice by slice.
 *
 * <p>A transfer is (channel, loop, step k, position p, slice s). It waits for the one before it on
 * its connection (channel, p), for the transfer of step k-1 from position p-1 that delivered what it
 * forwards, and for the slot it reuses: the transfer {@code window} places back on its connection
 * must have been forwarded by the next position (or, in the last step, delivered). Over {@code
 * positions < n} positions (one orbit of a folded ring) position p-1 is taken modulo the positions.
 */
final class RingSchedule extends Schedule {
    /** One loop of one channel: its transfers from {@code first}, its pieces from {@code firstPiece}. */
    private record Loop(int channel, int index, int first, int slices, int firstPiece, int connFirst) {}

    private final int n;
    private final int positions;
    private final int steps;
    private final int window;
    private final boolean reduceScatterHalf;
    private final boolean allReduce;
    /** The ring step whose sender keeps a copy of what it sends ({@link #copiesLocally}). */
    private final int localCopyStep;
    private final int shift;
    private final int[][] orders;
    private final Loop[] loops;
    /** Per channel, the transfers one connection carries. */
    private final int[] connSize;
    /** Per channel, its first loop. */
    private final int[] channelLoop;
    private final int transfers;
    private final long dependencies;
    /** The loop each block of {@code 1 << blockShift} transfers starts in; no loop is shorter than a block. */
    private final int[] blockLoop;
    private final int blockShift;

    /**
     * @param loopSlices per channel used, the slices of each of its loops
     * @param loopPieces per channel used, the first piece of each of its loops
     */
    RingSchedule(CollectiveRequest request, String algorithm, PieceTable pieces, int[][] orders, int positions, int window,
                 int[][] loopSlices, int[][] loopPieces, ScheduleSize size) {
        super(request, algorithm, pieces);
        this.n = request.nRanks();
        this.positions = positions;
        CollectiveOp op = request.op();
        this.allReduce = op == CollectiveOp.ALL_REDUCE;
        this.reduceScatterHalf = op == CollectiveOp.REDUCE_SCATTER;
        this.steps = allReduce ? 2 * (n - 1) : n - 1;
        this.shift = op == CollectiveOp.ALL_GATHER ? 0 : 1;
        this.localCopyStep = op == CollectiveOp.ALL_GATHER ? 0 : allReduce ? n - 1 : steps - 1;
        this.window = window;
        this.orders = orders;
        if (size.transfers() >= MAX_TRANSFERS) {
            throw tooLarge(request);
        }
        List<Loop> all = new ArrayList<>();
        connSize = new int[loopSlices.length];
        channelLoop = new int[loopSlices.length];
        int first = 0;
        int shortest = Integer.MAX_VALUE;
        for (int c = 0; c < loopSlices.length; c++) {
            channelLoop[c] = all.size();
            int conn = 0;
            for (int l = 0; l < loopSlices[c].length; l++) {
                int slices = loopSlices[c][l];
                all.add(new Loop(c, l, first, slices, loopPieces[c][l], conn));
                int loopTransfers = steps * positions * slices;
                first += loopTransfers;
                conn += steps * slices;
                shortest = Math.min(shortest, loopTransfers);
            }
            connSize[c] = conn;
        }
        this.loops = all.toArray(new Loop[0]);
        this.transfers = first;
        this.dependencies = size.dependencies();
        this.blockShift = 31 - Integer.numberOfLeadingZeros(Math.max(1, shortest));
        this.blockLoop = new int[(transfers >>> blockShift) + 1];
        for (int l = 0, b = 0; b < blockLoop.length; b++) {
            while (l + 1 < loops.length && (long) b << blockShift >= loops[l + 1].first) {
                l++;
            }
            blockLoop[b] = l;
        }
    }

    private Loop loopOf(int t) {
        int l = blockLoop[t >>> blockShift];
        return l + 1 < loops.length && t >= loops[l + 1].first ? loops[l + 1] : loops[l];
    }

    /** The transfer's place in its loop: {@code (k * positions + p) * slices + s}. */
    private static int offset(Loop loop, int t) {
        return t - loop.first;
    }

    private int position(Loop loop, int t) {
        return offset(loop, t) / loop.slices % positions;
    }

    private int stepOf(Loop loop, int t) {
        return offset(loop, t) / loop.slices / positions;
    }

    private int[] order(Loop loop) {
        return orders[loop.channel % orders.length];
    }

    @Override
    public int transferCount() {
        return transfers;
    }

    @Override
    public int src(int t) {
        Loop loop = loopOf(t);
        return order(loop)[position(loop, t)];
    }

    @Override
    public int dst(int t) {
        Loop loop = loopOf(t);
        return order(loop)[(position(loop, t) + 1) % n];
    }

    @Override
    public int channel(int t) {
        return loopOf(t).channel;
    }

    @Override
    public int step(int t) {
        Loop loop = loopOf(t);
        return loop.index * steps + stepOf(loop, t);
    }

    @Override
    public int piece(int t) {
        Loop loop = loopOf(t);
        int o = offset(loop, t);
        int s = o % loop.slices;
        int p = o / loop.slices % positions;
        int k = o / loop.slices / positions;
        int blk = Math.floorMod(p - shift - k, n);
        return loop.firstPiece + blk * loop.slices + s;
    }

    @Override
    public long bytes(int t) {
        return pieceLength(piece(t));
    }

    @Override
    public boolean reduces(int t) {
        return reduceScatterHalf || (allReduce && stepOf(loopOf(t), t) < n - 1);
    }

    @Override
    public TransferKind kind(int t) {
        return TransferKind.P2P;
    }

    @Override
    public boolean copiesLocally(int t) {
        return stepOf(loopOf(t), t) == localCopyStep;
    }

    @Override
    public long dependencyCount() {
        return dependencies;
    }

    @Override
    public int maxSuccessors() {
        return 4;
    }

    /** The transfer at place {@code i} of the connection of {@code channel}'s position {@code p}. */
    private int onConnection(int channel, int p, int i) {
        int l = channelLoop[channel];
        while (l + 1 < loops.length && loops[l + 1].channel == channel && loops[l + 1].connFirst <= i) {
            l++;
        }
        Loop loop = loops[l];
        int j = i - loop.connFirst;
        int k = j / loop.slices;
        int s = j % loop.slices;
        return loop.first + (k * positions + p) * loop.slices + s;
    }

    @Override
    public int successors(int t, int[] into) {
        Loop loop = loopOf(t);
        int o = offset(loop, t);
        int s = o % loop.slices;
        int p = o / loop.slices % positions;
        int k = o / loop.slices / positions;
        int c = loop.channel;
        int idx = loop.connFirst + k * loop.slices + s;
        int count = 0;
        // Added as the builder met them: the next transfer on the connection (a send dependency) and
        // the one that forwards this one (a delivery), in the order of their numbers.
        int next = idx + 1 < connSize[c] ? onConnection(c, p, idx + 1) : -1;
        int forward = k + 1 < steps ? loop.first + ((k + 1) * positions + (p + 1) % positions) * loop.slices + s : -1;
        if (next >= 0 && (forward < 0 || next <= forward)) {
            into[count++] = next << 1;
            next = -1;
        }
        if (forward >= 0) {
            into[count++] = forward << 1 | 1;
        }
        if (next >= 0) {
            into[count++] = next << 1;
        }
        // Then the slot credits, connection by connection: as the forwarder of the transfer it
        // received (on the previous position's connection), and in the last step as the transfer
        // whose slot its own connection reuses.
        int before = Math.floorMod(p - 1, positions);
        int credit = -1;
        if (k >= 1) {
            int received = loop.connFirst + (k - 1) * loop.slices + s;
            if (received + window < connSize[c]) {
                credit = onConnection(c, before, received + window) << 1;
            }
        }
        int own = k + 1 == steps && idx + window < connSize[c] ? onConnection(c, p, idx + window) << 1 | 1 : -1;
        boolean ownFirst = before > p;
        if (own >= 0 && ownFirst) {
            into[count++] = own;
        }
        if (credit >= 0) {
            into[count++] = credit;
        }
        if (own >= 0 && !ownFirst) {
            into[count++] = own;
        }
        return count;
    }

    @Override
    public void countPredecessors(int[] counts) {
        for (Loop loop : loops) {
            for (int k = 0; k < steps; k++) {
                for (int p = 0; p < positions; p++) {
                    for (int s = 0; s < loop.slices; s++) {
                        int idx = loop.connFirst + k * loop.slices + s;
                        counts[loop.first + (k * positions + p) * loop.slices + s] +=
                                (idx > 0 ? 1 : 0) + (k > 0 ? 1 : 0) + (idx >= window ? 1 : 0);
                    }
                }
            }
        }
    }

    @Override
    public IntStream representatives() {
        // Every pair a channel's ring joins: its first step.
        return IntStream.of(channelLoop).flatMap(l -> IntStream.range(loops[l].first, loops[l].first + positions * loops[l].slices));
    }
}
