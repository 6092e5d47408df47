package dev.collsim.core.collective;

import static dev.collsim.core.collective.Sizes.alignUp;
import static dev.collsim.core.collective.Sizes.ceilDiv;
import static dev.collsim.core.collective.Sizes.channelBytes;

import java.util.ArrayList;
import java.util.List;

/**
 * NCCL's NVLS-Tree all_reduce across nodes (after {@code connectNvls} in {@code src/graph/connect.cc}
 * and the NVLSTree kernel in {@code src/device/all_reduce.h}).
 *
 * <p>Inside each node it is NVLS; across nodes, the ranks with the same local index (the heads of
 * the same chunk, on the same rail) form NCCL's double binary tree over the nodes, even channels on
 * the first tree and odd ones on the second. Per channel and step, every rank scatters its input
 * (local copy); for each local index {@code h}, the switch reduces chunk {@code h} of the node to head
 * {@code h}; the head adds what its child nodes' heads send up and sends the result to its parent
 * node's head; the root's heads multicast the total into their node and send it down, and every
 * other head, once the total arrives from its parent, multicasts it into its node and passes it on;
 * then every rank gathers its output (local copy).
 */
public final class NvlsTreeAlgorithm implements CollectiveAlgorithm {
    private static final long ALIGN = 16;
    /** Each warp group of a channel on a rank, and each network connection, is a stream of its own. */
    private static final int SCATTER = 0;
    private static final int REDUCE = 1;
    private static final int NET = 2;
    private static final int BCAST = 3;
    private static final int GATHER = 4;

    private final int[][] nodes;
    private final long chunk;

    /**
     * @param nodes the ranks of each node by local index (all nodes the same size)
     * @param chunk the NVLS-Tree chunk one head handles per step
     */
    public NvlsTreeAlgorithm(int[][] nodes, long chunk) {
        this.nodes = Streams.sameSize(nodes, "NVLS-Tree");
        this.chunk = chunk;
    }

    @Override
    public String name() {
        return "NVLSTree";
    }

    @Override
    public Schedule schedule(CollectiveRequest req) {
        if (req.op() != CollectiveOp.ALL_REDUCE || req.protocol() != Protocol.SIMPLE) {
            throw new IllegalArgumentException("NVLS-Tree is simulated for all_reduce with Simple only");
        }
        ScheduleBuilder b = new ScheduleBuilder(req, name(), size(req));
        int nNodes = nodes.length;
        int ppn = nodes[0].length;
        long perChannel = alignUp(ceilDiv(req.bytes(), req.channels()), ALIGN);
        long stepBytes = ppn * chunk;
        for (int c = 0; c < req.channels(); c++) {
            long lo = c * perChannel;
            long hi = Math.min(req.bytes(), lo + perChannel);
            if (hi <= lo) {
                break;
            }
            int[] parent = parents(nNodes, c);
            List<List<Integer>> children = new ArrayList<>();
            int root = -1;
            for (int k = 0; k < nNodes; k++) {
                children.add(new ArrayList<>());
            }
            for (int k = 0; k < nNodes; k++) {
                if (parent[k] < 0) {
                    root = k;
                } else {
                    children.get(parent[k]).add(k);
                }
            }
            Streams streams = new Streams(b);
            int step = 0;
            for (long off = lo; off < hi; off += stepBytes, step++) {
                long end = Math.min(hi, off + stepBytes);
                long headChunk = alignUp(ceilDiv(end - off, ppn), ALIGN);
                int[] pieceOf = new int[ppn];
                for (int h = 0; h < ppn; h++) {
                    long from = Math.min(end, off + h * headChunk);
                    pieceOf[h] = b.piece(from, Math.min(end, from + headChunk) - from, -1);
                }
                // A rank's scatter and gather copy the whole step; the tracker follows them through the rank's own chunk.
                int[][] scatter = new int[nNodes][ppn];
                for (int k = 0; k < nNodes; k++) {
                    for (int j = 0; j < ppn; j++) {
                        scatter[k][j] = streams.next(Streams.key(SCATTER, c, nodes[k][j], -1),
                                b.localCopy(c, step, nodes[k][j], pieceOf[j], end - off));
                    }
                }
                int[][] multicast = new int[nNodes][ppn];
                for (int h = 0; h < ppn; h++) {
                    int piece = pieceOf[h];
                    int[] reduced = new int[nNodes];
                    int[] up = new int[nNodes];
                    for (int k : postOrder(root, children)) {
                        int headRank = nodes[k][h];
                        reduced[k] = streams.next(Streams.key(REDUCE, c, headRank, -1), b.switchReduce(c, step, headRank, piece));
                        for (int j = 0; j < ppn; j++) {
                            b.afterDelivery(reduced[k], scatter[k][j]);
                        }
                        if (parent[k] >= 0) {
                            up[k] = streams.next(Streams.key(NET, c, headRank, nodes[parent[k]][h]),
                                    b.transfer(c, step, headRank, nodes[parent[k]][h], piece, true));
                            b.afterDelivery(up[k], reduced[k]);
                            for (int child : children.get(k)) {
                                b.afterDelivery(up[k], up[child]);
                            }
                        }
                    }
                    // Down from the root: a head has the total once its parent's arrives (the root: once its children's have).
                    int[] total = new int[nNodes];
                    for (int k : preOrder(root, children)) {
                        int headRank = nodes[k][h];
                        if (k != root) {
                            total[k] = streams.next(Streams.key(NET, c, nodes[parent[k]][h], headRank),
                                    b.transfer(c, step, nodes[parent[k]][h], headRank, piece, false));
                            if (parent[k] == root) {
                                rootReady(b, total[k], reduced[root], up, children.get(root));
                            } else {
                                b.afterDelivery(total[k], total[parent[k]]);
                            }
                        }
                        multicast[k][h] = streams.next(Streams.key(BCAST, c, headRank, -1), b.switchMulticast(c, step, headRank, piece));
                        if (k == root) {
                            rootReady(b, multicast[k][h], reduced[root], up, children.get(root));
                        } else {
                            b.afterDelivery(multicast[k][h], total[k]);
                        }
                    }
                }
                for (int k = 0; k < nNodes; k++) {
                    for (int j = 0; j < ppn; j++) {
                        int g = streams.next(Streams.key(GATHER, c, nodes[k][j], -1),
                                b.localCopy(c, step, nodes[k][j], pieceOf[j], end - off));
                        for (int h = 0; h < ppn; h++) {
                            b.afterDelivery(g, multicast[k][h]);
                        }
                    }
                }
            }
        }
        return b.build();
    }

    /** Each node's parent in channel {@code c}'s tree (-1 for the root): even channels take the first tree, odd the second. */
    private static int[] parents(int nNodes, int c) {
        int[] parent = new int[nNodes];
        for (int k = 0; k < nNodes; k++) {
            parent[k] = (c % 2 == 0 ? TreeAlgorithm.btree(nNodes, k) : TreeAlgorithm.dtree(nNodes, k))[0];
        }
        return parent;
    }

    /**
     * The transfers and dependencies {@link #schedule} builds for {@code req}, counted without
     * building them, so that its builder is sized once.
     */
    ScheduleSize size(CollectiveRequest req) {
        int nNodes = nodes.length;
        long ppn = nodes[0].length;
        long ranks = nNodes * ppn;
        long perChannel = alignUp(ceilDiv(req.bytes(), req.channels()), ALIGN);
        long transfers = 0;
        long dependencies = 0;
        for (int c = 0; c < req.channels() && channelBytes(req.bytes(), perChannel, c) > 0; c++) {
            long steps = ceilDiv(channelBytes(req.bytes(), perChannel, c), ppn * chunk);
            long rootChildren = TreeAlgorithm.rootChildren(parents(nNodes, c));
            // Every rank's scatter, reduction, multicast and gather, and each head's link up and down.
            long streams = 4 * ranks + 2 * (nNodes - 1) * ppn;
            transfers += steps * streams;
            dependencies += Streams.dependencies(streams, steps);
            // Per step and head: reductions wait for the node's scatters, gathers for its multicasts;
            // links up wait for the reduction and the children's links (the root for both), links
            // down and multicasts for the total.
            dependencies += steps * ppn * (2 * ranks + 4L * nNodes - 3 + rootChildren * rootChildren);
        }
        return new ScheduleSize(transfers, dependencies);
    }

    /** The root's head holds the total once its node's reduction and its children's sums have arrived. */
    private static void rootReady(ScheduleBuilder b, int t, int reducedRoot, int[] up, List<Integer> rootChildren) {
        b.afterDelivery(t, reducedRoot);
        for (int child : rootChildren) {
            b.afterDelivery(t, up[child]);
        }
    }


    private static List<Integer> postOrder(int root, List<List<Integer>> children) {
        List<Integer> out = new ArrayList<>();
        post(root, children, out);
        return out;
    }

    private static void post(int k, List<List<Integer>> children, List<Integer> out) {
        for (int child : children.get(k)) {
            post(child, children, out);
        }
        out.add(k);
    }

    private static List<Integer> preOrder(int root, List<List<Integer>> children) {
        List<Integer> out = new ArrayList<>();
        pre(root, children, out);
        return out;
    }

    private static void pre(int k, List<List<Integer>> children, List<Integer> out) {
        out.add(k);
        for (int child : children.get(k)) {
            pre(child, children, out);
        }
    }
}
