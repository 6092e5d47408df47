package dev.collsim.core.collective;

import static dev.collsim.core.collective.Sizes.alignUp;
import static dev.collsim.core.collective.Sizes.ceilDiv;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * NCCL's PAT (Parallel Aggregated Trees) all_gather and reduce_scatter for one GPU per node
 * (S. Jeaugey, arXiv:2506.20252; {@code PatAGAlgorithm}, {@code PatRSAlgorithm} in
 * {@code src/include/collectives.h}): a logarithmic number of network steps instead of ring's n-1.
 *
 * <p>all_gather follows the doubling pattern: in step k (distance d = 2^k) every rank sends the
 * blocks it has gathered so far, at most d of them, to the rank d before it, so that after
 * ceil(log2 n) steps every rank holds every block; each block travels down its own tree.
 * reduce_scatter runs the same trees backwards: a rank sends a block's partial sum towards the
 * block's owner once the partial sums of every rank it would have forwarded that block to have
 * arrived. Each channel moves its range in chunks, with {@link Protocol#STEPS} slots of credit per
 * connection.
 */
public final class PatAlgorithm implements CollectiveAlgorithm {
    /** NCCL's starting PAT chunk, one Simple step. */
    public static final long CHUNK = Protocol.SIMPLE.stepDataBytes();
    private static final long MIN_RS_CHUNK = 64 * 1024;
    private static final long ALIGN = 16;

    @Override
    public String name() {
        return "PAT";
    }

    /** NCCL's PAT chunk: halved while too big for the message (all_gather: 32 chunks a channel, reduce_scatter: 16). */
    public static long chunkFor(CollectiveOp op, long bytes, int channels) {
        long chunk = CHUNK;
        int factor = op == CollectiveOp.ALL_GATHER ? 32 : 16;
        long floor = op == CollectiveOp.ALL_GATHER ? 1024 : MIN_RS_CHUNK;
        while (chunk * channels * factor > bytes && chunk / 2 >= floor) {
            chunk /= 2;
        }
        return chunk;
    }

    /** One edge of all_gather's trees: in step {@code step}, {@code from} sends block {@code block} to {@code to}. */
    private record Edge(int step, int from, int to, int block) {}

    /** The all_gather edges for n ranks in step order. */
    private static List<Edge> gatherEdges(int n) {
        List<Edge> edges = new ArrayList<>();
        int step = 0;
        for (int d = 1; d < n; d *= 2, step++) {
            int count = Math.min(d, n - d);
            for (int r = 0; r < n; r++) {
                int to = Math.floorMod(r - d, n);
                for (int i = 0; i < count; i++) {
                    edges.add(new Edge(step, r, to, (r + i) % n));
                }
            }
        }
        return edges;
    }

    @Override
    public Schedule schedule(CollectiveRequest req) {
        CollectiveOp op = req.op();
        if (op != CollectiveOp.ALL_GATHER && op != CollectiveOp.REDUCE_SCATTER) {
            throw new IllegalArgumentException("PAT runs all_gather and reduce_scatter only, not " + op.ncclName());
        }
        if (req.protocol() != Protocol.SIMPLE) {
            throw new IllegalArgumentException("PAT runs with the Simple protocol only");
        }
        ScheduleBuilder b = new ScheduleBuilder(req, name());
        int n = req.nRanks();
        long segment = req.bytesPerRankSegment();
        long perChannel = alignUp(ceilDiv(segment, req.channels()), ALIGN);
        long chunk = chunkFor(op, req.bytes(), req.channels());
        List<Edge> edges = gatherEdges(n);
        Streams connections = new Streams(b);
        for (int c = 0; c < req.channels(); c++) {
            long lo = c * perChannel;
            long hi = Math.min(segment, lo + perChannel);
            for (long off = lo; off < hi; off += chunk) {
                long len = Math.min(chunk, hi - off);
                int[] piece = new int[n];
                for (int blk = 0; blk < n; blk++) {
                    piece[blk] = b.piece((long) blk * segment + off, len, blk);
                }
                int step = (int) ((off - lo) / chunk);
                if (op == CollectiveOp.ALL_GATHER) {
                    gather(b, connections, c, step, n, edges, piece);
                } else {
                    scatterReduce(b, connections, c, step, n, edges, piece);
                }
            }
        }
        return b.build();
    }

    private static void gather(ScheduleBuilder b, Streams connections, int c, int chunkIndex, int n,
                               List<Edge> edges, int[] piece) {
        int[][] arrived = new int[n][n]; // transfer that brought block to rank, -1 if the rank's own
        for (int[] row : arrived) {
            Arrays.fill(row, -1);
        }
        for (Edge e : edges) {
            int t = send(b, connections, c, chunkIndex, e.from, e.to, piece[e.block], false);
            if (arrived[e.from][e.block] >= 0) {
                b.afterDelivery(t, arrived[e.from][e.block]);
            }
            arrived[e.to][e.block] = t;
        }
    }

    private static void scatterReduce(ScheduleBuilder b, Streams connections, int c, int chunkIndex, int n,
                                      List<Edge> edges, int[] piece) {
        // Reverse every all_gather edge; the reverse of (x -> y, block) waits for the reverses of y's own forwards.
        Map<Long, List<Integer>> forwardedBy = new HashMap<>();
        for (int i = edges.size() - 1; i >= 0; i--) {
            Edge e = edges.get(i);
            int t = send(b, connections, c, chunkIndex, e.to, e.from, piece[e.block], true);
            for (int before : forwardedBy.getOrDefault(key(e.to, e.block), List.of())) {
                b.afterDelivery(t, before);
            }
            forwardedBy.computeIfAbsent(key(e.from, e.block), k -> new ArrayList<>()).add(t);
        }
    }

    private static long key(int rank, int block) {
        return ((long) rank << 32) | block;
    }

    private static int send(ScheduleBuilder b, Streams connections, int c, int step, int from, int to, int piece,
                            boolean reduce) {
        return connections.next(Streams.key(0, c, from, to), b.transfer(c, step, from, to, piece, reduce));
    }
}
