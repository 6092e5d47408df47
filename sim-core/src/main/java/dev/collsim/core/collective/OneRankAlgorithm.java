package dev.collsim.core.collective;

/**
 * A collective on a communicator of one rank. NCCL launches no kernel for it ({@code ncclLaunchOneRank},
 * {@code src/enqueue.cc}): out of place, the output is the input, copied by the GPU's copy engine
 * ({@code cudaMemcpyAsync} from the send buffer to the receive buffer, {@code count} elements of the
 * output); a send to oneself is the same copy. The schedule is that one copy.
 */
public final class OneRankAlgorithm implements CollectiveAlgorithm {
    @Override
    public String name() {
        return "OneRank";
    }

    @Override
    public Schedule schedule(CollectiveRequest request) {
        if (request.nRanks() != 1) {
            throw new IllegalArgumentException("one rank's copy on " + request.nRanks() + " ranks");
        }
        ScheduleBuilder b = new ScheduleBuilder(request, name());
        int piece = b.piece(0, request.bytes(), 0);
        b.localCopy(0, 0, 0, piece, request.bytes());
        return b.build();
    }
}
