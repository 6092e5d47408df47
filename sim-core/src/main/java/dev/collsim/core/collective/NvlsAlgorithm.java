package dev.collsim.core.collective;

import static dev.collsim.core.collective.Sizes.alignUp;
import static dev.collsim.core.collective.Sizes.ceilDiv;

/**
 * NCCL's NVLS all_reduce inside one NVLink domain (after {@code src/device/all_reduce.h},
 * {@code src/enqueue.cc}, {@code src/transport/nvls.cc}).
 *
 * <p>The buffer is split into one contiguous range per channel. Each channel loops over its range in
 * steps of {@code ranks x chunk}, and its three warp groups form a pipeline over the steps: every
 * rank <em>scatters</em> the step's input into the NVLS buffers (a {@link TransferKind#LOCAL_COPY});
 * once all have, each rank, as head of one chunk, reads that chunk reduced by the switch and writes
 * the result back through the switch's multicast (one {@link TransferKind#SWITCH_ALLREDUCE} of the
 * step's piece); then every rank <em>gathers</em> the results into its output (another local copy).
 * Each group works through the steps in order, and a step reuses one of the {@link Protocol#STEPS}
 * buffer slots only once the step that used it before has been gathered everywhere.
 *
 * <p>The chunk is {@code NCCL_NVLS_CHUNKSIZE} (128 KiB), shrunk for small messages as NCCL does:
 * with {@code ops = channels x ranks}, 64 KiB below {@code 64 x ops x 128 KiB}, 32 KiB below
 * {@code 8 x ops x 128 KiB}, 16 KiB below {@code 2 x ops x 128 KiB}.
 */
public final class NvlsAlgorithm implements CollectiveAlgorithm {
    public static final long CHUNK = 128 * 1024;
    private static final long ALIGN = 16;

    @Override
    public String name() {
        return "NVLS";
    }

    /** The NVLS chunk NCCL uses for a message of {@code bytes} on {@code channels} x {@code ranks} heads. */
    public static long chunkFor(long bytes, int channels, int ranks) {
        long ops = (long) channels * ranks;
        if (bytes < 2 * ops * CHUNK) {
            return 16 * 1024;
        } else if (bytes < 8 * ops * CHUNK) {
            return 32 * 1024;
        } else if (bytes < 64 * ops * CHUNK) {
            return 64 * 1024;
        }
        return CHUNK;
    }

    @Override
    public Schedule schedule(CollectiveRequest req) {
        if (req.op() != CollectiveOp.ALL_REDUCE) {
            throw new IllegalArgumentException("NVLS is simulated for all_reduce only, not " + req.op().ncclName());
        }
        if (req.protocol() != Protocol.SIMPLE) {
            throw new IllegalArgumentException("NVLS runs with the Simple protocol only");
        }
        ScheduleBuilder b = new ScheduleBuilder(req, name());
        int n = req.nRanks();
        long bytes = req.bytes();
        long perChannel = alignUp(ceilDiv(bytes, req.channels()), ALIGN);
        long step = n * chunkFor(bytes, req.channels(), n);
        for (int c = 0; c < req.channels(); c++) {
            long lo = c * perChannel;
            long hi = Math.min(bytes, lo + perChannel);
            int steps = (int) ceilDiv(Math.max(0, hi - lo), step);
            int[] reduce = new int[steps];
            int[][] scatter = new int[steps][n];
            int[][] gather = new int[steps][n];
            for (int k = 0; k < steps; k++) {
                long off = lo + k * step;
                int piece = b.piece(off, Math.min(step, hi - off), -1);
                for (int r = 0; r < n; r++) {
                    scatter[k][r] = b.localCopy(c, k, r, piece);
                    if (k > 0) {
                        b.afterSend(scatter[k][r], scatter[k - 1][r]);
                    }
                }
                reduce[k] = b.switchAllReduce(c, k, 0, piece);
                for (int r = 0; r < n; r++) {
                    b.afterDelivery(reduce[k], scatter[k][r]);
                    if (k >= Protocol.STEPS) {
                        b.afterDelivery(reduce[k], gather[k - Protocol.STEPS][r]);
                    }
                }
                if (k > 0) {
                    b.afterSend(reduce[k], reduce[k - 1]);
                }
                for (int r = 0; r < n; r++) {
                    gather[k][r] = b.localCopy(c, k, r, piece);
                    b.afterDelivery(gather[k][r], reduce[k]);
                    if (k > 0) {
                        b.afterSend(gather[k][r], gather[k - 1][r]);
                    }
                }
            }
        }
        return b.build();
    }
}
