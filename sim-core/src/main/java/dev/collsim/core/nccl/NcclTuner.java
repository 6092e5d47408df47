package dev.collsim.core.nccl;

import dev.collsim.core.collective.CollectiveOp;
import dev.collsim.core.collective.Protocol;

/**
 * NCCL's closed-form cost model ({@code src/graph/tuning.cc}, NCCL 2.30.7, and where an older release
 * differs, as {@link NcclVersion} says):
 * {@code time = latency + nBytes / (1000 * algBw)} in microseconds, per algorithm and protocol.
 * The simulator uses it for what NCCL uses it for, choosing, and shows it beside the simulated
 * time; it never replaces the simulation.
 */
public final class NcclTuner {
    /** {@code baseLatencies[algo][LL, LL128, Simple]} in microseconds. */
    private static final double[][] BASE_LAT = {
        {6.8, 14.0, 8.4}, {6.6, 14.0, 8.4}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {8.0, 8.0, 8.0}};

    /** {@code hwLatencies[link][algo][LL, LL128, Simple]} in microseconds. */
    private static final double[][][] HW_LAT = {
        {{0.6, 1.25, 4.0}, {0.6, 1.9, 3.4}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 25}, {0, 0, 25}, {0, 0, 4.0}},
        {{1.0, 1.9, 4.0}, {1.0, 2.5, 5.7}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 0}, {0, 0, 0}, {0, 0, 4.0}},
        {{5.0, 8.5, 14}, {2.7, 4.0, 14}, {0, 0, 31}, {0, 0, 30}, {0, 0, 18}, {0, 0, 20.9}, {0, 0, 14}}};

    /** LL128's bandwidth factor against the ring's bus bandwidth. */
    private static final double LL128_EFFICIENCY = 0.92;
    /** The all_reduce tree's share of the ring graph's bandwidth in NCCL's model ({@code busBw * .92}). */
    private static final double TREE_EFFICIENCY = 0.92;

    private NcclTuner() {}

    /** NCCL's base latency of a kernel of {@code algo} under {@code proto}. */
    public static double baseLatencyMicros(NcclAlgo algo, Protocol proto) {
        return BASE_LAT[algo.ordinal()][proto.ordinal()];
    }

    /** The base latency the library of {@code arch} (NCCL, or RCCL on Instinct GPUs) gives a ring or tree kernel. */
    public static double baseLatencyMicros(NcclArch arch, NcclAlgo algo, Protocol proto) {
        return arch.rccl() && (algo == NcclAlgo.RING || algo == NcclAlgo.TREE) ? arch.rcclTuning().baseLatencyMicros(proto)
                : baseLatencyMicros(algo, proto);
    }

    /** NCCL's latency of one step of {@code algo} over {@code link}. */
    public static double hwLatencyMicros(LinkType link, NcclAlgo algo, Protocol proto) {
        return HW_LAT[link.ordinal()][algo.ordinal()][proto.ordinal()];
    }

    /** The step latency the library of {@code arch} gives a ring or tree step; RCCL's xGMI steps count as NCCL's NVLink ones. */
    public static double hwLatencyMicros(NcclArch arch, LinkType link, NcclAlgo algo, Protocol proto) {
        if (!arch.rccl() || (algo != NcclAlgo.RING && algo != NcclAlgo.TREE) || link == LinkType.PCI) {
            return hwLatencyMicros(link, algo, proto);
        }
        return arch.rcclTuning().hwLatencyMicros(link, algo, proto);
    }

    /**
     * Whether the library enables a protocol by default on this communicator: NCCL's LL128 needs NVLink
     * inside the node; RCCL's, the topology model of a platform with NICs ({@link #rcclLl128Enabled}).
     */
    public static boolean enabledByDefault(Protocol proto, TunerInputs in) {
        return proto != Protocol.LL128 || (in.intraLink() == LinkType.NVLINK && (!in.arch().rccl() || rcclLl128Enabled(in)));
    }

    /**
     * Whether RCCL turns LL128 on: its topology models of 8-GPU Instinct platforms with NICs do ({@code ll128Enabled=1} in
     * {@code rome_models.cc}), and those NICs are what joins nodes; a single node is taken as one without them (its rings
     * are the mesh's own, not a model's).
     */
    static boolean rcclLl128Enabled(TunerInputs in) {
        return in.nNodes() > 1 && in.nRanks() / in.nNodes() == 8;
    }

    /** NCCL's {@code NCCL_NET_OVERHEAD} on Intel and ARM hosts, tripled for Simple. */
    private static final double NET_OVERHEAD_MICROS = 1.0;

    /** Latency of one step inside a node; across nodes NCCL takes at least the network overhead. */
    private static double intraLatency(NcclAlgo algo, Protocol proto, TunerInputs in) {
        double lat = hwLatencyMicros(in.arch(), in.intraLink(), algo, proto);
        return in.nNodes() > 1 ? Math.max(lat, NET_OVERHEAD_MICROS * (proto == Protocol.SIMPLE ? 3 : 1)) : lat;
    }

    /** Latency of one network step: NCCL's NET latency plus the plugin's (twice for Simple, the flush). */
    private static double interLatency(NcclAlgo algo, Protocol proto, TunerInputs in) {
        double net = algo == NcclAlgo.NVLS_TREE ? in.version().nvlsTreeNetLatencyMicros()
                : hwLatencyMicros(in.arch(), LinkType.NET, algo, proto);
        return net + in.latencyInterMicros() * (proto == Protocol.SIMPLE ? 2 : 1);
    }

    /** NCCL's estimate for the ring algorithm; {@code nBytes} is nccl-tests' size. */
    public static Estimate ring(CollectiveOp op, Protocol proto, long nBytes, TunerInputs in) {
        int n = in.nRanks();
        int nsteps = switch (op) {
            case ALL_REDUCE -> 2 * (n - 1);
            case ALL_GATHER, REDUCE_SCATTER -> n - 1;
            case BROADCAST, REDUCE -> n;
            case ALL_TO_ALL, SEND_RECV -> throw new IllegalArgumentException(op.ncclName() + " does not go through the tuner");
        };
        RingGraph g = in.ring();
        double busBw = g.busBw();
        RcclTuning rccl = in.arch().rcclTuning();
        if (rccl != null) {
            busBw *= rccl.bwRatio(in.nNodes(), NcclAlgo.RING, proto) * rccl.correction(NcclAlgo.RING, proto, nBytes, in.nNodes());
        } else {
            switch (proto) {
                case LL -> busBw = Math.min(in.arch().llMaxBw(in.nNodes()), busBw * 0.5);
                case LL128 -> busBw = Math.min(busBw * LL128_EFFICIENCY,
                        g.searchChannels() * in.version().perChannelMaxRingLL128Bw(in.arch(), in.nNodes()));
                case SIMPLE -> { }
            }
        }
        double algBw = busBw * n / nsteps;
        int latencySteps = op.rooted() ? n - 1 : nsteps;
        int nodes = in.nNodes();
        int interSteps = op == CollectiveOp.ALL_REDUCE ? 2 * (nodes - 1) : op.rooted() ? 0 : nodes - 1;
        double latency = baseLatencyMicros(in.arch(), NcclAlgo.RING, proto)
                + (latencySteps - interSteps) * intraLatency(NcclAlgo.RING, proto, in)
                + interSteps * interLatency(NcclAlgo.RING, proto, in);
        if (nodes > 1 && proto == Protocol.SIMPLE && op == CollectiveOp.ALL_REDUCE && !in.arch().rccl()
                && nBytes / ((double) g.channels() * n) >= 64) {
            latency *= 1.4;
        }
        return new Estimate(NcclAlgo.RING, proto, latency, algBw, latency + nBytes / (1000 * algBw),
                enabledByDefault(proto, in));
    }

    /**
     * NCCL's estimate for the double binary tree (all_reduce only): latency
     * {@code base + 2 ((ppn - 1) intraLat + log2(nNodes) interLat)}; bandwidth from the ring graph's
     * channels, capped per protocol and channel, halved into algorithm bandwidth, times NCCL's
     * correction for the size ({@link #treeCorrection}). NVLS-Tree's use of the same correction (on
     * Blackwell with x86 hosts) is not reproduced: a communicator does not know its host's CPU yet.
     * Null for other operations.
     */
    public static Estimate tree(CollectiveOp op, Protocol proto, long nBytes, TunerInputs in) {
        if (op != CollectiveOp.ALL_REDUCE || in.nRanks() < 2) {
            return null;
        }
        if (in.arch().rccl()) {
            return rcclTree(proto, nBytes, in);
        }
        RingGraph g = in.ring();
        int nNodes = in.nNodes();
        int ppn = in.nRanks() / nNodes;
        // Every protocol's tree first takes the all_reduce tree's cap, then its own.
        double busBw = Math.min(g.busBw() * TREE_EFFICIENCY,
                g.searchChannels() * in.version().perChannelMaxTreeBw(in.arch(), nNodes));
        busBw = switch (proto) {
            case LL -> Math.min(busBw / 3.8, in.arch().llMaxBw(nNodes));
            case LL128 -> Math.min(busBw * (nNodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0),
                    g.searchChannels() * in.version().perChannelMaxTreeLL128Bw(in.arch(), nNodes));
            case SIMPLE -> busBw;
        };
        double algBw = busBw * 0.5 * treeCorrection(proto, nBytes);
        double intraLat = intraLatency(NcclAlgo.TREE, proto, in);
        double interLat = interLatency(NcclAlgo.TREE, proto, in);
        double latency = baseLatencyMicros(NcclAlgo.TREE, proto)
                + 2 * ((ppn - 1) * intraLat + log2(nNodes) * interLat);
        boolean enabled = proto != Protocol.LL128 || in.intraLink() == LinkType.NVLINK;
        return new Estimate(NcclAlgo.TREE, proto, latency, algBw, latency + nBytes / (1000 * algBw), enabled);
    }

    /**
     * RCCL's tree: the ring graph's bandwidth times its tree ratio and its correction for the size, halved into
     * algorithm bandwidth; no tree under Simple inside one MI300X or MI355X node, which RCCL skips there
     * ({@code tuning.cc}: gfx942 and gfx950 with every rank on the node).
     */
    private static Estimate rcclTree(Protocol proto, long nBytes, TunerInputs in) {
        int nNodes = in.nNodes();
        int ppn = in.nRanks() / nNodes;
        RcclTuning model = in.arch().rcclTuning();
        double algBw = in.ring().busBw() * model.bwRatio(nNodes, NcclAlgo.TREE, proto) * model.correction(NcclAlgo.TREE, proto, nBytes, nNodes)
                * 0.5;
        double latency = baseLatencyMicros(in.arch(), NcclAlgo.TREE, proto)
                + 2 * ((ppn - 1) * intraLatency(NcclAlgo.TREE, proto, in)
                + log2(nNodes) * interLatency(NcclAlgo.TREE, proto, in));
        boolean enabled = enabledByDefault(proto, in) && !(proto == Protocol.SIMPLE && nNodes == 1);
        return new Estimate(NcclAlgo.TREE, proto, latency, algBw, latency + nBytes / (1000 * algBw), enabled);
    }

    /** NCCL's {@code log2i}: the floor of the base-2 logarithm (3 for 10 nodes). */
    private static int log2(long n) {
        return 63 - Long.numberOfLeadingZeros(n);
    }

    /**
     * NCCL's {@code treeCorrectionFactor} ({@code tuning.cc}: "Trees are not perfectly sticking to the
     * model for medium sizes"): the tree's bandwidth in its cost model times a factor by size, powers
     * of two from 64 B, down to 0.4 under LL at 256-512 KiB, 0.6 under LL128 at 32 KiB-2 MiB and 0.5
     * under Simple at 128 KiB-2 MiB; 1 outside 64 B-256 MiB. It moves NCCL's choice, not what a
     * tree does.
     */
    static double treeCorrection(Protocol proto, long nBytes) {
        long units = nBytes >> 6;
        if (units <= 0) {
            return 1;
        }
        int logSize = log2(units);
        return logSize < 23 ? TREE_CORRECTION[proto.ordinal()][logSize] : 1;
    }

    private static final double[][] TREE_CORRECTION = {
        {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0, 1.0},
        {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0, 1.0},
        {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9, .9},
    };

    /**
     * NCCL's estimate for NVLS (Simple only, all_reduce only, one node here): latency is the NVLink
     * NVLS latency alone; bandwidth per channel, converted to algorithm bandwidth, as
     * {@link #nvlsBusBwPerChannel} says. Null where NVLS cannot run.
     */
    public static Estimate nvls(CollectiveOp op, Protocol proto, long nBytes, TunerInputs in) {
        NvlsGraph g = in.nvls();
        if (g == null || op != CollectiveOp.ALL_REDUCE || in.nNodes() > 1 || in.nRanks() < 2) {
            return null;
        }
        int nCh = g.searchChannels();
        double algBw = nCh * nvlsBusBwPerChannel(g, g.bwInter(), in) * nvlsAlgBwRatio(in);
        double latency = hwLatencyMicros(in.intraLink(), NcclAlgo.NVLS, Protocol.SIMPLE);
        boolean enabled = proto == Protocol.SIMPLE && (nCh >= 2 || !in.version().nvlsEfficiencyModel());
        return new Estimate(NcclAlgo.NVLS, proto, latency, algBw, latency + nBytes / (1000 * algBw), enabled);
    }

    /**
     * NVLS's bus bandwidth a search channel, capped by {@code interBw}: from 2.28 {@code bwIntra x
     * nvlsEfficiency x (nCh-1)/nCh x 2} ("pipelines two operations"); before, {@code bwIntra} alone.
     */
    private static double nvlsBusBwPerChannel(NvlsGraph g, double interBw, TunerInputs in) {
        if (!in.version().nvlsEfficiencyModel()) {
            return Math.min(g.bwIntra(), interBw);
        }
        int nCh = g.searchChannels();
        return Math.min(g.bwIntra() * in.arch().nvlsEfficiency() * (nCh - 1) / nCh * 2, interBw);
    }

    /** From bus to algorithm bandwidth: like a ring's from 2.28 ({@code nRanks / nsteps}), 5/6 before. */
    private static double nvlsAlgBwRatio(TunerInputs in) {
        return in.version().nvlsEfficiencyModel() ? in.nRanks() / (2.0 * (in.nRanks() - 1)) : 5.0 / 6.0;
    }

    /**
     * NCCL's estimate for NVLS-Tree (all_reduce across nodes): the NVLS bandwidth inside the node
     * against the network's ({@code bwInter}: from 2.28 doubled on two nodes and capped per channel;
     * before, halved on three or more), latency the NVLS latency plus {@code 2 log2(nNodes)} network
     * steps. Null on one node.
     */
    public static Estimate nvlsTree(CollectiveOp op, Protocol proto, long nBytes, TunerInputs in) {
        NvlsGraph g = in.nvls();
        if (g == null || op != CollectiveOp.ALL_REDUCE || in.nNodes() < 2) {
            return null;
        }
        int nCh = g.searchChannels();
        boolean twoNodes = in.nNodes() <= 2;
        double interBw = in.version().nvlsEfficiencyModel() ? g.bwInter() * (twoNodes ? 2 : 1) : twoNodes ? g.bwInter() : g.bwInter() / 2;
        double bw = Math.min(nvlsBusBwPerChannel(g, interBw, in), in.version().perChannelMaxNvlsTreeBw(in.arch(), in.nNodes()));
        double algBw = nCh * bw * nvlsAlgBwRatio(in);
        double latency = baseLatencyMicros(NcclAlgo.NVLS_TREE, proto) + hwLatencyMicros(in.intraLink(), NcclAlgo.NVLS_TREE, Protocol.SIMPLE)
                + 2 * log2(in.nNodes()) * interLatency(NcclAlgo.NVLS_TREE, Protocol.SIMPLE, in);
        return new Estimate(NcclAlgo.NVLS_TREE, proto, latency, algBw, latency + nBytes / (1000 * algBw),
                proto == Protocol.SIMPLE && (nCh >= 2 || !in.version().nvlsEfficiencyModel()));
    }

    /**
     * NCCL's estimate for PAT (all_gather and reduce_scatter with one GPU per node, Simple only, from
     * 2.23): latency {@code 8 + log2(nNodes) interLat / 3.5 + 2.8 nRanks} us, bandwidth 0.75 of the
     * ring's (0.85 in 2.23). Null where PAT cannot run.
     */
    public static Estimate pat(CollectiveOp op, Protocol proto, long nBytes, TunerInputs in) {
        if ((op != CollectiveOp.ALL_GATHER && op != CollectiveOp.REDUCE_SCATTER) || in.nNodes() != in.nRanks()
                || in.nRanks() < 2 || !in.version().hasPat()) {
            return null;
        }
        double busBw = in.ring().busBw() * in.version().patEfficiency();
        double algBw = busBw * in.nRanks() / (in.nRanks() - 1.0);
        double latency = baseLatencyMicros(NcclAlgo.PAT, proto)
                + log2(in.nNodes()) * interLatency(NcclAlgo.PAT, Protocol.SIMPLE, in) / 3.5 + 2.8 * in.nRanks();
        return new Estimate(NcclAlgo.PAT, proto, latency, algBw, latency + nBytes / (1000 * algBw), proto == Protocol.SIMPLE);
    }

    /**
     * NCCL's estimate for CollNet Direct (all_reduce across nodes, Simple, CollNet enabled): latency
     * {@code 2 (min(1, ppn-1) intraLat + 0.4 (ppn-1)) + interLat}; bandwidth the channels at the ring's
     * speed, divided by the GPU-to-NIC ratio penalty {@code f = ppn/nCh, f -= (f-1)/2}, times 0.85 on
     * Hopper and later, halved into algorithm bandwidth. Null where CollNet cannot run.
     */
    public static Estimate collNetDirect(CollectiveOp op, Protocol proto, long nBytes, TunerInputs in) {
        if (!in.collNet() || op != CollectiveOp.ALL_REDUCE || in.nNodes() < 2) {
            return null;
        }
        int ppn = in.nRanks() / in.nNodes();
        int nCh = in.ring().searchChannels();
        double f = ppn / (double) nCh;
        f -= (f - 1) / 2;
        double busBw = nCh * in.ring().bwPerChannel() / f * (in.arch().sm() >= 90 ? 0.85 : 1.0);
        double algBw = busBw * 0.5;
        double latency = baseLatencyMicros(NcclAlgo.COLLNET_DIRECT, proto)
                + 2 * (Math.min(1, ppn - 1) * hwLatencyMicros(in.intraLink(), NcclAlgo.COLLNET_DIRECT, Protocol.SIMPLE)
                + (ppn - 1) * 0.4) + interLatency(NcclAlgo.COLLNET_DIRECT, Protocol.SIMPLE, in);
        return new Estimate(NcclAlgo.COLLNET_DIRECT, proto, latency, algBw, latency + nBytes / (1000 * algBw),
                proto == Protocol.SIMPLE);
    }

    /**
     * NCCL's estimate for CollNet Chain (all_reduce across nodes, CollNet enabled): latency
     * {@code 2 (ppn-1) intraLat + interLat}; bandwidth the ring graph's, times 0.85 on Hopper and
     * later, halved into algorithm bandwidth. Null where CollNet cannot run.
     */
    public static Estimate collNetChain(CollectiveOp op, Protocol proto, long nBytes, TunerInputs in) {
        if (!in.collNet() || op != CollectiveOp.ALL_REDUCE || in.nNodes() < 2) {
            return null;
        }
        int ppn = in.nRanks() / in.nNodes();
        double busBw = in.ring().busBw() * (in.arch().sm() >= 90 ? 0.85 : 1.0);
        double latency = baseLatencyMicros(NcclAlgo.COLLNET_CHAIN, proto)
                + 2 * (ppn - 1) * hwLatencyMicros(in.intraLink(), NcclAlgo.COLLNET_CHAIN, Protocol.SIMPLE)
                + interLatency(NcclAlgo.COLLNET_CHAIN, Protocol.SIMPLE, in);
        return new Estimate(NcclAlgo.COLLNET_CHAIN, proto, latency, busBw * 0.5, latency + nBytes / (1000 * busBw * 0.5),
                proto == Protocol.SIMPLE);
    }

    /**
     * One candidate of the cost model.
     *
     * @param latencyMicros the latency term
     * @param algBwGBps     the algorithm bandwidth in GB/s
     * @param timeMicros    latency + bytes / bandwidth
     * @param enabled       false if NCCL would not consider it by default
     */
    public record Estimate(NcclAlgo algo, Protocol protocol, double latencyMicros, double algBwGBps,
                           double timeMicros, boolean enabled) {}
}
