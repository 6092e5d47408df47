package dev.collsim.core.collective;

import static dev.collsim.core.collective.Sizes.alignUp;
import static dev.collsim.core.collective.Sizes.ceilDiv;

/**
 * The all-reduce kernels inference engines use instead of NCCL for small messages inside one
 * NVLink domain (vLLM {@code custom_all_reduce.cuh}, TensorRT-LLM {@code customAllReduceKernels}):
 * one kernel of up to {@value #MAX_BLOCKS} blocks, each block one channel here, working on
 * registered buffers, so no copy in or out and no pipeline.
 * <ul>
 *   <li>{@link Variant#ONE_SHOT}: every rank writes its whole input into every peer's buffer, and each
 *       rank reduces the n copies it holds: (n-1) x D on every link and direction.</li>
 *   <li>{@link Variant#TWO_SHOT}: a reduce-scatter (rank r writes block j of its input to rank j),
 *       a barrier, then an all-gather of the reduced blocks: 2 (n-1)/n x D per link and direction.</li>
 *   <li>{@link Variant#MULTIMEM}: one NVLS reduction and multicast of the whole buffer through the
 *       switch ({@code multimem.ld_reduce} + {@code multimem.st}), D (1 + 1/n) per link and direction.</li>
 * </ul>
 * Blocks: one per 8 KiB (512 threads x 16 bytes), at most {@value #MAX_BLOCKS}.
 */
public final class CustomAllReduceAlgorithm implements CollectiveAlgorithm {
    public static final int MAX_BLOCKS = 36;
    private static final long BYTES_PER_BLOCK = 512 * 16;
    private static final long ALIGN = 16;

    /** The kernel. */
    public enum Variant {
        ONE_SHOT("OneShot"), TWO_SHOT("TwoShot"), MULTIMEM("Multimem");

        private final String label;

        Variant(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }

    private final Variant variant;

    public CustomAllReduceAlgorithm(Variant variant) {
        this.variant = variant;
    }

    /** Blocks the kernel launches for a message (vLLM: {@code min(36, ceil(packs / 512))}). */
    public static int blocksFor(long bytes) {
        return (int) Math.max(1, Math.min(MAX_BLOCKS, (bytes + BYTES_PER_BLOCK - 1) / BYTES_PER_BLOCK));
    }

    @Override
    public String name() {
        return variant.label();
    }

    @Override
    public Schedule schedule(CollectiveRequest req) {
        if (req.op() != CollectiveOp.ALL_REDUCE) {
            throw new IllegalArgumentException(name() + " is an all_reduce kernel, not " + req.op().ncclName());
        }
        ScheduleBuilder b = new ScheduleBuilder(req, name());
        int n = req.nRanks();
        long perBlock = alignUp(ceilDiv(req.bytes(), req.channels()), ALIGN);
        for (int c = 0; c < req.channels(); c++) {
            long lo = c * perBlock;
            long hi = Math.min(req.bytes(), lo + perBlock);
            if (hi <= lo) {
                break;
            }
            switch (variant) {
                case ONE_SHOT -> {
                    int piece = b.piece(lo, hi - lo, -1);
                    for (int src = 0; src < n; src++) {
                        for (int d = 1; d < n; d++) {
                            b.transfer(c, 0, src, (src + d) % n, piece, true);
                        }
                    }
                }
                case TWO_SHOT -> twoShot(b, c, n, lo, hi);
                case MULTIMEM -> b.switchAllReduce(c, 0, 0, b.piece(lo, hi - lo, -1));
            }
        }
        return b.build();
    }

    /** Reduce-scatter into each block's owner, then the owner writes the reduced block to everyone. */
    private static void twoShot(ScheduleBuilder b, int c, int n, long lo, long hi) {
        long block = alignUp(ceilDiv(hi - lo, n), ALIGN);
        for (int owner = 0; owner < n; owner++) {
            long from = Math.min(hi, lo + owner * block);
            int piece = b.piece(from, Math.min(hi, from + block) - from, -1);
            int[] in = new int[n - 1];
            for (int d = 1; d < n; d++) {
                in[d - 1] = b.transfer(c, 0, (owner + d) % n, owner, piece, true);
            }
            for (int d = 1; d < n; d++) {
                int out = b.transfer(c, 1, owner, (owner + d) % n, piece, false);
                for (int t : in) {
                    b.afterDelivery(out, t);
                }
            }
        }
    }
}
