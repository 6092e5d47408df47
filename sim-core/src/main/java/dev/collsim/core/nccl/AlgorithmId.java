package dev.collsim.core.nccl;

import dev.collsim.core.collective.AllPairsAlgorithm;
import dev.collsim.core.collective.CollNetChainAlgorithm;
import dev.collsim.core.collective.CollNetDirectAlgorithm;
import dev.collsim.core.collective.CollectiveAlgorithm;
import dev.collsim.core.collective.CollectiveOp;
import dev.collsim.core.collective.CollectiveRequest;
import dev.collsim.core.collective.CustomAllReduceAlgorithm;
import dev.collsim.core.collective.NvlsAlgorithm;
import dev.collsim.core.collective.NvlsTreeAlgorithm;
import dev.collsim.core.collective.OneRankAlgorithm;
import dev.collsim.core.collective.P2pAlgorithm;
import dev.collsim.core.collective.PatAlgorithm;
import dev.collsim.core.collective.Protocol;
import dev.collsim.core.collective.RingAlgorithm;
import dev.collsim.core.collective.TreeAlgorithm;

/**
 * Every algorithm a collective can run with, and the one registry of what each is: the name
 * {@code --algo} takes, the algorithm in NCCL's tuner tables (those it weighs, {@link NcclAlgo}), how
 * its schedule is built on a communicator, how it launches, its textbook alpha-beta shape and about
 * how many transfers its schedule holds. Adding an algorithm is its class and one entry here (and,
 * if NCCL's tuner chooses it, its estimate in {@link NcclTuner}).
 */
public enum AlgorithmId {
    RING("Ring", NcclAlgo.RING, new Ring()),
    TREE("Tree", NcclAlgo.TREE, new Tree()),
    COLLNET_DIRECT("CollNetDirect", NcclAlgo.COLLNET_DIRECT, new CollNet(true,
            (comm, plan) -> new CollNetDirectAlgorithm(comm.nodeRanks(), Protocol.SIMPLE.stepDataBytes()))),
    COLLNET_CHAIN("CollNetChain", NcclAlgo.COLLNET_CHAIN, new CollNet(false,
            (comm, plan) -> new CollNetChainAlgorithm(comm.nodeRanks(), Protocol.SIMPLE.stepDataBytes()))),
    NVLS("NVLS", NcclAlgo.NVLS, new InSwitch(false, (comm, plan) -> new NvlsAlgorithm())),
    NVLS_TREE("NVLSTree", NcclAlgo.NVLS_TREE, new InSwitch(true, (comm, plan) -> new NvlsTreeAlgorithm(comm.nodeRanks(),
            comm.nvlsTreeChunk(plan.request().bytes(), plan.request().channels())))),
    PAT("PAT", NcclAlgo.PAT, new Pat()),
    /** MSCCL's all-pairs all-reduce, which RCCL runs on one eight-GPU xGMI mesh in place of its tuner's choice ({@link MscclAllPairs}). */
    ALL_PAIRS("AllPairs", null, new AllPairs()),
    /** NCCL's send/receive path, used by alltoall and sendrecv. */
    P2P("P2P", null, new PointToPoint()),
    /** vLLM's and TensorRT-LLM's one-shot all-reduce: every rank writes its whole input to every peer. */
    ONESHOT("OneShot", null, new Custom(CustomAllReduceAlgorithm.Variant.ONE_SHOT)),
    /** Their two-shot all-reduce: a reduce-scatter and an all-gather by direct writes, in one kernel. */
    TWOSHOT("TwoShot", null, new Custom(CustomAllReduceAlgorithm.Variant.TWO_SHOT)),
    /** The multimem (NVLS) one-shot of TensorRT-LLM and torch symmetric memory: one switch reduction and multicast. */
    MULTIMEM("Multimem", null, new Custom(CustomAllReduceAlgorithm.Variant.MULTIMEM)),
    /** What every collective of one rank is: a copy of the buffer in the GPU's memory, no kernel ({@link OneRankAlgorithm}). */
    ONE_RANK("OneRank", null, new OneRank());

    /**
     * The textbook alpha-beta time of a collective, after NCCL's own model ({@code src/graph/tuning.cc}):
     * {@code intraSteps} steps at the algorithm's latency inside a node (alpha) and {@code netSteps} at its
     * latency across nodes (alpha_net), then the bytes on the busiest link of each kind, per direction:
     * {@code gpuBytes} over one GPU's own link inside its node (beta, times {@code gpuEfficiency}) and
     * {@code nodeBytes} through one node's NICs together (beta_node, times {@code nicEfficiency}); the
     * slower of the two bounds the time. Bytes are zero where a link of that kind carries nothing (one
     * node; one GPU a node).
     *
     * @param shape the formula in symbols (n ranks, p a node, N nodes, S bytes)
     * @param how   what the formula counts, in words
     */
    public record AlphaBeta(String shape, String how, double intraSteps, double netSteps, double gpuBytes, double gpuEfficiency,
                            double nodeBytes, double nicEfficiency) {}

    /** The busiest node's count of edges in NCCL's two trees over {@code nodes} nodes. */
    private static int treeEdges(int nodes) {
        return (int) Math.round(treeNodeBytes(nodes, 2));
    }

    /** ceil(log2 x), 0 for x up to 1. */
    private static int log2(int x) {
        return x <= 1 ? 0 : 32 - Integer.numberOfLeadingZeros(x - 1);
    }

    /**
     * Bytes a node sends per direction through its NICs in NCCL's double binary tree over {@code nodes}
     * nodes: each tree carries half the data, and a node sends it once to its parent and once to each
     * child, in both trees; the busiest node's count of tree edges, times S/2.
     */
    private static double treeNodeBytes(int nodes, double bytes) {
        int edges = 0;
        for (int k = 0; k < nodes; k++) {
            int e = 0;
            for (int[] t : new int[][] {TreeAlgorithm.btree(nodes, k), TreeAlgorithm.dtree(nodes, k)}) {
                for (int x : t) {
                    e += x >= 0 ? 1 : 0;
                }
            }
            edges = Math.max(edges, e);
        }
        return edges * bytes / 2;
    }

    /** A reduce-scatter and an all-gather, each one step in which every rank writes to every peer directly: {@code how} says how. */
    private static AlphaBeta twoDirectSteps(CollectiveRequest req, String how) {
        int n = req.nRanks();
        return new AlphaBeta("2 alpha + 2(n-1)/n S/beta", how, 2, 0, 2.0 * (n - 1) / n * req.bytes(), 1, 0, 1);
    }

    /** What one algorithm is to the simulator; the defaults are a ring-like algorithm's. */
    interface Kind {
        /** The algorithm that builds the plan's schedule on this communicator. */
        CollectiveAlgorithm algorithm(Communicator comm, Plan plan);

        /** Whether its kernels start after NVLS's launch latency, which is the whole algorithm's, rather than NCCL's base latency. */
        default boolean inSwitch() {
            return false;
        }

        /**
         * The ring's shape: (n-1) steps of S/n, twice for all_reduce, of which the steps that cross to
         * the next node (N-1, twice for all_reduce) pay the network's latency; every ring leaves each
         * node once, each on its own rail, so a node's NICs carry what one GPU's link does.
         */
        default AlphaBeta alphaBeta(CollectiveRequest req, Communicator comm) {
            int n = req.nRanks();
            int nodes = comm.nNodes();
            boolean twice = req.op() == CollectiveOp.ALL_REDUCE;
            double steps = twice ? 2.0 * (n - 1) : n - 1;
            double net = nodes == 1 ? 0 : twice ? 2.0 * (nodes - 1) : nodes - 1;
            double bytes = req.op().sizeIsTotal() || twice ? steps * req.bytes() / n : req.bytes();
            String k = twice ? "2(n-1)" : "(n-1)";
            String data = req.op().sizeIsTotal() || twice ? k + "/n S" : "S";
            return nodes == 1
                    ? new AlphaBeta(k + " alpha + " + data + "/beta", (twice ? "reduce-scatter then all-gather: " : "")
                    + k + " steps around the ring, each of S/n", steps, 0, bytes, 1, 0, 1)
                    : new AlphaBeta("(" + k + " - " + (twice ? "2(N-1)" : "(N-1)") + ") alpha + " + (twice ? "2(N-1)" : "(N-1)")
                    + " alpha_net + " + data + " / min(beta, beta_node)", k + " steps around the ring, each of S/n, of which "
                    + (twice ? "2(N-1)" : "(N-1)") + " cross to the next node; each channel's ring leaves a node once, on its own rail",
                    steps - net, net, bytes, 1, bytes, 1);
        }

        /** About how many transfers the schedule holds: each rank's data in protocol steps, at least one a channel. */
        default double plannedTransfers(Plan plan, Communicator comm) {
            CollectiveRequest req = plan.request();
            return (double) req.nRanks() * Math.max(req.channels(), Math.ceil(2.0 * req.bytes() / req.protocol().stepDataBytes()));
        }
    }

    private static final class Ring implements Kind {
        @Override
        public CollectiveAlgorithm algorithm(Communicator comm, Plan plan) {
            return new RingAlgorithm(comm.nccl().ringOrders());
        }

        /** Each channel's share in loops of n chunks, 2(n-1) steps of n transfers each (two slices a chunk for Simple). */
        @Override
        public double plannedTransfers(Plan plan, Communicator comm) {
            CollectiveRequest req = plan.request();
            int n = req.nRanks();
            boolean simple = req.protocol() == Protocol.SIMPLE;
            long chunk = req.protocol().stepDataBytes() * (simple ? 4 : 1);
            double loops = Math.max(1, Math.ceil((double) req.bytes() / req.channels() / ((double) n * chunk)));
            return req.channels() * loops * 2.0 * (n - 1) * n * (simple ? 2 : 1);
        }
    }

    private static final class Tree implements Kind {
        @Override
        public CollectiveAlgorithm algorithm(Communicator comm, Plan plan) {
            return new TreeAlgorithm(comm.nodeRanks(), comm.nccl().searched().nodeRings());
        }

        /**
         * Up the chain and the tree and down again, pipelined: each GPU of a chain sends every byte up and
         * down, and the chain turns every two channels, so a GPU's link carries 2(p-1)/p S; across
         * nodes NCCL's latency is 2(p-1) alpha + 2 log2(N) alpha_net.
         */
        @Override
        public AlphaBeta alphaBeta(CollectiveRequest req, Communicator comm) {
            int nodes = comm.nNodes();
            int p = req.nRanks() / nodes;
            double bytes = req.bytes();
            double gpu = 2.0 * (p - 1) / p * bytes;
            if (nodes == 1) {
                return new AlphaBeta("2(n-1) alpha + 2(n-1)/n S/beta", "on one node the tree is a chain: each piece is reduced up it and"
                        + " sent back down, the two directions at once", 2.0 * (p - 1), 0, gpu, 1, 0, 1);
            }
            return new AlphaBeta("2(p-1) alpha + 2 log2(N) alpha_net + max(2(p-1)/p S/beta, " + treeEdges(nodes) + " S/2 / beta_node)",
                    "a chain of p GPUs in each node and NCCL's two binary trees over the nodes, each carrying half the data;"
                    + " up and down at once", 2.0 * (p - 1), 2.0 * log2(nodes), gpu, 1, treeNodeBytes(nodes, bytes), 1);
        }

        /** Each rank's data in the tree's pieces. */
        @Override
        public double plannedTransfers(Plan plan, Communicator comm) {
            CollectiveRequest req = plan.request();
            long step = TreeAlgorithm.transferBytesFor(req.protocol(), req.bytes(), req.channels(), req.nRanks(), comm.nNodes());
            return (double) req.nRanks() * Math.max(req.channels(), Math.ceil(2.0 * req.bytes() / step));
        }
    }

    private static final class Pat implements Kind {
        @Override
        public CollectiveAlgorithm algorithm(Communicator comm, Plan plan) {
            return new PatAlgorithm();
        }

        /**
         * log2 n steps, each doubling the ranks whose data a rank holds (all_gather) or sums (reduce_scatter);
         * every rank still receives (n-1)/n S.
         */
        @Override
        public AlphaBeta alphaBeta(CollectiveRequest req, Communicator comm) {
            int n = req.nRanks();
            int nodes = comm.nNodes();
            int p = n / nodes;
            double bytes = req.bytes();
            double gpu = p == 1 ? 0 : (n - 1.0) / n * bytes;
            double node = nodes == 1 ? 0 : p * (n - p) / (double) n * bytes;
            String how = "log2(n) steps, each doubling the ranks whose blocks a rank holds; every rank still receives (n-1)/n S";
            if (nodes == 1) {
                return new AlphaBeta("log2(n) alpha + (n-1)/n S/beta", how, log2(n), 0, gpu, 1, 0, 1);
            }
            return new AlphaBeta((p == 1 ? "" : "log2(p) alpha + ") + "log2(N) alpha_net + " + (p == 1 ? "(n-1)/n S/beta_node"
                    : "max((n-1)/n S/beta, p(n-p)/n S/beta_node)"), how, log2(p), log2(nodes), gpu, 1, node, 1);
        }

        /** Every rank receives every other rank's block once, each channel's part of it in PAT's chunks. */
        @Override
        public double plannedTransfers(Plan plan, Communicator comm) {
            CollectiveRequest req = plan.request();
            int n = req.nRanks();
            long chunk = PatAlgorithm.chunkFor(req.op(), req.bytes(), req.channels());
            double perChannel = Math.ceil((double) req.bytesPerRankSegment() / req.channels() / chunk);
            return (double) n * (n - 1) * req.channels() * Math.max(1, perChannel);
        }
    }

    /** NVLS and NVLS-Tree ({@code tree}): the NVSwitch reduces inside each node. */
    private record InSwitch(boolean tree, Kind build) implements Kind {
        @Override
        public CollectiveAlgorithm algorithm(Communicator comm, Plan plan) {
            return build.algorithm(comm, plan);
        }

        @Override
        public boolean inSwitch() {
            return true;
        }

        /**
         * NCCL's NVLS latency is the whole algorithm's inside the node: one alpha. Every GPU sends its data up
         * once and receives the sum once, S(1 + 1/p) a direction at NCCL's NVLS efficiency; across nodes
         * the heads' NICs carry NCCL's tree (NVLS-Tree, 2 log2(N) network steps) or SHARP's one
         * reduction (NVLS with CollNet).
         */
        @Override
        public AlphaBeta alphaBeta(CollectiveRequest req, Communicator comm) {
            int nodes = comm.nNodes();
            int p = req.nRanks() / nodes;
            double bytes = req.bytes();
            double gpu = bytes * (1 + 1.0 / p);
            double eff = comm.book().nvls() == null ? 1 : comm.book().nvls().efficiency();
            String how = "every GPU sends its data up once and receives the sum once: the NVSwitch reduces and multicasts";
            if (nodes == 1) {
                return new AlphaBeta("alpha + S(1 + 1/n)/beta", how, 1, 0, gpu, eff, 0, 1);
            }
            if (!tree && comm.book().sharp() != null) {
                return new AlphaBeta("alpha + alpha_net + max(S(1 + 1/p)/beta, S/beta_node)", how + "; SHARP sums the nodes",
                        1, 1, gpu, eff, bytes, comm.book().sharp().efficiency());
            }
            return new AlphaBeta("alpha + 2 log2(N) alpha_net + max(S(1 + 1/p)/beta, " + treeEdges(nodes)
                    + " S/2 / beta_node)", how + "; the heads' NICs carry NCCL's two trees over the nodes, each half the data",
                    1, 2.0 * log2(nodes), gpu, eff, treeNodeBytes(nodes, bytes), 1);
        }
    }

    /** CollNet Direct ({@code direct}) and Chain: SHARP switches reduce across nodes. */
    private record CollNet(boolean direct, Kind build) implements Kind {
        @Override
        public CollectiveAlgorithm algorithm(Communicator comm, Plan plan) {
            return build.algorithm(comm, plan);
        }

        /**
         * Direct: every GPU scatters its data to the p heads over NVLink and gathers the result back,
         * 2(p-1)/p S a direction on its link, each head's NIC carrying S/p once up to SHARP and once back
         * (NCCL's latency 2 alpha + alpha_net). Chain: a chain reduces up to the NIC's GPU and passes the
         * result down, 2(p-1)/p S a GPU as the chain turns per channel (2(p-1) alpha + alpha_net).
         */
        @Override
        public AlphaBeta alphaBeta(CollectiveRequest req, Communicator comm) {
            int p = req.nRanks() / comm.nNodes();
            double bytes = req.bytes();
            double eff = comm.book().sharp() == null ? 1 : comm.book().sharp().efficiency();
            double gpu = 2.0 * (p - 1) / p * bytes;
            return direct
                    ? new AlphaBeta("2 alpha + alpha_net + max(2(p-1)/p S/beta, S/beta_node)", "every GPU scatters its data to its"
                    + " node's p heads and gathers the sum back; each head's NIC sends its S/p to the SHARP switch, which sums the nodes",
                    2, 1, gpu, 1, bytes, eff)
                    : new AlphaBeta("2(p-1) alpha + alpha_net + max(2(p-1)/p S/beta, S/beta_node)", "a chain in each node reduces up to"
                    + " the GPU whose NIC the channel uses, the SHARP switch sums the nodes, the chain passes the result back down",
                    2.0 * (p - 1), 1, gpu, 1, bytes, eff);
        }
    }

    private static final class AllPairs implements Kind {
        @Override
        public CollectiveAlgorithm algorithm(Communicator comm, Plan plan) {
            return new AllPairsAlgorithm();
        }

        /** Two steps: every rank sends each peer its block, then each owner sends its sum to every peer, all links at once. */
        @Override
        public AlphaBeta alphaBeta(CollectiveRequest req, Communicator comm) {
            return twoDirectSteps(req, "a reduce-scatter then an all-gather, each one step of direct sends to every peer, a link each");
        }

        /** Per channel, every rank sends to every peer twice, its thread blocks copy each out, and the owner's sum its n-1 blocks. */
        @Override
        public double plannedTransfers(Plan plan, Communicator comm) {
            CollectiveRequest req = plan.request();
            int n = req.nRanks();
            return req.channels() * 5.0 * n * (n - 1);
        }
    }

    /** An inference engine's all-reduce kernel: it runs only when asked for by name, at its own costs. */
    private record Custom(CustomAllReduceAlgorithm.Variant variant) implements Kind {
        @Override
        public CollectiveAlgorithm algorithm(Communicator comm, Plan plan) {
            return new CustomAllReduceAlgorithm(variant);
        }

        /** One-shot writes its whole input to every peer; two-shot is a reduce-scatter and an all-gather by direct writes; multimem is one switch reduction. */
        @Override
        public AlphaBeta alphaBeta(CollectiveRequest req, Communicator comm) {
            int n = req.nRanks();
            double bytes = req.bytes();
            return switch (variant) {
                case ONE_SHOT -> new AlphaBeta("alpha + (n-1) S/beta", "every rank writes its whole input to every peer, which sums",
                        1, 0, (n - 1) * bytes, 1, 0, 1);
                case TWO_SHOT -> twoDirectSteps(req, "a reduce-scatter then an all-gather, each by direct writes");
                case MULTIMEM -> new AlphaBeta("alpha + S(1 + 1/n)/beta", "one reduction and multicast in the NVSwitch", 1, 0,
                        bytes * (1 + 1.0 / n), 1, 0, 1);
            };
        }
    }

    private static final class OneRank implements Kind {
        @Override
        public CollectiveAlgorithm algorithm(Communicator comm, Plan plan) {
            return new OneRankAlgorithm();
        }

        @Override
        public AlphaBeta alphaBeta(CollectiveRequest req, Communicator comm) {
            return new AlphaBeta("S/beta", "one rank communicates nothing; NCCL copies its input to its output", 0, 0, req.bytes(), 1, 0, 1);
        }

        @Override
        public double plannedTransfers(Plan plan, Communicator comm) {
            return 1;
        }
    }

    private static final class PointToPoint implements Kind {
        @Override
        public CollectiveAlgorithm algorithm(Communicator comm, Plan plan) {
            return new P2pAlgorithm(comm.p2pChunkBytes(), comm.nRanks() / comm.nNodes(), comm.p2pChannels());
        }

        @Override
        public AlphaBeta alphaBeta(CollectiveRequest req, Communicator comm) {
            int n = req.nRanks();
            double bytes = req.bytes();
            int p = n / comm.nNodes();
            boolean all = req.op() == CollectiveOp.ALL_TO_ALL;
            return new AlphaBeta(all ? "alpha + max((n-1)/n S/beta, p(n-p)/n S/beta_node)" : "alpha + S/beta", "the data leaving one"
                    + " GPU" + (all ? ", and one node" : ""), 1, 0, all ? bytes * (n - 1) / n : bytes, 1,
                    all && comm.nNodes() > 1 ? p * (n - p) / (double) n * bytes : 0, 1);
        }
    }

    private final String label;
    private final NcclAlgo nccl;
    private final Kind kind;

    AlgorithmId(String label, NcclAlgo nccl, Kind kind) {
        this.label = label;
        this.nccl = nccl;
        this.kind = kind;
    }

    public String label() {
        return label;
    }

    /** The algorithm in NCCL's tuner tables, or null for the others. */
    public NcclAlgo nccl() {
        return nccl;
    }

    /** The algorithm that builds a plan's schedule on a communicator. */
    CollectiveAlgorithm algorithm(Communicator comm, Plan plan) {
        return kind.algorithm(comm, plan);
    }

    /** Whether it runs in the NVSwitch (NVLS, NVLS-Tree): launched at NVLS's latency, its steps priced by NVLS's costs. */
    public boolean inSwitch() {
        return kind.inSwitch();
    }

    /** Its textbook alpha-beta shape for a request on a communicator. */
    public AlphaBeta alphaBeta(CollectiveRequest req, Communicator comm) {
        return kind.alphaBeta(req, comm);
    }

    /** About how many transfers the plan's schedule holds, without building it (bench's run-time estimate). */
    public double plannedTransfers(Plan plan, Communicator comm) {
        return kind.plannedTransfers(plan, comm);
    }

    public static AlgorithmId of(NcclAlgo algo) {
        for (AlgorithmId a : values()) {
            if (a.nccl == algo) {
                return a;
            }
        }
        throw new IllegalArgumentException(String.valueOf(algo));
    }

    /** True for the inference engines' kernels, which run only when asked for by name. */
    public boolean custom() {
        return kind instanceof Custom;
    }

    /** The inference engine's kernel this is, or null for NCCL's algorithms. */
    public CustomAllReduceAlgorithm.Variant kernel() {
        return kind instanceof Custom c ? c.variant() : null;
    }
}
