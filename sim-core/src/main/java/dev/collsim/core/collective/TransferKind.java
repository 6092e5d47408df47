package dev.collsim.core.collective;

/** How a transfer crosses the fabric. */
public enum TransferKind {
    /** From one rank's GPU to another's, over the route between them. */
    P2P,
    /**
     * An in-switch all-reduce of one piece over the ranks that share the sender's NVLS switch
     * (NCCL's NVLS step): every rank's copy goes up to the switch, which reduces it
     * ({@code multimem.ld_reduce}) for the piece's head ranks, and the heads' results come back down
     * to every rank by multicast ({@code multimem.st}). On each rank's link that is the piece's size
     * times (1 + 1/ranks) in each direction, instead of ring's 2 (ranks - 1)/ranks.
     */
    SWITCH_ALLREDUCE,
    /**
     * An in-switch reduction of one piece to one rank ({@code multimem.ld_reduce}): every rank on the
     * receiver's switch sends its copy up, the sum comes down to the receiver. {@code src(t) == ALL}.
     */
    SWITCH_REDUCE,
    /**
     * A multicast of one piece from one rank to every rank on its switch ({@code multimem.st}).
     * {@code dst(t) == ALL}.
     */
    SWITCH_MULTICAST,
    /**
     * An in-network all-reduce (SHARP) of one piece over the ranks whose NICs share the sender's
     * SHARP switch: each sends its copy up through its NIC and receives the sum back, the piece's
     * size in each direction. {@code dst(t) == ALL}.
     */
    NETWORK_ALLREDUCE,
    /**
     * A copy inside one GPU's memory by a channel's copy warps (NVLS's scatter into and gather out
     * of its buffers): it crosses no link and takes {@code bytes / copy rate}.
     */
    LOCAL_COPY
}
