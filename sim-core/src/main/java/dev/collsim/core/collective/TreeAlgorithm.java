package dev.collsim.core.collective;

import static dev.collsim.core.collective.Sizes.alignUp;
import static dev.collsim.core.collective.Sizes.ceilDiv;
import static dev.collsim.core.collective.Sizes.channelBytes;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * NCCL's double binary tree all_reduce (after {@code src/graph/trees.cc}, {@code connect.cc} and
 * {@code runTreeSplit} in {@code src/device/all_reduce.h}).
 *
 * <p>Across nodes, two complementary binary trees: the first from NCCL's {@code ncclGetBtree} rule,
 * the second its mirror (even node count) or its shift by one (odd), so that a node that is a leaf
 * in one tree is inside the other. Even channels use the first tree, odd channels the second.
 * Inside a node the ranks form a chain whose first rank connects to the tree across nodes; the chain
 * turns by one GPU every two channels, so that the channels leave each node through different GPUs
 * (and their NICs), as NCCL's per-channel graphs do. Each
 * channel moves its range chunk by chunk: a rank sends a chunk up to its parent once every child's
 * part of that chunk has arrived (reduce), and down to its children once the reduced chunk has
 * come from its parent (broadcast); the two directions run at the same time, as NCCL's split
 * thread groups do. Each connection keeps {@link Protocol#STEPS} slots of credit. Under LL and LL128
 * a chunk moves in pieces, each sent on as it arrives inside a node; across nodes a chunk goes to
 * the NIC whole, in one post ({@link TreeSchedule}).
 */
public final class TreeAlgorithm implements CollectiveAlgorithm {
    private final int[][] nodes;
    /** Per channel (channel c: {@code chains[c % chains.length]}), the chain's order in each node's local numbers; null: turned. */
    private final int[][] chains;
    /** Per rank, the node it is on. */
    private final int[] nodeOf;

    /**
     * @param nodes the ranks of each node, in chain order (the first connects across nodes)
     */
    public TreeAlgorithm(int[][] nodes) {
        this(nodes, null);
    }

    /**
     * @param nodes  the ranks of each node
     * @param chains per channel, the order of the chain in every node as positions in {@code nodes[k]} (channel c takes
     *               {@code chains[c % chains.length]}; the first connects across nodes), as RCCL's models chain each
     *               channel's tree along that channel's ring inside a node; null: the chain turns every two channels
     */
    public TreeAlgorithm(int[][] nodes, int[][] chains) {
        this.nodes = Arrays.stream(nodes).map(int[]::clone).toArray(int[][]::new);
        this.chains = chains == null ? null : Arrays.stream(chains).map(int[]::clone).toArray(int[][]::new);
        this.nodeOf = new int[Arrays.stream(nodes).mapToInt(a -> a.length).sum()];
        for (int k = 0; k < nodes.length; k++) {
            for (int r : nodes[k]) {
                if (r < 0 || r >= nodeOf.length) {
                    throw new IllegalArgumentException("rank " + r + " of node " + k + " is not one of the "
                            + nodeOf.length + " ranks");
                }
                nodeOf[r] = k;
            }
        }
    }

    private boolean acrossNodes(int from, int to) {
        return nodeOf[from] != nodeOf[to];
    }

    /** All ranks in one node, chained in rank order. */
    public static TreeAlgorithm singleNode(int nRanks) {
        int[] chain = new int[nRanks];
        Arrays.setAll(chain, i -> i);
        return new TreeAlgorithm(new int[][] {chain});
    }

    @Override
    public String name() {
        return "Tree";
    }

    /**
     * NCCL's binary tree over {@code n} nodes: the parent of node {@code r} and its up to two children,
     * as {@code {parent, child0, child1}} with -1 for none.
     */
    public static int[] btree(int n, int r) {
        int bit = 1;
        while (bit < n && (bit & r) == 0) {
            bit <<= 1;
        }
        if (r == 0) {
            return new int[] {-1, -1, n > 1 ? bit >> 1 : -1};
        }
        int up = (r ^ bit) | (bit << 1);
        if (up >= n) {
            up = r ^ bit;
        }
        int low = bit >> 1;
        int down0 = low == 0 ? -1 : r - low;
        int down1 = low == 0 ? -1 : r + low;
        while (down1 >= n) {
            low >>= 1;
            down1 = low == 0 ? -1 : r + low;
        }
        return new int[] {up, down0, down1};
    }

    /** The second tree: the first over mirrored node numbers (even n) or shifted by one (odd n). */
    public static int[] dtree(int n, int r) {
        boolean mirror = n % 2 == 0;
        int shifted = mirror ? n - 1 - r : (r - 1 + n) % n;
        int[] t = btree(n, shifted);
        int[] out = new int[3];
        for (int i = 0; i < 3; i++) {
            out[i] = t[i] < 0 ? -1 : mirror ? n - 1 - t[i] : (t[i] + 1) % n;
        }
        return out;
    }

    /** Parent of every rank in tree {@code which} (0 or 1) on {@code channel}, -1 for the root. */
    int[] parents(int which, int nRanks, int channel) {
        int[] parent = new int[nRanks];
        Arrays.fill(parent, -1);
        int n = nodes.length;
        for (int k = 0; k < n; k++) {
            int[] chain = chain(k, channel);
            for (int j = 1; j < chain.length; j++) {
                parent[chain[j]] = chain[j - 1];
            }
            int up = (which == 0 ? btree(n, k) : dtree(n, k))[0];
            parent[chain[0]] = up < 0 ? -1 : chain(up, channel)[0];
        }
        return parent;
    }

    /** Node {@code k}'s chain on {@code channel}: its given order, or its ranks turned by one every two channels. */
    private int[] chain(int k, int channel) {
        int[] ranks = nodes[k];
        int[] out = new int[ranks.length];
        int[] order = chains == null ? null : chains[channel % chains.length];
        for (int j = 0; j < ranks.length; j++) {
            out[j] = ranks[order == null ? (j + channel / 2) % ranks.length : order[j]];
        }
        return out;
    }

    @Override
    public Schedule schedule(CollectiveRequest req) {
        if (req.op() != CollectiveOp.ALL_REDUCE) {
            throw new IllegalArgumentException("Tree is simulated for all_reduce only, not " + req.op().ncclName());
        }
        int n = req.nRanks();
        if (Arrays.stream(nodes).mapToInt(a -> a.length).sum() != n) {
            throw new IllegalArgumentException("the nodes hold " + Arrays.stream(nodes).mapToInt(a -> a.length).sum()
                    + " ranks, the collective " + n);
        }
        long piece = transferBytes(req);
        int perStep = piecesPerStep(req.protocol());
        long perChannel = alignUp(ceilDiv(req.bytes(), req.channels()), req.protocol().grainBytes());
        PieceTable pieces = new PieceTable();
        List<int[]> parents = new ArrayList<>();
        List<Integer> steps = new ArrayList<>();
        List<Integer> lastPieces = new ArrayList<>();
        for (int c = 0; c < req.channels() && channelBytes(req.bytes(), perChannel, c) > 0; c++) {
            long lo = c * perChannel;
            long hi = lo + channelBytes(req.bytes(), perChannel, c);
            for (long start = lo; start < hi; start += piece) {
                pieces.add(start, Math.min(piece, hi - start), -1, -1);
            }
            int count = (int) ceilDiv(hi - lo, piece);
            parents.add(parents(c % 2, n, c));
            steps.add((int) ceilDiv(count, perStep));
            lastPieces.add(count - (steps.get(steps.size() - 1) - 1) * perStep);
        }
        return new TreeSchedule(req, name(), pieces, parents.toArray(new int[0][]), steps.stream().mapToInt(Integer::intValue).toArray(),
                lastPieces.stream().mapToInt(Integer::intValue).toArray(), perStep, window(req.protocol()), threadSplit(req.protocol()),
                nodeOf, size(req));
    }

    /**
     * The transfers and dependencies {@link #schedule} builds for {@code req}, counted without
     * building them, so that its builder is sized once.
     */
    ScheduleSize size(CollectiveRequest req) {
        int n = req.nRanks();
        long piece = transferBytes(req);
        int perStep = piecesPerStep(req.protocol());
        long perChannel = alignUp(ceilDiv(req.bytes(), req.channels()), req.protocol().grainBytes());
        long transfers = 0;
        long dependencies = 0;
        for (int c = 0; c < req.channels() && channelBytes(req.bytes(), perChannel, c) > 0; c++) {
            long pieces = ceilDiv(channelBytes(req.bytes(), perChannel, c), piece);
            long steps = ceilDiv(pieces, perStep);
            long lastStep = pieces - (steps - 1) * perStep;
            // Every tree edge is a connection up and one down, each a stream of one transfer a piece.
            long streams = 2L * (n - 1);
            transfers += pieces * streams;
            dependencies += Streams.dependencies(streams, pieces, window(req.protocol()));
            // A piece waits for its sources' same piece; across nodes, for every piece of its step.
            long[] sources = sourcesPerPiece(parents(c % 2, n, c));
            dependencies += sources[0] * pieces + sources[1] * ((steps - 1) * perStep * perStep + lastStep * lastStep);
        }
        return new ScheduleSize(transfers, dependencies);
    }

    /**
     * Over every edge of a channel's tree, up and down, the transfers each piece it carries waits
     * for: {@code [0]} summed over the edges inside a node, {@code [1]} over the edges across nodes.
     * A send up waits for its children's, a send down for the one that reached its sender, and the
     * root's sends down for all its children's sends up.
     */
    private long[] sourcesPerPiece(int[] parent) {
        int n = parent.length;
        int[] childCount = new int[n];
        int root = -1;
        for (int r = 0; r < n; r++) {
            if (parent[r] >= 0) {
                childCount[parent[r]]++;
            } else {
                root = r;
            }
        }
        long[] sum = new long[2];
        for (int r = 0; r < n; r++) {
            if (parent[r] >= 0) {
                sum[acrossNodes(r, parent[r]) ? 1 : 0] += childCount[r];
                sum[acrossNodes(parent[r], r) ? 1 : 0] += parent[r] == root ? childCount[root] : 1;
            }
        }
        return sum;
    }

    /**
     * LL and LL128 forward what they receive line by line: a rank polls each line's flag and sends
     * the line on ({@code prims_ll.h}, {@code prims_ll128.h}), so a chunk does not wait at every hop
     * of the tree for its last byte, as a Simple chunk, fenced and flagged as a whole, does. Modelled
     * as the chunk moving in {@value #FORWARD_PIECES} pieces, each sent on once it has arrived.
     */
    static final int FORWARD_PIECES = Protocol.STEPS;

    /** The data one transfer of the tree moves: a chunk ({@link #chunkFor}), or one of its pieces under LL and LL128. */
    public static long transferBytesFor(Protocol protocol, long bytes, int channels, int ranks, int nodes) {
        long chunk = chunkFor(protocol, bytes, channels, ranks, nodes);
        if (protocol == Protocol.SIMPLE) {
            return chunk;
        }
        // A channel with less than a chunk moves all it has in one step, still line by line.
        long step = Math.min(chunk, alignUp(ceilDiv(bytes, channels), protocol.grainBytes()));
        return Math.max(protocol.grainBytes(), alignUp(ceilDiv(step, FORWARD_PIECES), protocol.grainBytes()));
    }

    /**
     * How NCCL's {@code runTreeSplit} divides a channel's threads under LL and LL128: 70 % to the
     * group that receives and reduces up (from up to three sources, the costlier side), the rest to
     * the one that broadcasts down; the root runs both with all its threads. These protocols' channel
     * rates are their warps' own (flag lines polled and written), so each group moves data at its
     * share. NCCL splits Simple's threads too (320 of 512 up), but the Simple channel rate stands for
     * what the links give a ring channel, not for its threads' copying, and NCCL's own tree constants
     * ({@code perChMaxTreeBw}, above the ring's per channel) show no such cost: Simple is not split.
     * A tree kernel runs {@value #THREADS} threads whatever the protocol ({@code enqueue.cc}: "Tree now
     * uses all threads always"), so LL splits them 448 and 192, as LL128 does.
     */
    static ThreadSplit threadSplit(Protocol protocol) {
        if (protocol == Protocol.SIMPLE) {
            return ThreadSplit.NONE;
        }
        int warp = 32;
        int up = THREADS * 7 / (10 * warp) * warp;
        return new ThreadSplit((double) up / THREADS, (double) (THREADS - up) / THREADS);
    }

    /** Threads of a tree kernel's channel ({@code NCCL_MAX_NTHREADS}). */
    static final int THREADS = 640;

    /** Transfers a connection may have in flight: its buffer's steps, each of {@link #piecesPerStep} pieces. */
    private static int window(Protocol protocol) {
        return Protocol.STEPS * piecesPerStep(protocol);
    }

    /** The transfers one buffer step (a chunk) moves in: {@link #FORWARD_PIECES} under LL and LL128, one under Simple. */
    private static int piecesPerStep(Protocol protocol) {
        return protocol == Protocol.SIMPLE ? 1 : FORWARD_PIECES;
    }

    private long transferBytes(CollectiveRequest req) {
        return transferBytesFor(req.protocol(), req.bytes(), req.channels(), req.nRanks(), nodes.length);
    }

    /**
     * The data a channel moves per step: one buffer step, except that under LL128 NCCL halves it
     * ({@code enqueue.cc}) until each channel has about {@code (1 + log2 nodes + 0.1 ranks per node)
     * x 64 / ranks per node} chunks (down to 128 KiB), then x 16 (down to 32 KiB), so that the tree's
     * pipeline fills: at 4 MiB on 2 nodes of 8, 34,560 B where one step would be the channel's whole part.
     * For a collective of {@code bytes} over {@code channels} on {@code nodes} nodes of {@code ranks} in all.
     */
    public static long chunkFor(Protocol protocol, long bytes, int channels, int ranks, int nodes) {
        long chunk = protocol.stepDataBytes();
        if (protocol != Protocol.LL128) {
            return chunk;
        }
        double perNode = (double) ranks / nodes;
        double steps = 1 + (31 - Integer.numberOfLeadingZeros(nodes)) + 0.1 * perNode;
        while (bytes / (channels * chunk) < steps * 64 / perNode && chunk > 131072) {
            chunk /= 2;
        }
        while (bytes / (channels * chunk) < steps * 16 / perNode && chunk > 32768) {
            chunk /= 2;
        }
        return Math.max(protocol.grainBytes(), chunk / protocol.grainBytes() * protocol.grainBytes());
    }
}
