package dev.collsim.core.collective;

/**
 * One collective as an algorithm sees it, with everything chosen.
 *
 * @param op        the operation
 * @param nRanks    ranks taking part
 * @param bytes     nccl-tests' size: one rank's buffer, or the total for all_gather and reduce_scatter
 * @param root      the root rank of broadcast and reduce (ignored otherwise)
 * @param protocol  the wire protocol
 * @param channels  channels (CTAs) the collective is spread over
 */
public record CollectiveRequest(CollectiveOp op, int nRanks, long bytes, int root, Protocol protocol, int channels) {
    public CollectiveRequest {
        if (nRanks < 1) {
            throw new IllegalArgumentException("a collective needs at least one rank");
        }
        if (bytes < 0) {
            throw new IllegalArgumentException("negative size");
        }
        if (op.sizeIsTotal() && bytes % nRanks != 0) {
            throw new IllegalArgumentException(op.ncclName() + " size " + bytes + " is not a multiple of " + nRanks + " ranks");
        }
        if (channels < 1) {
            throw new IllegalArgumentException("a collective needs at least one channel");
        }
        if (root < 0 || root >= nRanks) {
            throw new IllegalArgumentException("root " + root + " is not a rank of " + nRanks);
        }
    }

    /** Bytes of one rank's segment (all_gather: its input; alltoall: one block for one peer). */
    public long bytesPerRankSegment() {
        return op.sizeIsTotal() ? bytes / nRanks : bytes;
    }

    /**
     * Size of the logical buffer the schedule's pieces tile: one rank's buffer, the all_gather
     * output, or for alltoall and sendrecv every rank's send buffer side by side.
     */
    public long logicalBytes() {
        return op.pointToPoint() ? bytes * nRanks : bytes;
    }
}
