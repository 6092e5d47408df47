package dev.collsim.core.collective;

/**
 * NCCL's point-to-point path for alltoall and sendrecv (after {@code src/enqueue.cc},
 * {@code ncclP2pSchedule} in {@code src/init.cc}).
 *
 * <p>sendrecv: each rank sends its buffer to the next rank. alltoall: each rank sends one block to
 * every other rank, peers taken in NCCL's order (round {@code i} sends to {@code rank + d_i} with
 * {@code d_i = (i^2 + i)/2 mod 2^k}, skipping deltas outside the communicator), in batches of
 * {@value #PEERS_PER_BATCH} peers; a batch starts on a channel when the previous batch there has
 * finished. Each send is split into the request's channels' parts (aligned to 4 KiB; how many is
 * NCCL's rule, {@code NcclPlanner}), and each part moves as a pipeline of chunks with
 * {@link Protocol#STEPS} slots of credit. The rank's own block stays in its memory and is not simulated.
 */
public final class P2pAlgorithm implements CollectiveAlgorithm {
    public static final int PEERS_PER_BATCH = 8;
    private static final long PART_ALIGN = 4096;

    private final long chunkBytes;
    private final boolean network;

    /** @param chunkBytes the p2p chunk (NCCL: 512 KiB over NVLink, 128 KiB over PCIe or the network) */
    public P2pAlgorithm(long chunkBytes) {
        this(chunkBytes, false);
    }

    /**
     * @param network whether the sends cross nodes: a small send then moves in smaller chunks, as
     *                {@code addP2pToPlan} tunes them for the network (a quarter below one chunk
     *                under Simple, a half below eight)
     */
    public P2pAlgorithm(long chunkBytes, boolean network) {
        if (chunkBytes < 1) {
            throw new IllegalArgumentException("the chunk must be positive");
        }
        this.chunkBytes = chunkBytes;
        this.network = network;
    }

    @Override
    public String name() {
        return "P2P";
    }

    /** The peer deltas in NCCL's order: (i^2 + i)/2 mod the next power of two, those below n, 0 left out. */
    public static int[] peerDeltas(int n) {
        int pow2 = 1;
        while (pow2 < n) {
            pow2 <<= 1;
        }
        int[] out = new int[n - 1];
        int k = 0;
        for (long i = 0; i < pow2 && k < n - 1; i++) {
            int d = (int) (((i * i + i) / 2) % pow2);
            if (d > 0 && d < n) {
                out[k++] = d;
            }
        }
        return out;
    }

    @Override
    public Schedule schedule(CollectiveRequest req) {
        if (!req.op().pointToPoint()) {
            throw new IllegalArgumentException(req.op().ncclName() + " is not a point-to-point operation");
        }
        ScheduleBuilder b = new ScheduleBuilder(req, name());
        int n = req.nRanks();
        long block = req.bytesPerRankSegment();
        int[] deltas = req.op() == CollectiveOp.SEND_RECV ? new int[] {1} : peerDeltas(n);
        int window = Protocol.STEPS;
        long chunk = req.protocol() == Protocol.SIMPLE ? chunkBytes : Protocol.LL.stepDataBytes();
        if (network && req.protocol() == Protocol.SIMPLE) {
            chunk = block < chunkBytes ? chunk / 4 : block < 8 * chunkBytes ? chunk / 2 : chunk;
        }
        int parts = Math.max(1, req.channels());
        long partBytes = (block + parts - 1) / parts;
        partBytes = (partBytes + PART_ALIGN - 1) / PART_ALIGN * PART_ALIGN;
        for (int src = 0; src < n; src++) {
            if (req.op() == CollectiveOp.ALL_TO_ALL) {
                b.piece((long) src * req.bytes() + (long) src * block, block, src, src); // the block a rank keeps
            }
            // Last transfer of each part's channel in the previous batch: the next batch waits for it.
            int[] previousBatch = new int[parts];
            java.util.Arrays.fill(previousBatch, -1);
            int[] currentBatch = previousBatch.clone();
            for (int round = 0; round < deltas.length; round++) {
                if (round % PEERS_PER_BATCH == 0 && round > 0) {
                    previousBatch = currentBatch.clone();
                }
                int dst = (src + deltas[round]) % n;
                long base = (long) src * req.bytes() + (req.op() == CollectiveOp.ALL_TO_ALL ? (long) dst * block : 0);
                for (int part = 0; part < parts; part++) {
                    long lo = part * partBytes;
                    long hi = Math.min(block, lo + partBytes);
                    int last = -1;
                    IntList conn = new IntList();
                    for (long off = lo; off < hi; off += chunk) {
                        int piece = b.piece(base + off, Math.min(chunk, hi - off), src, dst);
                        int t = b.transfer(part, round, src, dst, piece, false);
                        if (last >= 0) {
                            b.afterSend(t, last);
                        } else if (previousBatch[part] >= 0) {
                            b.afterSend(t, previousBatch[part]);
                        }
                        if (conn.size() >= window) {
                            b.afterDelivery(t, conn.get(conn.size() - window));
                        }
                        conn.add(t);
                        last = t;
                    }
                    if (last >= 0) {
                        currentBatch[part] = last;
                    }
                }
            }
        }
        return b.build();
    }
}
