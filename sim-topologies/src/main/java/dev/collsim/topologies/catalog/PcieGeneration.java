package dev.collsim.topologies.catalog;

import dev.collsim.core.units.Rate;
import dev.collsim.core.units.TimeSpan;

/**
 * PCIe generations, x16. The line rate is per direction (the "128 GB/s" of Gen5 x16 is both
 * directions); the effective rate takes off TLP headers and flow control, about 85 % (H2D pinned
 * copies measure about 55 GB/s on Gen5 x16).
 */
public enum PcieGeneration {
    GEN4("PCIe Gen4 x16", 32.0),
    GEN5("PCIe Gen5 x16", 64.0);

    /** One PCIe hop (a switch port or the GPU's own). */
    public static final TimeSpan HOP_LATENCY = TimeSpan.ofNanos(200);
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
