package dev.collsim.scenarios.explain;

import dev.collsim.core.collective.CollectiveOp;
import dev.collsim.core.collective.Protocol;
import dev.collsim.core.input.InputException;
import dev.collsim.core.nccl.AlgorithmId;
import dev.collsim.core.nccl.Communicator;
import dev.collsim.core.units.DataSize;
import java.util.Set;

/**
 * One collective to show transfer by transfer.
 *
 * @param comm       the GPUs taking part
 * @param size       the message; where the operation's size is the total, whole parts per rank of it
 * @param algorithms the algorithms NCCL's planner may choose from
 * @param protocols  the protocols it may choose from
 * @param channels   a fixed channel count, or 0 to choose as NCCL does
 */
public record ExplainSpec(Communicator comm, CollectiveOp op, DataSize size, Set<AlgorithmId> algorithms, Set<Protocol> protocols,
                          int channels) {
    public ExplainSpec {
        if (channels < 0 || channels > 64) {
            throw new InputException("--channels " + channels + ": expected 0 (as NCCL chooses) to 64");
        }
        algorithms = Set.copyOf(algorithms);
        protocols = Set.copyOf(protocols);
    }

    /** The bytes the collective moves: the size, cut to whole parts per rank where it is the total. */
    public long bytes() {
        int ranks = comm.nRanks();
        return op.sizeIsTotal() ? size.bytes() / ranks * ranks : size.bytes();
    }
}
