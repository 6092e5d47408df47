package dev.collsim.core.fabric;

/** Operations a switch performs on the data itself, beyond forwarding it. */
public enum Capability {
    /**
     * NVLink SHARP: the NVSwitch reduces what it reads from every GPU of a multicast group
     * ({@code multimem.ld_reduce}) and copies what one GPU writes to all of them ({@code multimem.st}).
     */
    NVLS,
    /**
     * In-network reduction (InfiniBand SHARP): the network switch sums what the NICs of a group
     * send it and returns the sum to each of them (NCCL's CollNet).
     */
    SHARP
}
