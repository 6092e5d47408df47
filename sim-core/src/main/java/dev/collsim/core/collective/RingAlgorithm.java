package dev.collsim.core.collective;

import static dev.collsim.core.collective.Sizes.alignUp;
import static dev.collsim.core.collective.Sizes.ceilDiv;
import static dev.collsim.core.collective.Sizes.channelBytes;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * NCCL's ring algorithm, chunk by chunk (after {@code src/device/all_reduce.h},
 * {@code all_gather.h}, {@code reduce_scatter.h}, {@code broadcast.h}, {@code reduce.h}).
 *
 * <p>The buffer is split into one contiguous range per channel. Each channel runs its own ring:
 * <ul>
 *   <li>all_reduce: loops of n blocks; in 2(n-1) steps each rank sends block (p-1-k) to its
 *       successor, reducing in the first n-1 steps (reduce-scatter) and copying in the rest
 *       (all-gather);</li>
 *   <li>reduce_scatter and all_gather: the same first or second half, over each rank's segment;</li>
 *   <li>broadcast and reduce: a chain from the root (or to it), pipelined chunk by chunk.</li>
 * </ul>
 * Simple all_reduce, all_gather and reduce_scatter move chunks of 4 buffer steps as 2 slices of 2
 * steps; everything else moves one step per transfer. A sender may run at most {@link
 * Protocol#STEPS} steps ahead of its receiver: that credit is a dependency on the transfer that
 * freed the slot.
 */
public final class RingAlgorithm implements CollectiveAlgorithm {
    private static final int CHUNK_STEPS = Protocol.STEPS / 2;
    private static final int SLICE_STEPS = Protocol.STEPS / 4;
    private static final long ALIGN = 16;

    private final int[][] orders;

    /** A ring in rank order 0, 1, ..., n-1 on every channel. */
    public static RingAlgorithm inRankOrder(int nRanks) {
        int[] order = new int[nRanks];
        Arrays.setAll(order, i -> i);
        return new RingAlgorithm(new int[][] {order});
    }

    /**
     * @param orders per channel (channel c uses {@code orders[c % orders.length]}), ring position to
     *               rank; position p sends to position p+1
     */
    public RingAlgorithm(int[][] orders) {
        if (orders.length == 0) {
            throw new IllegalArgumentException("a ring needs at least one order");
        }
        for (int[] order : orders) {
            boolean[] seen = new boolean[orders[0].length];
            for (int r : order) {
                if (order.length != seen.length || r < 0 || r >= order.length || seen[r]) {
                    throw new IllegalArgumentException("ring order is not a permutation: " + Arrays.toString(order));
                }
                seen[r] = true;
            }
        }
        this.orders = Arrays.stream(orders).map(int[]::clone).toArray(int[][]::new);
    }

    @Override
    public String name() {
        return "Ring";
    }

    @Override
    public Schedule schedule(CollectiveRequest req) {
        if (req.nRanks() != orders[0].length) {
            throw new IllegalArgumentException("ring of " + orders[0].length + " ranks asked for " + req.nRanks());
        }
        if (req.op() == CollectiveOp.ALL_TO_ALL || req.op() == CollectiveOp.SEND_RECV) {
            throw new IllegalArgumentException(req.op().ncclName() + " runs point to point, not on a ring");
        }
        return generate(req, req.nRanks());
    }

    /**
     * One orbit of the schedule when it is the same under turning every ring by {@code d} positions
     * (the smallest such {@code d}, less than the ring): the transfers of ring positions 0..d-1, each
     * waiting on the transfers of its own orbit that it waits on in the whole schedule, which are the
     * same transfers moved by a turn. That needs every channel's ring to turn by the same map of ranks,
     * and every block of an all_reduce loop to be as long as the others. Broadcast and reduce start at
     * a root, so they have no such turn.
     */
    @Override
    public Optional<FoldedSchedule> folded(CollectiveRequest req) {
        int n = req.nRanks();
        if (chained(req.op()) || req.op() == CollectiveOp.ALL_TO_ALL || req.op() == CollectiveOp.SEND_RECV
                || n != orders[0].length || n < 2 || !blocksAlike(req)) {
            return Optional.empty();
        }
        int usedOrders = Math.min(orders.length, req.channels());
        for (int d = 1; d < n; d++) {
            if (n % d != 0) {
                continue;
            }
            int[] turn = new int[n];
            for (int p = 0; p < n; p++) {
                turn[orders[0][p]] = orders[0][(p + d) % n];
            }
            boolean same = true;
            for (int o = 1; o < usedOrders && same; o++) {
                for (int p = 0; p < n && same; p++) {
                    same = turn[orders[o][p]] == orders[o][(p + d) % n];
                }
            }
            if (same) {
                return Optional.of(new FoldedSchedule(generate(req, d), turn, n / d));
            }
        }
        return Optional.empty();
    }

    /** Whether every loop of an all_reduce cuts its bytes into blocks of one length (other ops move whole segments). */
    private static boolean blocksAlike(CollectiveRequest req) {
        if (req.op() != CollectiveOp.ALL_REDUCE) {
            return true;
        }
        int n = req.nRanks();
        Chunking chunking = new Chunking(req);
        long perRank = req.bytesPerRankSegment();
        long perChannel = alignUp(ceilDiv(perRank, req.channels()), req.protocol().grainBytes());
        long loopSize = chunking.loopSize(n);
        for (int c = 0; c < req.channels() && channelBytes(perRank, perChannel, c) > 0; c++) {
            long bytes = channelBytes(perRank, perChannel, c);
            for (long off = 0; off < bytes; off += loopSize) {
                long rem = Math.min(loopSize, bytes - off);
                if (chunking.block(n, rem) * n != rem) {
                    return false;
                }
            }
        }
        return true;
    }

    /** The transfers of ring positions 0..positions-1 ({@code nRanks} of them: the whole schedule). */
    private Schedule generate(CollectiveRequest req, int positions) {
        long perRank = req.bytesPerRankSegment();
        long perChannel = alignUp(ceilDiv(perRank, req.channels()), req.protocol().grainBytes());
        if (chained(req.op())) {
            Gen gen = new Gen(req, size(req, positions));
            for (int c = 0; c < req.channels() && channelBytes(perRank, perChannel, c) > 0; c++) {
                gen.chainChannel(c, c * perChannel, channelBytes(perRank, perChannel, c));
            }
            return gen.finish();
        }
        return ringSchedule(req, positions, perRank, perChannel);
    }

    /**
     * all_reduce, reduce_scatter and all_gather: each channel's range of each rank's buffer (or
     * segment) in loops of blocks, a block a rank, each block in slices; the pieces registered here,
     * the transfers worked out by {@link RingSchedule}.
     */
    private Schedule ringSchedule(CollectiveRequest req, int positions, long perRank, long perChannel) {
        int n = req.nRanks();
        Chunking chunking = new Chunking(req);
        boolean perSegment = req.op().sizeIsTotal();
        long loopSize = chunking.loopSize(n);
        PieceTable pieces = new PieceTable();
        List<int[]> loopSlices = new ArrayList<>();
        List<int[]> loopPieces = new ArrayList<>();
        for (int c = 0; c < req.channels() && channelBytes(perRank, perChannel, c) > 0; c++) {
            int[] order = orders[c % orders.length];
            long chanOffset = c * perChannel;
            long chanBytes = channelBytes(perRank, perChannel, c);
            int loops = (int) ceilDiv(chanBytes, loopSize);
            int[] slicesOf = new int[loops];
            int[] firstPiece = new int[loops];
            for (int loop = 0; loop < loops; loop++) {
                long off = loop * loopSize;
                long rem = Math.min(loopSize, chanBytes - off);
                long block = chunking.block(n, rem);
                long slice = chunking.slice(block);
                int slices = chunking.slices(block);
                slicesOf[loop] = slices;
                firstPiece[loop] = pieces.count();
                for (int blk = 0; blk < n; blk++) {
                    long blockLen = perSegment ? rem : Math.max(0, Math.min(block, rem - blk * block));
                    long base = perSegment ? (long) order[blk] * perRank + chanOffset + off : chanOffset + off + blk * block;
                    for (int s = 0; s < slices; s++) {
                        pieces.add(base + s * slice, Math.max(0, Math.min(slice, blockLen - s * slice)), perSegment ? order[blk] : -1, -1);
                    }
                }
            }
            loopSlices.add(slicesOf);
            loopPieces.add(firstPiece);
        }
        return new RingSchedule(req, name(), pieces, orders, positions, chunking.window(), loopSlices.toArray(new int[0][]),
                loopPieces.toArray(new int[0][]), size(req, positions));
    }

    private static boolean chained(CollectiveOp op) {
        return op == CollectiveOp.BROADCAST || op == CollectiveOp.REDUCE;
    }

    /**
     * The transfers and dependencies {@link #schedule} builds for {@code req}, counted without
     * building them, so that its builder is sized once. Every
     * connection carries the same number of transfers; each waits for the one before it on its
     * connection, for the slot it reuses {@link Chunking#window} transfers back, and (after the
     * first step, or the first link of a chain) for the transfer that delivered what it forwards.
     */
    ScheduleSize size(CollectiveRequest req) {
        return size(req, req.nRanks());
    }

    /** As {@link #size(CollectiveRequest)}, for the transfers of ring positions 0..positions-1. */
    private ScheduleSize size(CollectiveRequest req, int positions) {
        int n = req.nRanks();
        Chunking chunking = new Chunking(req);
        long perRank = req.bytesPerRankSegment();
        long perChannel = alignUp(ceilDiv(perRank, req.channels()), req.protocol().grainBytes());
        long transfers = 0;
        long dependencies = 0;
        for (int c = 0; c < req.channels() && channelBytes(perRank, perChannel, c) > 0; c++) {
            long bytes = channelBytes(perRank, perChannel, c);
            long connections;
            long perConnection = 0;
            long forwarded = 0;
            if (chained(req.op())) {
                connections = n - 1;
                perConnection = ceilDiv(bytes, chunking.chunk);
                forwarded = Math.max(0, n - 2) * perConnection;
            } else {
                connections = positions;
                int steps = req.op() == CollectiveOp.ALL_REDUCE ? 2 * (n - 1) : n - 1;
                long loopSize = chunking.loopSize(n);
                for (long off = 0; off < bytes; off += loopSize) {
                    int slices = chunking.slices(chunking.block(n, Math.min(loopSize, bytes - off)));
                    perConnection += (long) steps * slices;
                    forwarded += Math.max(0, steps - 1L) * positions * slices;
                }
            }
            transfers += connections * perConnection;
            dependencies += forwarded + connections * (Math.max(0, perConnection - 1) + Math.max(0, perConnection - chunking.window));
        }
        return new ScheduleSize(transfers, dependencies);
    }

    /** How a channel's range is cut: loops of blocks, blocks of slices, and the slots a connection has. */
    static final class Chunking {
        private final Protocol proto;
        private final boolean sliced;
        private final boolean perSegment;
        /** Transfers a connection may have in flight: its buffer's slots. */
        private final int window;
        private final long chunk;

        Chunking(CollectiveRequest req) {
            this.proto = req.protocol();
            this.sliced = proto == Protocol.SIMPLE
                    && (req.op() == CollectiveOp.ALL_REDUCE || req.op() == CollectiveOp.ALL_GATHER
                    || req.op() == CollectiveOp.REDUCE_SCATTER);
            this.perSegment = req.op().sizeIsTotal();
            this.window = Protocol.STEPS / (sliced ? SLICE_STEPS : 1);
            this.chunk = proto.stepDataBytes() * (sliced ? CHUNK_STEPS : 1);
        }

        int window() {
            return window;
        }

        /** Bytes of a channel's range one loop of the ring covers. */
        long loopSize(int n) {
            return perSegment ? chunk : n * chunk;
        }

        /** The block each rank handles in a loop covering {@code rem} bytes. */
        long block(int n, long rem) {
            return perSegment ? rem : Math.min(chunk, alignUp(ceilDiv(rem, n), ALIGN));
        }

        long slice(long block) {
            if (!sliced) {
                return Math.max(block, 1);
            }
            long minSlice = proto.stepDataBytes() * SLICE_STEPS / 32;
            return Math.max(alignUp(ceilDiv(block, CHUNK_STEPS / SLICE_STEPS), ALIGN), minSlice);
        }

        int slices(long block) {
            return (int) Math.max(1, ceilDiv(block, slice(block)));
        }
    }

    /** Broadcast and reduce chains, built transfer by transfer: each connection's transfers in order, and who consumes what. */
    private final class Gen {
        private final CollectiveRequest req;
        private final ScheduleBuilder b;
        private final int n;
        private final Chunking chunking;
        private final List<IntList> connections = new ArrayList<>();
        private int[] consumer;

        Gen(CollectiveRequest req, ScheduleSize size) {
            this.req = req;
            this.n = req.nRanks();
            this.chunking = new Chunking(req);
            this.b = new ScheduleBuilder(req, name(), size);
            this.consumer = new int[ScheduleBuilder.room(size.transfers())];
        }

        /** broadcast (chain from the root) and reduce (chain ending at the root) on one channel. */
        void chainChannel(int c, long chanOffset, long chanBytes) {
            int[] order = orders[c % orders.length];
            boolean reduce = req.op() == CollectiveOp.REDUCE;
            int rootPos = 0;
            while (order[rootPos] != req.root()) {
                rootPos++;
            }
            // chain[q] is the ring position of the q-th rank along the chain.
            int[] chain = new int[n];
            for (int q = 0; q < n; q++) {
                chain[q] = (rootPos + (reduce ? 1 + q : q)) % n;
            }
            long chunk = chunking.chunk;
            int[] previous = new int[n];
            for (long off = 0; off < chanBytes; off += chunk) {
                int piece = b.piece(chanOffset + off, Math.min(chunk, chanBytes - off), -1);
                for (int q = 0; q + 1 < n; q++) {
                    int t = send(c, (int) (off / chunk), chain[q], chain[q + 1], piece, reduce);
                    if (q > 0) {
                        consumes(t, previous[q - 1]);
                    }
                    previous[q] = t;
                }
            }
        }

        /** Adds a transfer from ring position {@code from} to {@code to}, in order on its connection. */
        private int send(int c, int step, int from, int to, int piece, boolean reduce) {
            int[] order = orders[c % orders.length];
            int t = b.transfer(c, step, order[from], order[to], piece, reduce);
            int key = c * n + from;
            while (connections.size() <= key) {
                connections.add(new IntList());
            }
            IntList conn = connections.get(key);
            if (conn.size() > 0) {
                b.afterSend(t, conn.get(conn.size() - 1));
            }
            conn.add(t);
            if (t >= consumer.length) {
                consumer = Arrays.copyOf(consumer, consumer.length * 2);
            }
            consumer[t] = -1;
            return t;
        }

        /** {@code t} forwards (or reduces and forwards) what {@code received} delivered. */
        private void consumes(int t, int received) {
            b.afterDelivery(t, received);
            consumer[received] = t;
        }

        /** Adds the buffer-slot credits: a sender waits until the slot it reuses was drained. */
        Schedule finish() {
            for (IntList conn : connections) {
                for (int i = chunking.window; i < conn.size(); i++) {
                    int freedBy = conn.get(i - chunking.window);
                    int drain = consumer[freedBy];
                    if (drain >= 0) {
                        b.afterSend(conn.get(i), drain);
                    } else {
                        b.afterDelivery(conn.get(i), freedBy);
                    }
                }
            }
            return b.build();
        }
    }
}
