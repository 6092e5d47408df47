package dev.collsim.core.collective;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The tree's schedule worked out from transfer numbers ({@link TreeSchedule}) is the one built
 * transfer by transfer (below, as {@link TreeAlgorithm} built it before): every field of every
 * transfer, its thread share and post, every piece, and every transfer's successors in the order
 * the builder added them.
 */
class TreeScheduleTest {
    @Test
    void theWorkedOutTreeIsTheBuiltOneTransferForTransfer() {
        int compared = 0;
        for (int[] shape : new int[][] {{1, 2}, {1, 5}, {2, 2}, {3, 4}, {5, 2}, {4, 1}}) {
            int[][] nodes = new int[shape[0]][shape[1]];
            for (int k = 0; k < shape[0]; k++) {
                for (int j = 0; j < shape[1]; j++) {
                    nodes[k][j] = k * shape[1] + j;
                }
            }
            int n = shape[0] * shape[1];
            if (n < 2) {
                continue;
            }
            TreeAlgorithm tree = new TreeAlgorithm(nodes);
            for (Protocol proto : Protocol.values()) {
                for (int channels : new int[] {1, 2, 5}) {
                    for (long bytes : new long[] {4, 4096, 1_000_000, 9_000_000}) {
                        CollectiveRequest req = new CollectiveRequest(CollectiveOp.ALL_REDUCE, n, bytes, 0, proto, channels);
                        SameSchedules.assertSameSchedule(built(tree, nodes, req), tree.schedule(req), req + " on " + Arrays.deepToString(nodes));
                        compared++;
                    }
                }
            }
        }
        assertEquals(6 * 3 * 3 * 4, compared);
    }

    /** The tree built transfer by transfer, as TreeAlgorithm did. */
    private static Schedule built(TreeAlgorithm tree, int[][] nodes, CollectiveRequest req) {
        int n = req.nRanks();
        int[] nodeOf = new int[n];
        for (int k = 0; k < nodes.length; k++) {
            for (int r : nodes[k]) {
                nodeOf[r] = k;
            }
        }
        ScheduleBuilder b = new ScheduleBuilder(req, "Tree");
        b.splitThreads(TreeAlgorithm.threadSplit(req.protocol()));
        int perStep = req.protocol() == Protocol.SIMPLE ? 1 : TreeAlgorithm.FORWARD_PIECES;
        int window = Protocol.STEPS * perStep;
        long pieceBytes = TreeAlgorithm.transferBytesFor(req.protocol(), req.bytes(), req.channels(), n, nodes.length);
        long perChannel = Sizes.alignUp(Sizes.ceilDiv(req.bytes(), req.channels()), req.protocol().grainBytes());
        for (int c = 0; c < req.channels(); c++) {
            long lo = c * perChannel;
            long hi = Math.min(req.bytes(), lo + perChannel);
            if (hi <= lo) {
                break;
            }
            int[] parent = tree.parents(c % 2, n, c);
            TreeShape shape = TreeShape.of(parent);
            List<List<Integer>> children = shape.children();
            int root = shape.root();
            int[] order = shape.postOrder();
            Streams connections = new Streams(b, window);
            int[][] up = new int[n][perStep];
            int[][] down = new int[n][perStep];
            int step = 0;
            for (long off = lo; off < hi; off += pieceBytes * perStep, step++) {
                int k = (int) Math.min(perStep, Sizes.ceilDiv(hi - off, pieceBytes));
                int[] pieces = new int[k];
                for (int i = 0; i < k; i++) {
                    long start = off + i * pieceBytes;
                    pieces[i] = b.piece(start, Math.min(pieceBytes, hi - start), -1);
                }
                for (int r : order) {
                    if (parent[r] < 0) {
                        continue;
                    }
                    boolean whole = nodeOf[r] != nodeOf[parent[r]];
                    for (int i = 0; i < k; i++) {
                        int t = send(b, connections, c, step, r, parent[r], pieces[i], true, whole && i > 0);
                        for (int child : children.get(r)) {
                            waitFor(b, t, up[child], i, k, whole);
                        }
                        up[r][i] = t;
                    }
                }
                for (int j = order.length - 1; j >= 0; j--) {
                    int r = order[j];
                    for (int child : children.get(r)) {
                        boolean whole = nodeOf[r] != nodeOf[child];
                        for (int i = 0; i < k; i++) {
                            int t = send(b, connections, c, step, r, child, pieces[i], false, whole && i > 0);
                            if (r == root) {
                                b.unsplit(t);
                                for (int other : children.get(r)) {
                                    waitFor(b, t, up[other], i, k, whole);
                                }
                            } else {
                                waitFor(b, t, down[r], i, k, whole);
                            }
                            down[child][i] = t;
                        }
                    }
                }
            }
        }
        return b.build();
    }

    private static void waitFor(ScheduleBuilder b, int t, int[] sources, int i, int k, boolean wholeStep) {
        if (!wholeStep) {
            b.afterDelivery(t, sources[i]);
            return;
        }
        for (int s = 0; s < k; s++) {
            b.afterDelivery(t, sources[s]);
        }
    }

    private static int send(ScheduleBuilder b, Streams connections, int c, int step, int from, int to, int piece, boolean reduce,
                            boolean samePost) {
        int t = b.transfer(c, step, from, to, piece, reduce);
        if (samePost) {
            b.postedWithPrevious(t);
        }
        return connections.next(Streams.key(0, c, from, to), t);
    }
}
