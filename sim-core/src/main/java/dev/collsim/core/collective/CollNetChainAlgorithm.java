package dev.collsim.core.collective;

import static dev.collsim.core.collective.Sizes.alignUp;
import static dev.collsim.core.collective.Sizes.ceilDiv;


/**
 * NCCL's CollNet Chain all_reduce (after {@code src/device/all_reduce.h}): inside each node a chain
 * reduces each chunk up to the GPU whose NIC the channel uses, the SHARP switch of that rail sums the
 * nodes' results in the network and returns the total, and the chain passes it back down. The chain
 * turns by one GPU per channel so that the channels use different NICs.
 */
public final class CollNetChainAlgorithm implements CollectiveAlgorithm {
    private final int[][] nodes;
    private final long chunk;

    /**
     * @param nodes the ranks of each node by local index (all nodes the same size)
     * @param chunk the bytes of one step
     */
    public CollNetChainAlgorithm(int[][] nodes, long chunk) {
        this.nodes = Streams.sameSize(nodes, "CollNet Chain");
        this.chunk = chunk;
    }

    @Override
    public String name() {
        return "CollNetChain";
    }

    @Override
    public Schedule schedule(CollectiveRequest req) {
        if (req.op() != CollectiveOp.ALL_REDUCE || req.protocol() != Protocol.SIMPLE) {
            throw new IllegalArgumentException("CollNet Chain is simulated for all_reduce with Simple only");
        }
        ScheduleBuilder b = new ScheduleBuilder(req, name());
        int ppn = nodes[0].length;
        long perChannel = alignUp(ceilDiv(req.bytes(), req.channels()), 16);
        Streams streams = new Streams(b);
        for (int c = 0; c < req.channels(); c++) {
            long lo = c * perChannel;
            long hi = Math.min(req.bytes(), lo + perChannel);
            int step = 0;
            for (long off = lo; off < hi; off += chunk, step++) {
                int piece = b.piece(off, Math.min(chunk, hi - off), -1);
                int[][] up = new int[nodes.length][ppn];
                for (int k = 0; k < nodes.length; k++) {
                    for (int j = ppn - 1; j >= 1; j--) {
                        int from = nodes[k][(j + c) % ppn];
                        int to = nodes[k][(j - 1 + c) % ppn];
                        up[k][j] = streams.next(Streams.key(0, c, from, to), b.transfer(c, step, from, to, piece, true));
                        if (j < ppn - 1) {
                            b.afterDelivery(up[k][j], up[k][j + 1]);
                        }
                    }
                }
                int net = streams.next(Streams.key(1, c, -1, -1), b.networkAllReduce(c, step, nodes[0][c % ppn], piece));
                for (int k = 0; k < nodes.length; k++) {
                    if (ppn > 1) {
                        b.afterDelivery(net, up[k][1]);
                    }
                }
                for (int k = 0; k < nodes.length; k++) {
                    int previous = net;
                    for (int j = 1; j < ppn; j++) {
                        int from = nodes[k][(j - 1 + c) % ppn];
                        int to = nodes[k][(j + c) % ppn];
                        int down = streams.next(Streams.key(2, c, from, to), b.transfer(c, step, from, to, piece, false));
                        b.afterDelivery(down, previous);
                        previous = down;
                    }
                }
            }
        }
        return b.build();
    }

}
