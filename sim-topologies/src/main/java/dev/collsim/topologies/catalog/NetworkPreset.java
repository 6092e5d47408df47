package dev.collsim.topologies.catalog;

import dev.collsim.core.input.InputException;
import dev.collsim.core.units.Rate;
import dev.collsim.core.units.TimeSpan;
import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * Scale-out networks, by the name {@code --network} takes. Rates are per NIC and per direction;
 * {@code efficiency} is the payload share of the wire after the transport's headers (InfiniBand's
 * 4 KiB MTU and its headers: about 0.97, which puts a 400 Gb/s NIC at the 48-49 GB/s that
 * {@code ib_write_bw} and nccl-tests measure).
 *
 * @param nicsPerGpu     NICs on each GPU's PCIe switch
 * @param hopLatency     a NIC-to-switch cable and the switch behind it
 * @param latencyInter   the network plugin's extra latency NCCL's tuner adds per network step
 *                       ({@code graph->latencyInter}; aws-ofi-nccl reports 75 us for EFA): what NCCL
 *                       believes when it chooses an algorithm, not what a step takes
 * @param stepLatency    what a network step does take beyond NCCL's own network step latency: the
 *                       transport's per-message cost. None for InfiniBand; 3 us for RoCE (the seeds:
 *                       5-10 us a message on RoCE against InfiniBand's 2-3 us, Ethernet switches'
 *                       store-and-forward and the RoCE NIC's congestion control); 20 us for EFA (SRD
 *                       through libfabric), fitted to KW_P5_2N_2223 up to 8 KiB, where a 2-node tree
 *                       all_reduce with two network steps takes 64-96 us in all (geomean |error| 9 %
 *                       there, by exp(mean |ln(sim/meas)|) over the 11 rows); 50 us for sockets
 *                       (the seeds' 50-100 us: the kernel's TCP stack and NCCL's socket threads on
 *                       the CPU at both ends, the copies through host memory apart)
 */
public enum NetworkPreset {
    IB_XDR("ib-xdr", "InfiniBand XDR, 800 Gb/s per NIC (ConnectX-8)", Rate.gigabitsPerSecond(800), 0.97, 1, TimeSpan.ofNanos(300), 0,
            TimeSpan.ZERO),
    IB_NDR("ib-ndr", "InfiniBand NDR, 400 Gb/s per NIC", Rate.gigabitsPerSecond(400), 0.97, 1, TimeSpan.ofNanos(300), 0, TimeSpan.ZERO),
    IB_HDR("ib-hdr", "InfiniBand HDR, 200 Gb/s per NIC", Rate.gigabitsPerSecond(200), 0.97, 1, TimeSpan.ofNanos(300), 0, TimeSpan.ZERO),
    /**
     * RDMA over Ethernet, configured lossless (PFC/ECN), as RoCE must be: without it drops and
     * retransmissions make it worse than TCP, which no preset models.
     */
    ROCE("roce", "RoCE v2, 400 Gb/s per NIC, lossless (PFC/ECN) configuration assumed", Rate.gigabitsPerSecond(400), 0.95, 1,
            TimeSpan.ofNanos(500), 0, TimeSpan.ofMicros(3)),
    EFA_P5("efa-p5", "AWS EFA on p5: 32 x 100 Gb/s per node, 4 per GPU", Rate.gigabitsPerSecond(100), 0.92, 4,
            TimeSpan.ofNanos(800), 75, TimeSpan.ofMicros(20)),
    /**
     * Plain Ethernet through NCCL's socket transport: no RDMA, so no GPUDirect either; every byte goes
     * through host memory at both ends. TCP/IP and Ethernet headers at the default 1,500 B MTU leave
     * (1500 - 52) / (1500 + 38) = 0.94 of the wire.
     */
    TCP("tcp", "Ethernet with NCCL's socket transport (TCP, no RDMA), 100 Gb/s per NIC", Rate.gigabitsPerSecond(100),
            1448.0 / 1538, 1, TimeSpan.ofNanos(1000), 0, TimeSpan.ofMicros(50));

    private final String id;
    private final String description;
    private final Rate lineRate;
    private final double efficiency;
    private final int nicsPerGpu;
    private final TimeSpan hopLatency;
    private final double latencyInterMicros;
    private final TimeSpan stepLatency;

    NetworkPreset(String id, String description, Rate lineRate, double efficiency, int nicsPerGpu, TimeSpan hopLatency,
                  double latencyInterMicros, TimeSpan stepLatency) {
        this.id = id;
        this.description = description;
        this.lineRate = lineRate;
        this.efficiency = efficiency;
        this.nicsPerGpu = nicsPerGpu;
        this.hopLatency = hopLatency;
        this.latencyInterMicros = latencyInterMicros;
        this.stepLatency = stepLatency;
    }

    public String id() {
        return id;
    }

    public String description() {
        return description;
    }

    /** Signalling rate of one NIC per direction. */
    public Rate lineRate() {
        return lineRate;
    }

    /** Payload rate of one NIC per direction. */
    public Rate effectiveRate() {
        return lineRate.times(efficiency);
    }

    public int nicsPerGpu() {
        return nicsPerGpu;
    }

    public TimeSpan hopLatency() {
        return hopLatency;
    }

    public double latencyInterMicros() {
        return latencyInterMicros;
    }

    public TimeSpan stepLatency() {
        return stepLatency;
    }

    /** False for sockets: the NIC cannot read or write GPU memory, so transfers bounce through host memory. */
    public boolean rdma() {
        return this != TCP;
    }

    /** True for InfiniBand, whose switches can reduce in the network (SHARP). */
    public boolean sharp() {
        return id.startsWith("ib-");
    }

    public static NetworkPreset byName(String name) {
        for (NetworkPreset n : values()) {
            if (n.id.equalsIgnoreCase(name)) {
                return n;
            }
        }
        throw new InputException("unknown network '" + name + "'; expected one of "
                + Arrays.stream(values()).map(NetworkPreset::id).collect(Collectors.joining(", ")));
    }
}
