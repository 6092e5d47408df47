package dev.collsim.core.fabric;

/** What a device in the fabric is; only forwarding devices may carry traffic between two others. */
public enum DeviceKind {
    GPU(false),
    NVSWITCH(true),
    PCIE_SWITCH(true),
    CPU(true),
    NIC(true),
    NETWORK_SWITCH(true);

    private final boolean forwards;

    DeviceKind(boolean forwards) {
        this.forwards = forwards;
    }

    /** True if routes may pass through a device of this kind (GPUs only send and receive). */
    public boolean forwards() {
        return forwards;
    }
}
