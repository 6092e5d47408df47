package dev.collsim.core.fabric;

/** Operations a switch performs on the data itself, beyond forwarding it. */
public enum Capability {
    /**
     * NVLink SHARP: the NVSwitch reduces what it reads from every GPU of a multicast group
     * ({@code multimem.ld_reduce}) and copies what one GPU writes to all of them ({@code multimem.st}).
     */
    NVLS
}
