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
     * (1500 - 52) / (1500 + 38) = 0.94 of the wire, but the socket transport moves less than that: see
     * {@link SocketTransport} ({@link SocketTransport#NCCL_DEFAULT}: 40 Gb/s of a NIC's 100).
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

    /** How NCCL's socket transport moves the bytes, or null where the NIC does RDMA. */
    public SocketTransport socketTransport() {
        return this == TCP ? SocketTransport.NCCL_DEFAULT : null;
    }

    /**
     * NCCL's socket transport ({@code src/transport/net_socket.cc}): each connection (one per channel
     * and peer) sends its messages through the kernel's TCP stack from a buffer in host memory. A
     * TCP stream is driven by one CPU core, which copies every byte between the user buffer and the
     * kernel's socket buffers (on the sender {@code send}, on the receiver {@code recv}) and runs the
     * stack's per-packet work at a 1,500 B MTU: a stream moves about 20 Gb/s, whatever the wire. With
     * {@code NCCL_SOCKET_NTHREADS} helper threads a connection's message is cut in up to
     * {@code threads x NCCL_NSOCKS_PERTHREAD} pieces of at least 64 KiB ({@code MIN_CHUNKSIZE}), one
     * per socket, and each thread drives its sockets on its own core; without helper threads (NCCL's
     * default for a NIC that is neither AWS's nor GCP's) the proxy thread sends each message on the
     * connection's one socket. NCCL puts two channels on each NIC, so a NIC carries two connections
     * each way.
     *
     * @param threads          {@code NCCL_SOCKET_NTHREADS} as NCCL resolves it: 0 (the proxy thread
     *                         alone) for a generic NIC, 2 on AWS (vendor 0x1d0f), 4 on GCP (0x1ae0)
     * @param socketsPerThread {@code NCCL_NSOCKS_PERTHREAD} as NCCL resolves it: 1, 8 on AWS; more
     *                         sockets on one thread share its core, so they add nothing here (they
     *                         help where a cloud caps each flow, which is not modelled)
     * @param streamRate       what one core moves through one TCP stream, per direction: 20 Gb/s,
     *                         between the 16.5 Gb/s one ring got on a 32 Gb/s network over one socket
     *                         (NVIDIA/nccl#209, NCCL 2.3.7, 2.06 GB/s) and the 25 Gb/s a socket that
     *                         NCCL's maintainer asks for (NVIDIA/nccl-tests#83)
     * @param connectionsPerNic channels through each NIC, one connection each way per channel: 2 (NCCL
     *                         duplicates its rings so that a NIC carries two channels, NVIDIA/nccl#438;
     *                         16 channels on 8 NICs in collsim's search for 2 x HGX)
     */
    public record SocketTransport(int threads, int socketsPerThread, Rate streamRate, int connectionsPerNic) {
        /**
         * NCCL's default on a generic 100 GbE NIC: the proxy thread, one stream per connection, two
         * connections per NIC: 40 Gb/s, 40 % of the line rate (the seeds' "maybe 40 % of link rate";
         * NVIDIA/nccl#450 measures 4-6 GB/s busbw on 4 x 8 V100 over 100 Gb/s TCP, 32-48 %).
         */
        public static final SocketTransport NCCL_DEFAULT = new SocketTransport(0, 1, Rate.gigabitsPerSecond(20), 2);

        /** One connection: a core per helper thread, the proxy thread's one without them. */
        public Rate connectionRate() {
            return streamRate.times(Math.max(1, threads));
        }

        /** One NIC, per direction, as the cores move it (the wire may allow less). */
        public Rate nicRate() {
            return connectionRate().times(connectionsPerNic);
        }
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
