package dev.collsim.core.collective;

/**
 * An algorithm turns a fully chosen collective into a schedule of chunk transfers. It knows the
 * logical topology it was given (a ring order, trees) but nothing of the physical fabric.
 */
public interface CollectiveAlgorithm {
    /** Short name as NCCL prints it, e.g. {@code Ring}. */
    String name();

    Schedule schedule(CollectiveRequest request);
}
