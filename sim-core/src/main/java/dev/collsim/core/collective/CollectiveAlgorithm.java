package dev.collsim.core.collective;

import java.util.Optional;

/**
 * An algorithm turns a fully chosen collective into a schedule of chunk transfers. It knows the
 * logical topology it was given (a ring order, trees) but nothing of the physical fabric.
 */
public interface CollectiveAlgorithm {
    /** Short name as NCCL prints it, e.g. {@code Ring}. */
    String name();

    Schedule schedule(CollectiveRequest request);

    /**
     * One orbit of {@link #schedule}'s transfers, if the algorithm knows its schedule to be the same
     * under a turn of the ranks; empty if not. The runner uses it only where the fabric is the same
     * under that turn as well.
     */
    default Optional<FoldedSchedule> folded(CollectiveRequest request) {
        return Optional.empty();
    }
}
