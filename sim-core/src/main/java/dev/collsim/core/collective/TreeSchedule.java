package dev.collsim.core.collective;

import java.util.Arrays;
import java.util.stream.IntStream;

/**
 * NCCL's tree all_reduce worked out from each transfer's number instead of held: at 16,384 GPUs a
 * gibibyte takes some 17 million counted steps, which held one by one took 6 GB. Numbered as
 * {@link TreeAlgorithm} adds them to a builder: channel by channel, step by step (a step is one
 * buffer step of {@code perStep} pieces, fewer in a channel's last), first every send up (ranks in
 * post-order, children before parents), then every send down (parents before children), each rank's
 * pieces in order. Every dependency of a transfer is added when it is, so a transfer's successors,
 * in the order the builder added them, are those waiting on it in the order of their numbers.
 *
 * <p>A send up waits for its children's sends up of the same piece; a send down for the send down
 * that reached its sender (the root's: for its children's sends up); where the send crosses nodes,
 * for all of its step's pieces, the proxy posting the step whole. Each connection is a stream
 * ({@link Streams}): a transfer waits for the one before it to have left and for the one {@code
 * window} before it to have been delivered.
 */
final class TreeSchedule extends Schedule {
    /** One channel's tree: who sends to whom, and where each send sits in a step. */
    private static final class Tree {
        final int[] parent;
        final int root;
        final int[][] children;
        /** Per rank, its place among the step's sends up (-1 for the root); and the rank at each place. */
        final int[] upIndex;
        final int[] upRank;
        /** Per rank, its place among the step's sends down, as the receiver (-1 for the root); and the rank at each place. */
        final int[] downIndex;
        final int[] downRank;
        final int mostChildren;

        Tree(int[] parent) {
            this.parent = parent;
            int n = parent.length;
            TreeShape shape = TreeShape.of(parent);
            root = shape.root();
            children = shape.children().stream().map(c -> c.stream().mapToInt(Integer::intValue).toArray()).toArray(int[][]::new);
            mostChildren = Arrays.stream(children).mapToInt(c -> c.length).max().orElse(0);
            int[] order = shape.postOrder();
            upIndex = new int[n];
            upRank = new int[n - 1];
            downIndex = new int[n];
            downRank = new int[n - 1];
            Arrays.fill(upIndex, -1);
            Arrays.fill(downIndex, -1);
            int u = 0;
            for (int r : order) {
                if (parent[r] >= 0) {
                    upIndex[r] = u;
                    upRank[u++] = r;
                }
            }
            int d = 0;
            for (int j = order.length - 1; j >= 0; j--) {
                for (int child : children[order[j]]) {
                    downIndex[child] = d;
                    downRank[d++] = child;
                }
            }
        }
    }

    /** A channel: its transfers from {@code first}, its pieces from {@code firstPiece}, {@code steps} steps, the last of {@code lastPieces}. */
    private record Channel(int index, int first, int firstPiece, int steps, int lastPieces, Tree tree) {}

    private final int n;
    private final int perStep;
    private final int window;
    private final ThreadSplit split;
    private final int[] nodeOf;
    private final Channel[] channels;
    private final int[] channelFirst;
    private final int transfers;
    private final long dependencies;
    private final int maxSuccessors;

    /**
     * @param parents    per channel, each rank's parent in its tree (-1 for the root)
     * @param steps      per channel, its steps; {@code lastPieces} the pieces of its last
     */
    TreeSchedule(CollectiveRequest request, String algorithm, PieceTable pieces, int[][] parents, int[] steps, int[] lastPieces,
                 int perStep, int window, ThreadSplit split, int[] nodeOf, ScheduleSize size) {
        super(request, algorithm, pieces);
        if (size.transfers() >= MAX_TRANSFERS) {
            throw tooLarge(request);
        }
        this.n = request.nRanks();
        this.perStep = perStep;
        this.window = window;
        this.split = split;
        this.nodeOf = nodeOf;
        this.channels = new Channel[parents.length];
        this.channelFirst = new int[parents.length];
        int first = 0;
        int firstPiece = 0;
        int most = 0;
        for (int c = 0; c < parents.length; c++) {
            Tree tree = new Tree(parents[c]);
            channels[c] = new Channel(c, first, firstPiece, steps[c], lastPieces[c], tree);
            channelFirst[c] = first;
            first += 2 * (n - 1) * ((steps[c] - 1) * perStep + lastPieces[c]);
            firstPiece += (steps[c] - 1) * perStep + lastPieces[c];
            most = Math.max(most, 2 + Math.max(1, tree.mostChildren) * perStep);
        }
        this.transfers = first;
        this.dependencies = size.dependencies();
        this.maxSuccessors = most;
    }

    /** The channel a transfer is on. */
    private Channel channelOf(int t) {
        int c = Arrays.binarySearch(channelFirst, t);
        return channels[c < 0 ? -c - 2 : c];
    }

    // A transfer's place in its channel, packed into a long (no object per lookup on the run's hot
    // path): its step in the high half; in the low, whether it goes up, its piece in the step, and the
    // rank it concerns (the sender going up, the receiver going down).
    private static final int RANK_BITS = 20;
    private static final long UP = 1L << 31;

    private long place(Channel ch, int t) {
        int stepSize = 2 * (n - 1) * perStep;
        int rel = t - ch.first;
        int s = rel / stepSize;
        int k = piecesIn(ch, s);
        int off = rel - s * stepSize;
        boolean up = off < k * (n - 1);
        if (!up) {
            off -= k * (n - 1);
        }
        int index = off / k;
        int i = off - index * k;
        int rank = up ? ch.tree.upRank[index] : ch.tree.downRank[index];
        return (long) s << 32 | (up ? UP : 0) | (long) i << RANK_BITS | rank;
    }

    private static int stepOf(long place) {
        return (int) (place >>> 32);
    }

    private static boolean up(long place) {
        return (place & UP) != 0;
    }

    private static int pieceOf(long place) {
        return (int) (place & ~UP & 0xffffffffL) >>> RANK_BITS;
    }

    private static int rankOf(long place) {
        return (int) place & ((1 << RANK_BITS) - 1);
    }

    private int upTransfer(Channel ch, int s, int k, int rank, int i) {
        return ch.first + s * 2 * (n - 1) * perStep + ch.tree.upIndex[rank] * k + i;
    }

    private int downTransfer(Channel ch, int s, int k, int receiver, int i) {
        return ch.first + s * 2 * (n - 1) * perStep + k * (n - 1) + ch.tree.downIndex[receiver] * k + i;
    }

    private int piecesIn(Channel ch, int s) {
        return s == ch.steps - 1 ? ch.lastPieces : perStep;
    }

    /** The transfer at place {@code j} of the stream of sends up from (or down to) {@code rank}. */
    private int onStream(Channel ch, boolean up, int rank, int j) {
        int s = j / perStep;
        int k = piecesIn(ch, s);
        return up ? upTransfer(ch, s, k, rank, j % perStep) : downTransfer(ch, s, k, rank, j % perStep);
    }

    private int streamLength(Channel ch) {
        return (ch.steps - 1) * perStep + ch.lastPieces;
    }

    @Override
    public int transferCount() {
        return transfers;
    }

    @Override
    public int src(int t) {
        Channel ch = channelOf(t);
        long at = place(ch, t);
        return up(at) ? rankOf(at) : ch.tree.parent[rankOf(at)];
    }

    @Override
    public int dst(int t) {
        Channel ch = channelOf(t);
        long at = place(ch, t);
        return up(at) ? ch.tree.parent[rankOf(at)] : rankOf(at);
    }

    @Override
    public int channel(int t) {
        return channelOf(t).index;
    }

    @Override
    public int step(int t) {
        Channel ch = channelOf(t);
        return stepOf(place(ch, t));
    }

    @Override
    public int piece(int t) {
        Channel ch = channelOf(t);
        long at = place(ch, t);
        return ch.firstPiece + stepOf(at) * perStep + pieceOf(at);
    }

    @Override
    public long bytes(int t) {
        return pieceLength(piece(t));
    }

    @Override
    public boolean reduces(int t) {
        Channel ch = channelOf(t);
        return up(place(ch, t));
    }

    @Override
    public double threadShare(int t) {
        Channel ch = channelOf(t);
        long at = place(ch, t);
        return !up(at) && ch.tree.parent[rankOf(at)] == ch.tree.root ? 1 : split.share(up(at));
    }

    @Override
    public boolean postedWithPrevious(int t) {
        Channel ch = channelOf(t);
        long at = place(ch, t);
        int rank = rankOf(at);
        return pieceOf(at) > 0 && across(rank, ch.tree.parent[rank]);
    }

    @Override
    public TransferKind kind(int t) {
        return TransferKind.P2P;
    }

    @Override
    public long dependencyCount() {
        return dependencies;
    }

    @Override
    public int maxSuccessors() {
        return maxSuccessors;
    }

    private boolean across(int from, int to) {
        return nodeOf[from] != nodeOf[to];
    }

    @Override
    public int successors(int t, int[] into) {
        Channel ch = channelOf(t);
        Tree tree = ch.tree;
        long at = place(ch, t);
        boolean up = up(at);
        int rank = rankOf(at);
        int s = stepOf(at);
        int i = pieceOf(at);
        int k = piecesIn(ch, s);
        int count = 0;
        int j = s * perStep + i;
        int length = streamLength(ch);
        if (j + 1 < length) {
            into[count++] = onStream(ch, up, rank, j + 1) << 1;
        }
        if (j + window < length) {
            into[count++] = onStream(ch, up, rank, j + window) << 1 | 1;
        }
        if (up) {
            int p = tree.parent[rank];
            if (p != tree.root) {
                count = waiting(into, count, upTransfer(ch, s, k, p, 0), i, k, across(p, tree.parent[p]));
            } else {
                for (int y : tree.children[p]) {
                    count = waiting(into, count, downTransfer(ch, s, k, y, 0), i, k, across(p, y));
                }
            }
        } else {
            for (int z : tree.children[rank]) {
                count = waiting(into, count, downTransfer(ch, s, k, z, 0), i, k, across(rank, z));
            }
        }
        Arrays.sort(into, 0, count);
        return count;
    }

    /**
     * Adds the pieces of the send whose first piece is {@code first} that wait for piece {@code i}'s
     * delivery: all {@code k} of its step's, or piece {@code i}'s alone.
     */
    private static int waiting(int[] into, int count, int first, int i, int k, boolean wholeStep) {
        if (!wholeStep) {
            into[count++] = (first + i) << 1 | 1;
            return count;
        }
        for (int p = 0; p < k; p++) {
            into[count++] = (first + p) << 1 | 1;
        }
        return count;
    }

    @Override
    public void countPredecessors(int[] counts) {
        for (Channel ch : channels) {
            Tree tree = ch.tree;
            for (int s = 0; s < ch.steps; s++) {
                int k = piecesIn(ch, s);
                for (int r = 0; r < n; r++) {
                    if (r == tree.root) {
                        continue;
                    }
                    int p = tree.parent[r];
                    int upWaits = 0;
                    for (int x : tree.children[r]) {
                        upWaits += across(r, p) ? k : 1;
                    }
                    int downWaits = p == tree.root ? tree.children[p].length * (across(p, r) ? k : 1) : across(p, r) ? k : 1;
                    for (int i = 0; i < k; i++) {
                        int j = s * perStep + i;
                        int stream = (j > 0 ? 1 : 0) + (j >= window ? 1 : 0);
                        counts[upTransfer(ch, s, k, r, i)] += stream + upWaits;
                        counts[downTransfer(ch, s, k, r, i)] += stream + downWaits;
                    }
                }
            }
        }
    }

    @Override
    public IntStream representatives() {
        // Every send of a channel's tree: its first step.
        return Arrays.stream(channels).flatMapToInt(ch -> IntStream.range(ch.first, ch.first + 2 * (n - 1) * piecesIn(ch, 0)));
    }
}
