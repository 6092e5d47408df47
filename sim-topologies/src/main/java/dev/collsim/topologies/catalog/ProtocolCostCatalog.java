package dev.collsim.topologies.catalog;

import dev.collsim.core.collective.CustomKernelCosts;
import dev.collsim.core.collective.HostLaunch;
import dev.collsim.core.collective.NvlsCosts;
import dev.collsim.core.collective.Protocol;
import dev.collsim.core.collective.ProtocolCosts;
import dev.collsim.core.nccl.CostBook;
import dev.collsim.core.nccl.LinkType;
import dev.collsim.core.nccl.NcclAlgo;
import dev.collsim.core.nccl.NcclArch;
import dev.collsim.core.nccl.NcclTuner;
import dev.collsim.core.units.Rate;
import dev.collsim.core.units.TimeSpan;
import java.util.EnumMap;
import java.util.Map;

/**
 * What one channel costs per protocol and GPU generation. Every constant is physical and says
 * where it comes from; none is fitted per message size. The fitted ones (Simple's send overhead,
 * the host launch costs, Blackwell's extra step latency) say what they were fitted to; docs/model.md
 * lists them.
 *
 * <ul>
 *   <li>Channel rate, the most one CTA moves: LL is NCCL's LL bus-bandwidth cap ({@code llMaxBws},
 *       one node) shared by the node's ring channels (141 GB/s over 24 on Hopper); LL128 is NCCL's
 *       {@code perChMaxRingLL128Bws}; Simple is the per-channel speed of NCCL's ring graph after
 *       duplication (30 GB/s on Hopper), above the 15.5 GB/s a channel gets when 24 share an H100's
 *       NVLinks, so the links, not the CTAs, bound large transfers.</li>
 *   <li>Per-step latency: NCCL's {@code hwLat[NVLINK][Ring]} (LL 0.6, LL128 1.9, Simple 3.4 us) is
 *       the sum of the route's latency (two NVLink hops), the notify latency and, for Simple, the
 *       send overhead; each generation's step takes {@link #stepExtra} more.</li>
 *   <li>Simple's send overhead (1.5 us): the barrier, {@code __threadfence_system} and flag store
 *       after every slice, during which the channel sends nothing. Fitted to the ring all_reduce
 *       times of TG_H100_1N8_SLURM_RING from 64 MiB to 1 GiB; LL and LL128 carry their flags in
 *       the data and pay none.</li>
 * </ul>
 */
public final class ProtocolCostCatalog {
    private static final TimeSpan SIMPLE_SEND_OVERHEAD = TimeSpan.ofMicros(1.5);
    /**
     * What a proxy thread spends posting one network step: NCCL's {@code NCCL_NET_OVERHEAD}
     * ({@code getNetOverhead} in {@code tuning.cc}, 1 us on Intel and ARM hosts), which its cost model
     * charges every step of a ring across nodes, three times under Simple. On Ampere and earlier the
     * receiver's proxy also flushes what the NIC wrote before the GPU may read it under Simple
     * ({@code ncclTopoNeedFlush}: not from Hopper on), charged here as the other two.
     */
    static final TimeSpan NET_OVERHEAD = TimeSpan.ofMicros(1.0);
    private static final TimeSpan NVLS_NOTIFY_LATENCY = TimeSpan.ofMicros(3.0);
    private static final Rate NVLS_COPY_RATE = Rate.gigabytesPerSecond(25);

    /**
     * Host cost of enqueuing one collective on one GPU, and per channel. Fitted to the floor of
     * TG_H100_1N8_RING (-g 8): about 35 us with 1-2 channels, 42 us with 24 channels.
     */
    /**
     * The share of HBM's peak a device-to-device copy reaches: 256 MiB copied on an H200 at 4,219 GB/s
     * counting bytes read and written, 0.88 of its 4.8 TB/s (tools/kernels/h200/hbm.csv, 2026-12-04).
     */
    static final double DEVICE_COPY_EFFICIENCY = 0.88;

    /** A copy's time beyond its bytes: 4 KiB to 1 MiB copies took 1.08-1.38 us each on an H200 (the same file). */
    static final TimeSpan DEVICE_COPY_FIXED = TimeSpan.ofMicros(1.1);

    /** What the GPU's copy engine moves between two of its own buffers: each byte read and written once, at the share above. */
    public static CostBook.DeviceCopy deviceCopy(GpuModel gpu) {
        return new CostBook.DeviceCopy(new Rate(gpu.roofline().hbmBytesPerSecond() / 2 * DEVICE_COPY_EFFICIENCY), DEVICE_COPY_FIXED);
    }

    public static final HostLaunch HOST_LAUNCH = new HostLaunch(TimeSpan.ofMicros(4.3), TimeSpan.ofNanos(40));

    /**
     * The inference engines' all-reduce kernels on NVLink: each block writes 4 GB/s to each peer (a
     * block of 512 threads storing 16-byte vectors to 7 peers, about 28 GB/s), a flag reaches a peer in
     * 1.5 us (two NVLink hops and polling), and a small kernel under CUDA graphs starts in 4 us. Chosen
     * so that 4 KiB to 1 MiB on 8 x H100 fall in the range of the public measurements (reference Q2.4);
     * measurements without CUDA graphs add a copy of the input that these kernels do not include.
     * A two-shot block spends 2.5 us at the end of each phase (the fence and the wait for all the
     * rank's blocks; vLLM's source notes its barrier between the phases costs 1-2 us more than a
     * per-block one would): fitted to vLLM's own two-shot kernel on 4 and 6 H100s (PR #24111,
     * {@code ca_2stage}): within 12 % at 512 KiB and 1 MiB, up to 30 % fast from 1.5 MiB.
     */
    public static final CustomKernelCosts CUSTOM_KERNELS = new CustomKernelCosts(Rate.gigabytesPerSecond(4),
            TimeSpan.ofMicros(1.5), TimeSpan.ofMicros(2.5), TimeSpan.ofMicros(4));

    private ProtocolCostCatalog() {}

    /**
     * Factors on NCCL's latencies per link class, as {@code --scale-latency} gives them: NCCL's tuner
     * holds a class's whole step latency ({@code hwLat}) as that class's, the wire's hops and the
     * software's per-step work alike, so a factor scales the step floor, not only the hops inside it
     * (a 2-node all_reduce's 14 us network step had hidden a doubled 300 ns hop entirely).
     */
    public record LatencyScale(double nvlink, double network) {
        public static final LatencyScale NONE = new LatencyScale(1, 1);
    }

    /**
     * Costs for GPUs of one generation. A step over NVLink costs NCCL's NVLink ring latency and the
     * generation's {@link #stepExtra}; a step
     * that leaves through a NIC costs NCCL's network ring latency ({@code hwLat[NET][Ring]}: LL 2.7,
     * LL128 4.0, Simple 14 us), of which the network route's extra hops ({@code extraNetRoute} beyond
     * the NVLink route) are already part of the route, plus the transport's own latency per message
     * ({@code transportLatency}: EFA's, not the 75 us its plugin reports to NCCL's tuner). Where the GPU needs
     * it and {@code gdrFlush} leaves it on, the receiver's proxy flushes each Simple step ({@link #NET_OVERHEAD} twice).
     */
    public static Map<Protocol, ProtocolCosts> costs(NcclArch arch, TimeSpan extraNetRoute, TimeSpan transportLatency,
                                                     LatencyScale scale, boolean gdrFlush) {
        long routeLatency = Math.round(2 * NvLinkGeneration.HOP_LATENCY.picos() * scale.nvlink());
        Map<Protocol, ProtocolCosts> costs = new EnumMap<>(Protocol.class);
        for (Protocol p : Protocol.values()) {
            TimeSpan overhead = p == Protocol.SIMPLE ? SIMPLE_SEND_OVERHEAD : TimeSpan.ZERO;
            long step = TimeSpan.ofMicros(NcclTuner.hwLatencyMicros(arch, LinkType.NVLINK, NcclAlgo.RING, p) * scale.nvlink()).picos();
            // A network step as NCCL's table has it on every GPU: RCCL's tuner prices a Simple one at 320 us, a price, not a step.
            long netStep = TimeSpan.ofMicros(NcclTuner.hwLatencyMicros(LinkType.NET, NcclAlgo.RING, p) * scale.network()).picos();
            TimeSpan notify = new TimeSpan(Math.max(0, step - routeLatency - overhead.picos()) + stepExtra(arch).picos());
            TimeSpan net = new TimeSpan(Math.max(0, netStep - step - extraNetRoute.picos())
                    + Math.round(transportLatency.picos() * scale.network()));
            TimeSpan flush = p == Protocol.SIMPLE && arch.needsGdrFlush() && gdrFlush ? new TimeSpan(2 * NET_OVERHEAD.picos()) : TimeSpan.ZERO;
            costs.put(p, new ProtocolCosts(channelRate(arch, p), overhead, notify, net, NET_OVERHEAD, flush, channelRate(arch, Protocol.SIMPLE)));
        }
        return costs;
    }

    /**
     * NVLS on an NVSwitch of this generation. Efficiency is NCCL's {@code nvlsEfficiency}; a channel
     * moves at most a Simple channel's rate and pays Simple's fence-and-flag overhead per step; the
     * kernel's fixed cost is NCCL's NVLS latency ({@code hwLat[NVLINK][NVLS]}, 25 us). The copy rate of
     * the scatter and gather warps (25 GB/s a channel) and the notify latency (3 us) are fitted to
     * TG_H100_1N8_SLURM_NVLS from 4 MiB to 1 GiB (see docs/model.md).
     */
    public static NvlsCosts nvls(NcclArch arch, LatencyScale scale) {
        TimeSpan launch = TimeSpan.ofMicros(NcclTuner.hwLatencyMicros(LinkType.NVLINK, NcclAlgo.NVLS, Protocol.SIMPLE) * scale.nvlink());
        return new NvlsCosts(arch.nvlsEfficiency(), channelRate(arch, Protocol.SIMPLE), SIMPLE_SEND_OVERHEAD,
                NVLS_NOTIFY_LATENCY, launch, NVLS_COPY_RATE);
    }

    /**
     * SHARP in-network reduction: 90 % of the NIC rate reaches the switch's reduction (NCCL's
     * {@code 0.9 bwInter} for CollNet), a channel moves at most a Simple channel's rate, and an
     * operation costs NCCL's CollNet network latency ({@code hwLat[NET][CollNetDirect]}, 31 us) less
     * the route's own extra hops.
     */
    public static NvlsCosts sharp(NcclArch arch, TimeSpan extraNetRoute, LatencyScale scale) {
        long latency = TimeSpan.ofMicros(NcclTuner.hwLatencyMicros(LinkType.NET, NcclAlgo.COLLNET_DIRECT, Protocol.SIMPLE)
                * scale.network()).picos();
        return new NvlsCosts(0.9, channelRate(arch, Protocol.SIMPLE), SIMPLE_SEND_OVERHEAD,
                new TimeSpan(Math.max(0, latency - extraNetRoute.picos())), TimeSpan.ZERO, channelRate(arch, Protocol.SIMPLE));
    }

    /**
     * What a step on this generation takes beyond NCCL's latency table (LL 0.6 us on NVLink), which
     * every generation shares. 0.7 us on Blackwell, fitted to VULTR_B200_1N8 (all five operations, 8 B-16
     * GiB, geomean |error| 12.7 % against 31 % with none), whose small sizes take 0.7 us more per ring
     * step than the table gives (a 7-step all_gather 5.3 us more, a 14-step all_reduce 9.6) and, across
     * two nodes, per tree hop; aiconfigurator's GB300 runs agree. A B200 is two dies joined by NV-HBI,
     * which a step's data and flag may cross. 0.26 us on Hopper and 0.4 on Ampere: the slopes of the
     * lines of {@link #kernelStart}. None on AMD Instinct GPUs, whose steps take RCCL's own latencies
     * (not measured apart yet).
     */
    static TimeSpan stepExtra(NcclArch arch) {
        return TimeSpan.ofMicros(switch (arch) {
            case VOLTA, CDNA3, CDNA4 -> 0;
            case AMPERE -> 0.4;
            case HOPPER -> 0.26;
            case BLACKWELL -> 0.7;
        });
    }

    /**
     * What a ring or tree kernel takes before its first step when nccl-tests launches them back to back
     * (one process per GPU). The LL kernel's, where NCCL's tuner takes its ring LL base latency (6.6 us), is
     * fitted with {@link #stepExtra} as a line through the 512 B-4 KiB times of all_gather, reduce_scatter and
     * all_reduce on 2, 4 and 8 GPUs (1 to 14 ring steps) of aiconfigurator's runs: H200 with NCCL 2.26.2
     * and 2.29.2 (4.4 us and 0.86 us a step; 2.23 takes 0.8 us more to start), A100 with 2.27.3 (7.9 us
     * and 1.0 us). Blackwell keeps NCCL's: GB300's runs lie on its line within 0.7 us. Why a Hopper
     * kernel starts sooner than an Ampere one is not established (the hosts differ too).
     *
     * <p>A Simple kernel takes longer than NCCL's base latencies give it (8.4 us against LL's 6.6): on 2 and
     * 4 GPUs, where Simple carries all_gather, reduce_scatter and all_reduce from 1-8 MiB, the measured
     * times lie a constant above the simulated ones until the links bound them, about 6 us on H200, 7-16
     * on GB300 and 15-25 on A100. Fitted to aiconfigurator's Simple rows of the three generations (the
     * geomean |error| of each generation's ring collectives under Simple, 2, 4 and 8 GPUs, least at 6, 10
     * and 16 us); one HGX H100 and one HGX B200 at 8 GPUs (TG_H100_1N8_RING, VULTR_B200_1N8), where Simple
     * starts from 32 MiB, move less than 0.5 points. What the kernel spends it on is not established. On
     * A100 the 16-256 MiB times remain 7-18 % fast: a rate the model lacks there, not a start. Every run it
     * was fitted on joins its GPUs by NVLink; GPUs joined by PCIe keep NCCL's base latency (the one PCIe set
     * that runs Simple, eight RTX 4090s through host memory, came out 1 point worse with it).
     */
    public static CostBook.KernelStart kernelStart(NcclArch arch, LinkType intra) {
        TimeSpan ringLl = TimeSpan.ofMicros(switch (arch) {
            case AMPERE -> 7.9;
            case HOPPER -> 4.4;
            case VOLTA, BLACKWELL, CDNA3, CDNA4 -> NcclTuner.baseLatencyMicros(arch, NcclAlgo.RING, Protocol.LL);
        });
        TimeSpan simpleMeasured = intra != LinkType.NVLINK ? TimeSpan.ZERO : TimeSpan.ofMicros(switch (arch) {
            case VOLTA, CDNA3, CDNA4 -> 0;
            case AMPERE -> 16;
            case HOPPER -> 6;
            case BLACKWELL -> 10;
        });
        return new CostBook.KernelStart(ringLl, simpleMeasured);
    }

    /**
     * On AMD Instinct GPUs Simple is RCCL's ring speed after duplication on the 8-GPU mesh (24 GB/s a
     * channel, half an xGMI link's 48 in RCCL's topology), and LL128 the same stores with 8 bytes of each
     * 128 a flag (120/128 of it). LL has no measured rate there: RCCL's tuner prices it at 0.08 of the
     * ring's bandwidth, far below what LL rings move (one MI355X node run by one process stays at its 33-39
     * us launch floor up to 256 KiB, which takes at least 3.6 GB/s a channel), so Hopper's (141 GB/s over
     * 24 channels) stands in.
     */
    private static Rate channelRate(NcclArch arch, Protocol p) {
        if (arch.rccl()) {
            Rate simple = Rate.gigabytesPerSecond(RCCL_SIMPLE_CHANNEL_GBPS);
            return switch (p) {
                case SIMPLE -> simple;
                case LL128 -> simple.times(120.0 / 128);
                case LL -> channelRate(NcclArch.HOPPER, Protocol.LL);
            };
        }
        return switch (p) {
            case LL -> Rate.gigabytesPerSecond(arch.llMaxBw(1) / ringChannels(arch));
            case LL128 -> Rate.gigabytesPerSecond(arch.perChannelMaxRingLL128Bw(1));
            case SIMPLE -> Rate.gigabytesPerSecond(switch (arch) {
                case VOLTA, AMPERE -> 20.0;
                case HOPPER -> 30.0;
                case BLACKWELL -> 45.0;
                case CDNA3, CDNA4 -> throw new IllegalStateException("RCCL's rates are above");
            });
        };
    }

    /** RCCL's Simple ring speed a channel on the 8-GPU mesh, GB/s. */
    private static final double RCCL_SIMPLE_CHANNEL_GBPS = 24.0;

    /** Execution ring channels of a full NVSwitch node of this generation (24 on A100 and H100, 32 on B200). */
    private static int ringChannels(NcclArch arch) {
        return arch == NcclArch.BLACKWELL ? 32 : 24;
    }

}
