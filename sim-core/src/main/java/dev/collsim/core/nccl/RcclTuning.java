package dev.collsim.core.nccl;

import dev.collsim.core.collective.CollectiveOp;
import dev.collsim.core.collective.Protocol;

/**
 * RCCL's tuning model of an Instinct generation: what its tuner prices and picks where NCCL's uses its own tables
 * (ROCm/rocm-systems {@code projects/rccl/src/graph/tuning.cc} @ 03a89144, {@code tuning_model_5} for gfx942 and
 * {@code tuning_model_6} for gfx950, chosen by {@code rcclGetTuningIndexForArch}). Arrays run LL, LL128, Simple; tree
 * rows before ring rows.
 *
 * <ul>
 *   <li>{@code hwLatXgmi}, {@code hwLatNet}: a step's latency over xGMI and over the network, microseconds;</li>
 *   <li>{@code bwRatio}: the share of the ring graph's bandwidth each algorithm and protocol is priced at, up to two
 *       nodes and beyond;</li>
 *   <li>{@code treeCorrection}, {@code ringCorrection}: factors on that bandwidth by size, indexed by log2(bytes / 64)
 *       up to 26 ({@code ncclTopoGetAlgoTime}: the tree's always, the ring's across nodes only);</li>
 *   <li>{@code protocolRanges}: per-rank sizes, for reduce_scatter, all_gather and all_reduce, in which RCCL replaces
 *       the tuner's protocol across nodes ({@code llProtoRanges}, applied by {@code rcclUpdateCollectiveProtocol} in
 *       {@code src/rccl_wrap.cc}): {LL from, LL to, LL128 from, LL128 to}, each range open below;</li>
 *   <li>{@code singleNodeLl}: on one node, the per-rank sizes up to which reduce_scatter and all_gather run LL whatever
 *       the tuner picked (the same function's gfx942 and gfx950 cases; 0: none);</li>
 *   <li>{@code channelsAcrossNodes}: the channels a communicator of several nodes runs ({@code connect.cc}: 64 at most
 *       across nodes, 48 on gfx950);</li>
 *   <li>{@code meshCopies}: on one node of 2, 4 and 8 GPUs of an xGMI mesh, how many times {@code connect.cc} copies the
 *       base rings (2, 6 and 28: {@code rome_model_79}'s for eight) for its collectives ({@code allGather3Data.nc} in
 *       {@code init.cc}, RCCL 2.27 as meta-pytorch/torchcomms {@code comms/rcclx/develop} carries it @ 1034f3a4:
 *       gfx942 16, 4 and 2, "NCCL_MIN_NCHANNELS=32" and "=24" beside the first two; gfx950 16, 8 and 4, "a default of
 *       112 channels for 8*gfx950" in RCCL's CHANGELOG).</li>
 * </ul>
 */
public enum RcclTuning {
    /** gfx942 (MI300X, MI325X). */
    MODEL_5(new double[][] {Rows.TREE_LL, Rows.TREE_LL, Rows.TREE_SIMPLE_5}, new double[][] {Rows.RING_LL, Rows.RING_LL, Rows.RING_SIMPLE_5},
            new long[][] {{0, 655_360, 131_072, 3_211_264}, {0, 98_304, 98_304, 5_046_272}, {0, 524_288, 524_288, 4_415_057}},
            new long[] {352_128, 0}, 64, new int[] {16, 4, 2}),
    /** gfx950 (MI355X). */
    MODEL_6(new double[][] {Rows.TREE_LL, Rows.TREE_LL128_6, Rows.TREE_SIMPLE_6},
            new double[][] {Rows.RING_LL, Rows.RING_LL128_6, Rows.RING_SIMPLE_6},
            new long[][] {{0, 65_536, 65_536, 8_388_608}, {0, 65_536, 65_536, 8_388_608}, {0, 262_144, 262_144, 70_640_910}},
            new long[] {1_048_576, 88_448}, 48, new int[] {16, 8, 4});

    /**
     * The correction tables' rows, powers of two from 64 B: the LL rows (and gfx942's LL128, which repeats them) are the
     * same in both models.
     */
    private static final class Rows {
        static final double[] TREE_LL = {0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 1.0, 1.0, 1.0, 1.0, 1.0, 0.6, 1.0, 0.9, 1.0, 1.0, 0.1, 0.1, 0.1, 0.1,
            0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1};
        static final double[] TREE_SIMPLE_5 = {0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.7, 1.0, 1.0, 1.0,
            1.0, 1.0, 0.7, 0.7, 0.5, 0.6, 0.6, 0.6};
        static final double[] TREE_LL128_6 = {0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 1.0, 1.0, 1.0, 1.0, 1.0, 0.6, 1.0, 0.9, 1.0, 1.0, 1.0, 1.0, 1.0,
            2.0, 2.0, 1.0, 0.1, 0.9, 0.9, 0.1, 0.1};
        static final double[] TREE_SIMPLE_6 = {0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.7, 1.0, 0.1, 0.1,
            0.1, 0.1, 0.1, 0.7, 0.15, 0.6, 0.7, 0.6};
        static final double[] RING_LL = {0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 1.0, 0.2, 1.0, 0.4, 0.4, 0.1, 0.2, 0.2, 0.1,
            0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1};
        static final double[] RING_SIMPLE_5 = {0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1,
            0.1, 0.1, 0.1, 0.7, 0.2, 1.0, 1.0, 1.0};
        static final double[] RING_LL128_6 = {0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 1.0, 0.2, 1.0, 0.4, 0.4, 0.1, 0.2, 0.1,
            0.1, 0.1, 0.1, 5.5, 0.1, 0.1, 1.0, 1.0};
        static final double[] RING_SIMPLE_6 = {0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1,
            0.1, 0.9, 0.1, 1.0, 0.1, 0.6, 1.0, 1.0};
    }

    /** Base latencies, the same in both models. */
    private static final double[] BASE_LAT = {12.0, 12.0, 17.0};
    private static final double[][] HW_LAT_XGMI = {{0.9, 0.9, 2.3}, {0.8, 0.8, 2.1}};
    private static final double[][] HW_LAT_NET = {{10.5, 10.5, 25.0}, {9.5, 9.5, 320.0}};
    private static final double[][][] BW_RATIO = {{{0.06, 0.06, 0.11}, {0.08, 0.08, 1.0}}, {{0.06, 0.06, 0.59}, {0.08, 0.08, 1.0}}};
    /** The largest index of the correction tables ({@code RCCL_FACTOR_TABLE_MAX_INDEX}). */
    private static final int MAX_LOG_SIZE = 26;
    /** All_reduce's LL128 range beyond two nodes is 3.8 times as long ("Tree has special behavior at 2 nodes"). */
    private static final double LL128_BEYOND_TWO_NODES = 3.8;

    private final double[][] treeCorrection;
    private final double[][] ringCorrection;
    private final long[][] protocolRanges;
    private final long[] singleNodeLl;
    private final int channelsAcrossNodes;
    private final int[] meshCopies;

    RcclTuning(double[][] treeCorrection, double[][] ringCorrection, long[][] protocolRanges, long[] singleNodeLl,
               int channelsAcrossNodes, int[] meshCopies) {
        this.treeCorrection = treeCorrection;
        this.ringCorrection = ringCorrection;
        this.protocolRanges = protocolRanges;
        this.singleNodeLl = singleNodeLl;
        this.channelsAcrossNodes = channelsAcrossNodes;
        this.meshCopies = meshCopies;
    }

    private static int row(NcclAlgo algo) {
        return algo == NcclAlgo.TREE ? 0 : 1;
    }

    double baseLatencyMicros(Protocol proto) {
        return BASE_LAT[proto.ordinal()];
    }

    /** A tree or ring step's latency over xGMI ({@code link} NVLINK, as the model counts xGMI) or the network. */
    double hwLatencyMicros(LinkType link, NcclAlgo algo, Protocol proto) {
        return (link == LinkType.NET ? HW_LAT_NET : HW_LAT_XGMI)[row(algo)][proto.ordinal()];
    }

    double bwRatio(int nNodes, NcclAlgo algo, Protocol proto) {
        return BW_RATIO[nNodes <= 2 ? 0 : 1][row(algo)][proto.ordinal()];
    }

    /** The factor on a tree's or ring's priced bandwidth at {@code nBytes}; the ring's only across nodes. */
    double correction(NcclAlgo algo, Protocol proto, long nBytes, int nNodes) {
        if (algo == NcclAlgo.RING && nNodes == 1) {
            return 1;
        }
        long units = nBytes >> 6;
        int logSize = units <= 0 ? 0 : Math.min(MAX_LOG_SIZE, 63 - Long.numberOfLeadingZeros(units));
        return (algo == NcclAlgo.TREE ? treeCorrection : ringCorrection)[proto.ordinal()][logSize];
    }

    /** The base rings of RCCL's models of one xGMI mesh of 2, 4 and 8 GPUs. */
    private static final int[] MESH_RANKS = {2, 4, 8};
    private static final int[] MESH_RINGS = {2, 6, 28};

    /**
     * The channels RCCL's collectives run on one xGMI mesh of {@code ranks} GPUs: its base rings copied {@code meshCopies}
     * times (at most its 128 channels); {@code searched} on other counts.
     */
    public int meshChannels(int ranks, int searched) {
        for (int i = 0; i < MESH_RANKS.length; i++) {
            if (MESH_RANKS[i] == ranks) {
                return Math.min(MAX_CHANNELS, MESH_RINGS[i] * meshCopies[i]);
            }
        }
        return searched;
    }

    /** RCCL's {@code MAXCHANNELS}. */
    private static final int MAX_CHANNELS = 128;

    /** The channels RCCL runs across nodes. */
    public int channelsAcrossNodes() {
        return channelsAcrossNodes;
    }

    /**
     * The protocol RCCL runs {@code op} with, whatever its tuner picked. Across nodes: LL in the model's LL range of
     * per-rank sizes, LL128 in its LL128 range where the platform's topology model enables LL128, else Simple. On one
     * node: LL for a reduce_scatter or all_gather small enough ({@code singleNodeLl}). Null where RCCL keeps the tuner's
     * choice.
     *
     * @param nBytes       nccl-tests' size (all_gather's and reduce_scatter's whole buffer, split over the ranks)
     * @param ll128Enabled whether the platform's topology model turns LL128 on ({@code ll128Enabled})
     */
    public Protocol protocolOverride(CollectiveOp op, long nBytes, int nRanks, int nNodes, boolean ll128Enabled) {
        int index = switch (op) {
            case REDUCE_SCATTER -> 0;
            case ALL_GATHER -> 1;
            case ALL_REDUCE -> 2;
            default -> -1;
        };
        long perRank = op == CollectiveOp.ALL_REDUCE ? nBytes : nBytes / nRanks;
        if (index < 0) {
            return null;
        }
        if (nNodes == 1) {
            return index < 2 && perRank <= singleNodeLl[index] ? Protocol.LL : null;
        }
        long[] r = protocolRanges[index];
        double ll128To = op == CollectiveOp.ALL_REDUCE && nNodes > 2 ? r[3] * LL128_BEYOND_TWO_NODES : r[3];
        if (ll128Enabled && perRank > r[2] && perRank <= ll128To) {
            return Protocol.LL128;
        }
        return perRank > r[0] && perRank <= r[1] ? Protocol.LL : Protocol.SIMPLE;
    }
}
