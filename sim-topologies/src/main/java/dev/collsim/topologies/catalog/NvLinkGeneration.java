package dev.collsim.topologies.catalog;

import dev.collsim.core.units.Rate;
import dev.collsim.core.units.TimeSpan;

/**
 * NVLink generations. {@code lineRate} is the signalling rate of one link in one direction (the
 * marketing "bidirectional" total is twice the sum over links); {@code effectiveRate} is the data
 * rate one link delivers, NCCL's own per-link model ({@code ncclTopoNVLinkBw} in
 * {@code src/graph/topo.h}), which matches measured point-to-point bandwidth: 18 x 20.6 = 371 GB/s
 * on H100 against 363-394 GB/s measured by p2pBandwidthLatencyTest (calibration set SE_P2P_H100).
 */
public enum NvLinkGeneration {
    NVLINK3("NVLink3", 25.0, 20.0),
    NVLINK4("NVLink4", 25.0, 20.6),
    NVLINK5("NVLink5", 50.0, 40.1);

    /**
     * One hop between a GPU and an NVSwitch. Together with the protocols' notify latencies this
     * makes NCCL's per-step NVLink latencies ({@code hwLat[NVLINK][Ring]}); the split between wire and
     * protocol is an assumption that only matters once other link types join the route.
     */
    public static final TimeSpan HOP_LATENCY = TimeSpan.ofNanos(250);

    private final String label;
    private final double lineGBps;
    private final double effectiveGBps;

    NvLinkGeneration(String label, double lineGBps, double effectiveGBps) {
        this.label = label;
        this.lineGBps = lineGBps;
        this.effectiveGBps = effectiveGBps;
    }

    public String label() {
        return label;
    }

    public Rate lineRate() {
        return Rate.gigabytesPerSecond(lineGBps);
    }

    public Rate effectiveRate() {
        return Rate.gigabytesPerSecond(effectiveGBps);
    }
}
