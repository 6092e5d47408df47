package dev.collsim.core.collective;

import dev.collsim.core.input.InputException;
import java.util.Arrays;
import java.util.stream.Collectors;

/** The collective operations, named as nccl-tests names them. */
public enum CollectiveOp {
    ALL_REDUCE("all_reduce"),
    ALL_GATHER("all_gather"),
    REDUCE_SCATTER("reduce_scatter"),
    BROADCAST("broadcast"),
    REDUCE("reduce"),
    /** Every rank sends a distinct block to every rank (nccl-tests' size is one rank's whole send buffer). */
    ALL_TO_ALL("alltoall"),
    /** Every rank sends its buffer to the next rank and receives from the previous one. */
    SEND_RECV("sendrecv");

    private final String ncclName;

    CollectiveOp(String ncclName) {
        this.ncclName = ncclName;
    }

    /** The nccl-tests name without {@code _perf}, e.g. {@code all_reduce}. */
    public String ncclName() {
        return ncclName;
    }

    public static CollectiveOp fromName(String name) {
        for (CollectiveOp op : values()) {
            if (op.ncclName.equalsIgnoreCase(name) || op.name().equalsIgnoreCase(name)) {
                return op;
            }
        }
        throw new InputException("unknown operation '" + name + "'; expected one of "
                + Arrays.stream(values()).map(CollectiveOp::ncclName).collect(Collectors.joining(", ")));
    }

    /** True if the operation combines values (sum, max...), false if it only copies. */
    public boolean reduces() {
        return this == ALL_REDUCE || this == REDUCE_SCATTER || this == REDUCE;
    }

    /** True if a root rank takes part specially (broadcast from it, reduce to it). */
    public boolean rooted() {
        return this == BROADCAST || this == REDUCE;
    }

    /**
     * True if nccl-tests' size column is the total over all ranks (all_gather's output,
     * reduce_scatter's input) rather than one rank's buffer.
     */
    public boolean sizeIsTotal() {
        return this == ALL_GATHER || this == REDUCE_SCATTER || this == ALL_TO_ALL;
    }

    /** True if NCCL runs it as point-to-point sends and receives rather than a collective algorithm. */
    public boolean pointToPoint() {
        return this == ALL_TO_ALL || this == SEND_RECV;
    }

    /** nccl-tests' busbw = algbw x this factor (src/*.cu of nccl-tests). */
    public double busBandwidthFactor(int nRanks) {
        return switch (this) {
            case ALL_REDUCE -> 2.0 * (nRanks - 1) / nRanks;
            case ALL_GATHER, REDUCE_SCATTER, ALL_TO_ALL -> (nRanks - 1) / (double) nRanks;
            case BROADCAST, REDUCE, SEND_RECV -> 1.0;
        };
    }
}
