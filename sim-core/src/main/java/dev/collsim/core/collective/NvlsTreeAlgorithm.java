package dev.collsim.core.collective;

import static dev.collsim.core.collective.Sizes.alignUp;
import static dev.collsim.core.collective.Sizes.ceilDiv;

import java.util.BitSet;
import java.util.List;
import java.util.Optional;

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
 *
 * <p>Every step of a channel is the same work on the next part of the buffer, and each warp group
 * of a channel on a rank, and each network connection, works through its steps in order: the
 * schedule is a {@link SteppedSchedule}, holding one step for each of the two trees.
 */
public final class NvlsTreeAlgorithm implements CollectiveAlgorithm {
    private static final long ALIGN = 16;

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

    /**
     * NCCL's NVLS-Tree chunk ({@code enqueue.cc}), its own thresholds, not NVLS's: the NVLS chunk size
     * (128 KiB), at most 64 KiB from 4 nodes on, then 64 KiB below 4 chunks per concurrent operation
     * (channel x head, a head per GPU of a node) and 32 KiB below one.
     */
    public static long chunkFor(long bytes, int channels, int ranksPerNode, int nodes) {
        long chunk = nodes >= 4 ? Math.min(NvlsAlgorithm.CHUNK, 64 * 1024) : NvlsAlgorithm.CHUNK;
        long ops = (long) channels * ranksPerNode;
        if (bytes < 4 * ops * chunk && chunk > 64 * 1024) {
            chunk = 64 * 1024;
        }
        if (bytes < ops * chunk && chunk > 32 * 1024) {
            chunk = 32 * 1024;
        }
        return chunk;
    }

    @Override
    public Schedule schedule(CollectiveRequest req) {
        if (req.op() != CollectiveOp.ALL_REDUCE || req.protocol() != Protocol.SIMPLE) {
            throw new IllegalArgumentException("NVLS-Tree is simulated for all_reduce with Simple only");
        }
        SteppedSchedule.Builder b = new SteppedSchedule.Builder(req, name());
        int ppn = nodes[0].length;
        long perChannel = alignUp(ceilDiv(req.bytes(), req.channels()), ALIGN);
        long stepBytes = ppn * chunk;
        SteppedSchedule.Step[] byTree = new SteppedSchedule.Step[2];
        for (int c = 0; c < req.channels(); c++) {
            long lo = c * perChannel;
            long hi = Math.min(req.bytes(), lo + perChannel);
            if (hi <= lo) {
                break;
            }
            int tree = c % 2;
            if (byTree[tree] == null) {
                byTree[tree] = step(req, tree);
            }
            int firstPiece = b.pieceCount();
            long[] bytesOfStep = new long[(int) ceilDiv(hi - lo, stepBytes)];
            for (int s = 0; s < bytesOfStep.length; s++) {
                long off = lo + s * stepBytes;
                long end = Math.min(hi, off + stepBytes);
                long headChunk = alignUp(ceilDiv(end - off, ppn), ALIGN);
                for (int h = 0; h < ppn; h++) {
                    long from = Math.min(end, off + h * headChunk);
                    b.piece(from, Math.min(end, from + headChunk) - from);
                }
                bytesOfStep[s] = end - off;
            }
            b.channel(c, byTree[tree], firstPiece, bytesOfStep);
        }
        return b.build();
    }

    /**
     * The schedule turned by one local index in every node (each node's GPU {@code j} does what its
     * GPU {@code j - 1} does, for the next head's chunk), folded to one head's orbit where every step
     * is the same under that turn.
     */
    @Override
    public Optional<FoldedSchedule> folded(CollectiveRequest req) {
        int ppn = nodes[0].length;
        if (ppn < 2) {
            return Optional.empty();
        }
        int[] turn = new int[req.nRanks()];
        for (int[] node : nodes) {
            for (int j = 0; j < ppn; j++) {
                turn[node[j]] = node[(j + 1) % ppn];
            }
        }
        return ((SteppedSchedule) schedule(req)).folded(turn, ppn);
    }

    /**
     * One step of a channel, the same for every step of every channel on the same tree: its pieces
     * are the heads' chunks, 0..ppn-1; the scatters and gathers copy the whole step.
     */
    private SteppedSchedule.Step step(CollectiveRequest req, int tree) {
        ScheduleBuilder b = new ScheduleBuilder(req, name());
        BitSet wide = new BitSet();
        int nNodes = nodes.length;
        int ppn = nodes[0].length;
        // Placeholders: the stepped schedule gives each transfer its channel and step.
        int c = tree;
        int step = 0;
        int[] parent = parents(nNodes, tree);
        TreeShape shape = TreeShape.of(parent);
        List<List<Integer>> children = shape.children();
        int root = shape.root();
        int[] pieceOf = new int[ppn];
        for (int h = 0; h < ppn; h++) {
            pieceOf[h] = b.piece(0, 0, -1);
        }
        // A rank's scatter and gather copy the whole step; the tracker follows them through the rank's own chunk.
        int[][] scatter = new int[nNodes][ppn];
        for (int k = 0; k < nNodes; k++) {
            for (int j = 0; j < ppn; j++) {
                scatter[k][j] = b.localCopy(c, step, nodes[k][j], pieceOf[j]);
                wide.set(scatter[k][j]);
            }
        }
        int[][] multicast = new int[nNodes][ppn];
        for (int h = 0; h < ppn; h++) {
            int piece = pieceOf[h];
            int[] reduced = new int[nNodes];
            int[] up = new int[nNodes];
            for (int k : shape.postOrder()) {
                int headRank = nodes[k][h];
                reduced[k] = b.switchReduce(c, step, headRank, piece);
                for (int j = 0; j < ppn; j++) {
                    b.afterDelivery(reduced[k], scatter[k][j]);
                }
                if (parent[k] >= 0) {
                    up[k] = b.transfer(c, step, headRank, nodes[parent[k]][h], piece, true);
                    b.afterDelivery(up[k], reduced[k]);
                    for (int child : children.get(k)) {
                        b.afterDelivery(up[k], up[child]);
                    }
                }
            }
            // Down from the root: a head has the total once its parent's arrives (the root: once its children's have).
            int[] total = new int[nNodes];
            for (int k : shape.preOrder()) {
                int headRank = nodes[k][h];
                if (k != root) {
                    total[k] = b.transfer(c, step, nodes[parent[k]][h], headRank, piece, false);
                    if (parent[k] == root) {
                        rootReady(b, total[k], reduced[root], up, children.get(root));
                    } else {
                        b.afterDelivery(total[k], total[parent[k]]);
                    }
                }
                multicast[k][h] = b.switchMulticast(c, step, headRank, piece);
                if (k == root) {
                    rootReady(b, multicast[k][h], reduced[root], up, children.get(root));
                } else {
                    b.afterDelivery(multicast[k][h], total[k]);
                }
            }
        }
        for (int k = 0; k < nNodes; k++) {
            for (int j = 0; j < ppn; j++) {
                int g = b.localCopy(c, step, nodes[k][j], pieceOf[j]);
                wide.set(g);
                for (int h = 0; h < ppn; h++) {
                    b.afterDelivery(g, multicast[k][h]);
                }
            }
        }
        boolean[] stepWide = new boolean[b.transferCount()];
        wide.stream().forEach(t -> stepWide[t] = true);
        return new SteppedSchedule.Step(b.build(), stepWide);
    }

    /** Each node's parent in channel {@code c}'s tree (-1 for the root): even channels take the first tree, odd the second. */
    private static int[] parents(int nNodes, int c) {
        int[] parent = new int[nNodes];
        for (int k = 0; k < nNodes; k++) {
            parent[k] = (c % 2 == 0 ? TreeAlgorithm.btree(nNodes, k) : TreeAlgorithm.dtree(nNodes, k))[0];
        }
        return parent;
    }

    /** The root's head holds the total once its node's reduction and its children's sums have arrived. */
    private static void rootReady(ScheduleBuilder b, int t, int reducedRoot, int[] up, List<Integer> rootChildren) {
        b.afterDelivery(t, reducedRoot);
        for (int child : rootChildren) {
            b.afterDelivery(t, up[child]);
        }
    }
}
