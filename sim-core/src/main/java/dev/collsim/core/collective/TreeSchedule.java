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

    /** A transfer decoded: its channel, step, pieces in that step, piece, whether it goes up, and the rank it concerns (sender up, receiver down). */
    private record At(Channel channel, int step, int k, int piece, boolean up, int rank) {}

    private At at(int t) {
        int c = Arrays.binarySearch(channelFirst, t);
        Channel ch = channels[c < 0 ? -c - 2 : c];
        int stepSize = 2 * (n - 1) * perStep;
        int rel = t - ch.first;
        int s = rel / stepSize;
        int k = s == ch.steps - 1 ? ch.lastPieces : perStep;
        int off = rel - s * stepSize;
        boolean up = off < k * (n - 1);
        if (!up) {
            off -= k * (n - 1);
        }
        int index = off / k;
        int i = off - index * k;
        return new At(ch, s, k, i, up, up ? ch.tree.upRank[index] : ch.tree.downRank[index]);
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

    /** The transfer at place {@code j} of the stream that {@code a}'s transfer is on. */
    private int onStream(At a, int j) {
        int s = j / perStep;
        int k = piecesIn(a.channel, s);
        return a.up ? upTransfer(a.channel, s, k, a.rank, j % perStep) : downTransfer(a.channel, s, k, a.rank, j % perStep);
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
        At a = at(t);
        return a.up ? a.rank : a.channel.tree.parent[a.rank];
    }

    @Override
    public int dst(int t) {
        At a = at(t);
        return a.up ? a.channel.tree.parent[a.rank] : a.rank;
    }

    @Override
    public int channel(int t) {
        return at(t).channel.index;
    }

    @Override
    public int step(int t) {
        return at(t).step;
    }

    @Override
    public int piece(int t) {
        At a = at(t);
        return a.channel.firstPiece + a.step * perStep + a.piece;
    }

    @Override
    public long bytes(int t) {
        return pieceLength(piece(t));
    }

    @Override
    public boolean reduces(int t) {
        return at(t).up;
    }

    @Override
    public double threadShare(int t) {
        At a = at(t);
        return !a.up && a.channel.tree.parent[a.rank] == a.channel.tree.root ? 1 : split.share(a.up);
    }

    @Override
    public boolean postedWithPrevious(int t) {
        At a = at(t);
        return a.piece > 0 && nodeOf[src(t)] != nodeOf[dst(t)];
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
        At a = at(t);
        Channel ch = a.channel;
        Tree tree = ch.tree;
        int count = 0;
        int j = a.step * perStep + a.piece;
        int length = streamLength(ch);
        if (j + 1 < length) {
            into[count++] = onStream(a, j + 1) << 1;
        }
        if (j + window < length) {
            into[count++] = onStream(a, j + window) << 1 | 1;
        }
        if (a.up) {
            int p = tree.parent[a.rank];
            if (p != tree.root) {
                count = waiting(into, count, upTransfer(ch, a.step, a.k, p, 0), a, across(p, tree.parent[p]));
            } else {
                for (int y : tree.children[p]) {
                    count = waiting(into, count, downTransfer(ch, a.step, a.k, y, 0), a, across(p, y));
                }
            }
        } else {
            for (int z : tree.children[a.rank]) {
                count = waiting(into, count, downTransfer(ch, a.step, a.k, z, 0), a, across(a.rank, z));
            }
        }
        Arrays.sort(into, 0, count);
        return count;
    }

    /** Adds the pieces of the send starting at {@code first} that wait for {@code a}'s delivery: all of its step's, or its own piece's. */
    private static int waiting(int[] into, int count, int first, At a, boolean wholeStep) {
        if (!wholeStep) {
            into[count++] = (first + a.piece) << 1 | 1;
            return count;
        }
        for (int i = 0; i < a.k; i++) {
            into[count++] = (first + i) << 1 | 1;
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
