package dev.collsim.core.collective;

import static dev.collsim.core.collective.Sizes.alignUp;
import static dev.collsim.core.collective.Sizes.ceilDiv;


/**
 * NCCL's CollNet Direct all_reduce: in-network reduction with InfiniBand SHARP (after
 * {@code src/device/all_reduce.h} and {@code connectCollNet} in {@code src/graph/connect.cc}).
 *
 * <p>Every GPU with a NIC is a head. Per channel and step, each rank sends chunk {@code h} of its
 * input to the head {@code h} of its node, which reduces them (the scatter); the heads {@code h} of all
 * nodes send their node's sum through their NICs to the SHARP switch of their rail, which returns
 * the total to each (one {@link TransferKind#NETWORK_ALLREDUCE}); each head then writes the total to
 * the other ranks of its node (the gather). The network carries the data once each way, whatever
 * the number of nodes.
 */
public final class CollNetDirectAlgorithm implements CollectiveAlgorithm {
    private static final long ALIGN = 16;
    /** The scatter and gather are separate warp groups: separate streams even between the same two ranks. */
    private static final int SCATTER = 0;
    private static final int GATHER = 1;
    private static final int NETWORK = 2;

    private final int[][] nodes;
    private final long chunk;

    /**
     * @param nodes the ranks of each node by local index (all nodes the same size)
     * @param chunk the bytes one head handles per step
     */
    public CollNetDirectAlgorithm(int[][] nodes, long chunk) {
        this.nodes = Streams.sameSize(nodes, "CollNet Direct");
        this.chunk = chunk;
    }

    @Override
    public String name() {
        return "CollNetDirect";
    }

    @Override
    public Schedule schedule(CollectiveRequest req) {
        if (req.op() != CollectiveOp.ALL_REDUCE || req.protocol() != Protocol.SIMPLE) {
            throw new IllegalArgumentException("CollNet Direct is simulated for all_reduce with Simple only");
        }
        ScheduleBuilder b = new ScheduleBuilder(req, name());
        int ppn = nodes[0].length;
        long perChannel = alignUp(ceilDiv(req.bytes(), req.channels()), ALIGN);
        Streams streams = new Streams(b);
        for (int c = 0; c < req.channels(); c++) {
            long lo = c * perChannel;
            long hi = Math.min(req.bytes(), lo + perChannel);
            int step = 0;
            for (long off = lo; off < hi; off += ppn * chunk, step++) {
                long end = Math.min(hi, off + ppn * chunk);
                long headChunk = alignUp(ceilDiv(end - off, ppn), ALIGN);
                for (int h = 0; h < ppn; h++) {
                    long from = Math.min(end, off + h * headChunk);
                    int piece = b.piece(from, Math.min(end, from + headChunk) - from, -1);
                    int net = b.networkAllReduce(c, step, nodes[0][h], piece);
                    streams.next(Streams.key(NETWORK, c, h, -1), net);
                    for (int[] node : nodes) {
                        for (int j = 0; j < ppn; j++) {
                            if (j != h) {
                                int in = streams.next(Streams.key(SCATTER, c, node[j], node[h]),
                                        b.transfer(c, step, node[j], node[h], piece, true));
                                b.afterDelivery(net, in);
                            }
                        }
                    }
                    for (int[] node : nodes) {
                        for (int j = 0; j < ppn; j++) {
                            if (j != h) {
                                int out = streams.next(Streams.key(GATHER, c, node[h], node[j]),
                                        b.transfer(c, step, node[h], node[j], piece, false));
                                b.afterDelivery(out, net);
                            }
                        }
                    }
                }
            }
        }
        return b.build();
    }


}
