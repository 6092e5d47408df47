package dev.collsim.core.collective;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The ring's schedule worked out from transfer numbers ({@link RingSchedule}) is the one built
 * transfer by transfer with a {@link ScheduleBuilder} (below, as {@link RingAlgorithm} built it
 * before): every field of every transfer, every piece, and every transfer's successors in the order
 * the builder added them, which decides the order of events at one instant.
 */
class RingScheduleTest {
    @Test
    void theWorkedOutRingIsTheBuiltOneTransferForTransfer() {
        int compared = 0;
        for (CollectiveOp op : List.of(CollectiveOp.ALL_REDUCE, CollectiveOp.ALL_GATHER, CollectiveOp.REDUCE_SCATTER)) {
            for (int n : new int[] {2, 3, 5, 8}) {
                for (Protocol proto : Protocol.values()) {
                    for (int channels : new int[] {1, 3}) {
                        for (long perRank : new long[] {1, 4096, 300_000, 5_000_000}) {
                            long bytes = op.sizeIsTotal() ? perRank * n * 4 : perRank * 4;
                            CollectiveRequest req = new CollectiveRequest(op, n, bytes, 0, proto, channels);
                            int[][] orders = {rotated(n, 0), rotated(n, n - 1), rotated(n, 1)};
                            RingAlgorithm ring = new RingAlgorithm(orders);
                            SameSchedules.assertSameSchedule(built(req, orders, n), ring.schedule(req), req.toString());
                            compared++;
                            int[][] one = {rotated(n, 0)};
                            new RingAlgorithm(one).folded(req).ifPresent(f ->
                                    SameSchedules.assertSameSchedule(built(req, one, f.orbit().request().nRanks() / f.order()), f.orbit(), "folded " + req));
                        }
                    }
                }
            }
        }
        assertEquals(3 * 4 * 3 * 2 * 4, compared);
    }

    private static int[] rotated(int n, int by) {
        int[] order = new int[n];
        Arrays.setAll(order, i -> (i + by) % n);
        return order;
    }

    /** The ring built transfer by transfer over positions 0..positions-1, as RingAlgorithm did. */
    private static Schedule built(CollectiveRequest req, int[][] orders, int positions) {
        int n = req.nRanks();
        RingAlgorithm.Chunking chunking = new RingAlgorithm.Chunking(req);
        ScheduleBuilder b = new ScheduleBuilder(req, "Ring");
        List<IntList> connections = new ArrayList<>();
        int[] consumer = new int[1 << 16];
        long perRank = req.bytesPerRankSegment();
        long perChannel = Sizes.alignUp(Sizes.ceilDiv(perRank, req.channels()), req.protocol().grainBytes());
        CollectiveOp op = req.op();
        boolean perSegment = op.sizeIsTotal();
        int steps = op == CollectiveOp.ALL_REDUCE ? 2 * (n - 1) : n - 1;
        for (int c = 0; c < req.channels(); c++) {
            long chanOffset = c * perChannel;
            long chanBytes = Math.min(perRank, chanOffset + perChannel) - chanOffset;
            if (chanBytes <= 0) {
                break;
            }
            int[] order = orders[c % orders.length];
            long loopSize = chunking.loopSize(n);
            int loop = 0;
            int[] prevStep = new int[0];
            for (long off = 0; off < chanBytes; off += loopSize, loop++) {
                long rem = Math.min(loopSize, chanBytes - off);
                long block = chunking.block(n, rem);
                long slice = chunking.slice(block);
                int slices = chunking.slices(block);
                int[][] pieces = new int[n][slices];
                for (int blk = 0; blk < n; blk++) {
                    long blockLen = perSegment ? rem : Math.max(0, Math.min(block, rem - blk * block));
                    for (int s = 0; s < slices; s++) {
                        long len = Math.max(0, Math.min(slice, blockLen - s * slice));
                        long base = perSegment ? (long) order[blk] * req.bytesPerRankSegment() + chanOffset + off : chanOffset + off + blk * block;
                        pieces[blk][s] = b.piece(base + s * slice, len, perSegment ? order[blk] : -1);
                    }
                }
                int[] current = new int[positions * slices];
                for (int k = 0; k < steps; k++) {
                    boolean reduce = op == CollectiveOp.REDUCE_SCATTER || (op == CollectiveOp.ALL_REDUCE && k < n - 1);
                    int shift = op == CollectiveOp.ALL_GATHER ? 0 : 1;
                    for (int p = 0; p < positions; p++) {
                        int blk = Math.floorMod(p - shift - k, n);
                        for (int s = 0; s < slices; s++) {
                            int t = b.transfer(c, loop * steps + k, order[p], order[(p + 1) % n], pieces[blk][s], reduce);
                            int key = c * n + p;
                            while (connections.size() <= key) {
                                connections.add(new IntList());
                            }
                            IntList conn = connections.get(key);
                            if (conn.size() > 0) {
                                b.afterSend(t, conn.get(conn.size() - 1));
                            }
                            conn.add(t);
                            if (t >= consumer.length) {
                                consumer = Arrays.copyOf(consumer, 2 * consumer.length);
                            }
                            consumer[t] = -1;
                            if (k > 0) {
                                int received = prevStep[Math.floorMod(p - 1, positions) * slices + s];
                                b.afterDelivery(t, received);
                                consumer[received] = t;
                            }
                            current[p * slices + s] = t;
                        }
                    }
                    prevStep = current.clone();
                }
            }
        }
        for (IntList conn : connections) {
            for (int i = chunking.window(); i < conn.size(); i++) {
                int freedBy = conn.get(i - chunking.window());
                if (consumer[freedBy] >= 0) {
                    b.afterSend(conn.get(i), consumer[freedBy]);
                } else {
                    b.afterDelivery(conn.get(i), freedBy);
                }
            }
        }
        return b.build();
    }
}
