package dev.collsim.topologies.catalog;

import dev.collsim.core.units.Rate;
import dev.collsim.core.units.TimeSpan;

/**
 * PCIe generations, x16. The line rate is per direction (the "128 GB/s" of Gen5 x16 is both
 * directions); the effective rate takes off TLP headers and flow control, about 85 % (H2D pinned
 * copies measure about 55 GB/s on Gen5 x16).
 */
public enum PcieGeneration {
    GEN3("PCIe Gen3 x16", 16.0),
    GEN4("PCIe Gen4 x16", 32.0),
    GEN5("PCIe Gen5 x16", 64.0),
    /** Blackwell Ultra's host and NIC links (B300; ConnectX-8's built-in PCIe switch is Gen6). */
    GEN6("PCIe Gen6 x16", 128.0);

    /** The width of every preset's PCIe links. */
    public static final int LANES = 16;
    /** One PCIe hop (a switch port or the GPU's own). */
    public static final TimeSpan HOP_LATENCY = TimeSpan.ofNanos(200);
    /**
     * Between two CPU sockets (UPI or xGMI), per direction, for traffic that crosses them: what
     * {@code topo import} assumes too. Peer traffic across sockets runs well below the links' sum.
     */
    public static final Rate SOCKET_LINK = Rate.gigabytesPerSecond(40);
    public static final TimeSpan SOCKET_LATENCY = TimeSpan.ofNanos(300);
    private static final double EFFICIENCY = 0.85;

    private final String label;
    private final double lineGBps;

    PcieGeneration(String label, double lineGBps) {
        this.label = label;
        this.lineGBps = lineGBps;
    }

    public String label() {
        return label;
    }

    public Rate effectiveRate() {
        return Rate.gigabytesPerSecond(lineGBps * EFFICIENCY);
    }

    /** The effective rate of any link by its transfer rate per lane and its width, as sysfs reports them. */
    public static Rate effectiveRate(double gigatransfersPerSecond, int lanes) {
        return Rate.gigabytesPerSecond(gigatransfersPerSecond * lanes / 8 * EFFICIENCY);
    }
}
