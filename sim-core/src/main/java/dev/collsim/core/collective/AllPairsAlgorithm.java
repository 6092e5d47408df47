package dev.collsim.core.collective;

import static dev.collsim.core.collective.Sizes.alignUp;
import static dev.collsim.core.collective.Sizes.ceilDiv;

import java.util.Arrays;

/**
 * MSCCL's all-pairs all-reduce, which RCCL runs instead of its tuner's ring on one node of eight Instinct GPUs that every
 * pair joins directly ({@code tools/msccl-algorithms/allreduce-allpairs-8n-*.xml}): two steps where a ring takes
 * 2(n-1). Each channel owns a range of the buffer, cut in one block per rank. In the first step every rank sends each
 * peer that peer's block (a reduce-scatter by direct sends); each owner sums the n-1 blocks it receives into its own; in
 * the second step each owner sends its summed block to every peer (an all-gather). Every peer connection of a channel
 * is a thread block of its own ({@code <tb>} per peer), so a rank sends to all its peers at once, over a link each on an
 * xGMI mesh, and a thread block sends its second step only after its first.
 *
 * <p>Every message RCCL gives it (20 MiB at most) fits one pass of the algorithm's chunks.
 */
public final class AllPairsAlgorithm implements CollectiveAlgorithm {
    private static final long ALIGN = 16;

    @Override
    public String name() {
        return "AllPairs";
    }

    @Override
    public Schedule schedule(CollectiveRequest req) {
        if (req.op() != CollectiveOp.ALL_REDUCE) {
            throw new IllegalArgumentException(name() + " is an all_reduce algorithm, not " + req.op().ncclName());
        }
        ScheduleBuilder b = new ScheduleBuilder(req, name());
        int n = req.nRanks();
        long perChannel = alignUp(ceilDiv(req.bytes(), req.channels()), ALIGN);
        for (int c = 0; c < req.channels(); c++) {
            // A channel with nothing left still runs its steps, as NCCL's do: empty blocks still synchronise.
            long lo = Math.min(req.bytes(), c * perChannel);
            pass(b, c, n, lo, Math.min(req.bytes(), lo + perChannel), new Blocks(n));
        }
        return b.build();
    }

    /**
     * Channel {@code c}'s range {@code [lo, hi)}: a block per owner, summed into it, then sent to every peer. A
     * send lands in the receiver's buffer of its connection; the receiving thread block copies it out (into the scratch
     * the owner sums from, or into the output) after its own send of the step and before its next. The owner's thread
     * blocks then sum the scratch into its block ({@code re} steps, a share each) before any sends it on.
     */
    private static void pass(ScheduleBuilder b, int c, int n, long lo, long hi, Blocks tb) {
        long block = alignUp(ceilDiv(hi - lo, n), ALIGN);
        int[] pieces = new int[n];
        int[][] in = new int[n][n - 1];
        for (int owner = 0; owner < n; owner++) {
            long from = Math.min(hi, lo + owner * block);
            pieces[owner] = b.piece(from, Math.min(hi, from + block) - from, -1);
            for (int d = 1; d < n; d++) {
                in[owner][d - 1] = tb.send(b, c, 0, (owner + d) % n, owner, pieces[owner], true);
            }
        }
        int[][] summed = new int[n][n - 1];
        for (int owner = 0; owner < n; owner++) {
            for (int d = 1; d < n; d++) {
                summed[owner][d - 1] = tb.copyOut(b, c, 0, owner, (owner + d) % n, pieces[owner], in[owner][d - 1]);
            }
        }
        int[][] sums = new int[n][n - 1];
        for (int owner = 0; owner < n; owner++) {
            // The n-1 received blocks summed into the owner's, the work spread over the channel's n thread blocks.
            long share = ceilDiv(b.pieceLength(pieces[owner]) * (n - 1), n);
            for (int d = 1; d < n; d++) {
                sums[owner][d - 1] = b.localCopy(c, 0, owner, pieces[owner], share);
                for (int copy : summed[owner]) {
                    b.afterDelivery(sums[owner][d - 1], copy);
                }
            }
        }
        int[][] out = new int[n][n - 1];
        for (int owner = 0; owner < n; owner++) {
            for (int d = 1; d < n; d++) {
                out[owner][d - 1] = tb.send(b, c, 1, owner, (owner + d) % n, pieces[owner], false);
                for (int sum : sums[owner]) {
                    b.afterDelivery(out[owner][d - 1], sum);
                }
            }
        }
        for (int owner = 0; owner < n; owner++) {
            for (int d = 1; d < n; d++) {
                tb.copyOut(b, c, 1, (owner + d) % n, owner, pieces[owner], out[owner][d - 1]);
            }
        }
    }

    /**
     * The thread blocks of one channel, one per (rank, peer) connection: what each did last, which its next step waits
     * for. The block of rank r for peer p both sends to p and receives from p.
     */
    private static final class Blocks {
        private final int[][] lastSend;
        private final int[][] lastCopy;

        Blocks(int n) {
            lastSend = new int[n][n];
            lastCopy = new int[n][n];
            for (int r = 0; r < n; r++) {
                Arrays.fill(lastSend[r], -1);
                Arrays.fill(lastCopy[r], -1);
            }
        }

        /** {@code src}'s block for {@code dst} sends, after its previous send and its previous copy out. */
        int send(ScheduleBuilder b, int c, int step, int src, int dst, int piece, boolean reduces) {
            int t = b.transfer(c, step, src, dst, piece, reduces);
            if (lastSend[src][dst] >= 0) {
                b.afterSend(t, lastSend[src][dst]);
            }
            if (lastCopy[src][dst] >= 0) {
                b.afterDelivery(t, lastCopy[src][dst]);
            }
            lastSend[src][dst] = t;
            return t;
        }

        /** {@code dst}'s block for {@code src}, after its own send, copies what {@code sent} delivered out of its buffer: the copy's number. */
        int copyOut(ScheduleBuilder b, int c, int step, int dst, int src, int piece, int sent) {
            int copy = b.localCopy(c, step, dst, piece);
            b.afterDelivery(copy, sent);
            if (lastSend[dst][src] >= 0) {
                b.afterSend(copy, lastSend[dst][src]);
            }
            if (lastCopy[dst][src] >= 0) {
                b.afterDelivery(copy, lastCopy[dst][src]);
            }
            lastCopy[dst][src] = copy;
            return copy;
        }
    }
}
