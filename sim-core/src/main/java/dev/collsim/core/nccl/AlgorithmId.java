package dev.collsim.core.nccl;

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
    COLLNET_DIRECT("CollNetDirect", NcclAlgo.COLLNET_DIRECT,
            (comm, plan) -> new CollNetDirectAlgorithm(comm.nodeRanks(), Protocol.SIMPLE.stepDataBytes())),
    COLLNET_CHAIN("CollNetChain", NcclAlgo.COLLNET_CHAIN,
            (comm, plan) -> new CollNetChainAlgorithm(comm.nodeRanks(), Protocol.SIMPLE.stepDataBytes())),
    NVLS("NVLS", NcclAlgo.NVLS, new InSwitch((comm, plan) -> new NvlsAlgorithm())),
    NVLS_TREE("NVLSTree", NcclAlgo.NVLS_TREE, new InSwitch((comm, plan) -> new NvlsTreeAlgorithm(comm.nodeRanks(),
            comm.nvlsTreeChunk(plan.request().bytes(), plan.request().channels())))),
    PAT("PAT", NcclAlgo.PAT, new Pat()),
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

    /** The textbook alpha-beta time of a collective: {@code steps} alpha + {@code bytesPerRank} / beta. */
    public record AlphaBeta(double steps, double bytesPerRank, String shape) {}

    /** What one algorithm is to the simulator; the defaults are a ring-like algorithm's. */
    interface Kind {
        /** The algorithm that builds the plan's schedule on this communicator. */
        CollectiveAlgorithm algorithm(Communicator comm, Plan plan);

        /** Whether its kernels start after NVLS's launch latency, which is the whole algorithm's, rather than NCCL's base latency. */
        default boolean inSwitch() {
            return false;
        }

        /** The textbook shape (the ring's: (n-1) steps of S/n, twice for all_reduce). */
        default AlphaBeta alphaBeta(CollectiveRequest req, Communicator comm) {
            int n = req.nRanks();
            double bytes = req.bytes();
            boolean twice = req.op() == CollectiveOp.ALL_REDUCE;
            double steps = twice ? 2.0 * (n - 1) : n - 1;
            return new AlphaBeta(steps, req.op().sizeIsTotal() || twice ? steps * bytes / n : bytes,
                    twice ? "2(n-1)(alpha + S/(n beta)): reduce-scatter then all-gather around the ring"
                            : "(n-1)(alpha + S/(n beta)) around the ring");
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
            return new TreeAlgorithm(comm.nodeRanks());
        }

        @Override
        public AlphaBeta alphaBeta(CollectiveRequest req, Communicator comm) {
            int depth = (int) Math.ceil(Math.log(req.nRanks()) / Math.log(2));
            depth = Math.max(depth, comm.nRanks() / comm.nNodes() - 1);
            return new AlphaBeta(2.0 * depth, req.bytes(), "2 depth alpha + S/beta: up the tree and down again, pipelined in chunks");
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

    private record InSwitch(Kind build) implements Kind {
        @Override
        public CollectiveAlgorithm algorithm(Communicator comm, Plan plan) {
            return build.algorithm(comm, plan);
        }

        @Override
        public boolean inSwitch() {
            return true;
        }

        @Override
        public AlphaBeta alphaBeta(CollectiveRequest req, Communicator comm) {
            return new AlphaBeta(1, req.bytes() * (1 + 1.0 / req.nRanks()),
                    "alpha + S(1 + 1/n)/beta: every GPU sends its data up once and receives the result once, through the switch");
        }
    }

    /** An inference engine's all-reduce kernel: it runs only when asked for by name, at its own costs. */
    private record Custom(CustomAllReduceAlgorithm.Variant variant) implements Kind {
        @Override
        public CollectiveAlgorithm algorithm(Communicator comm, Plan plan) {
            return new CustomAllReduceAlgorithm(variant);
        }
    }

    private static final class OneRank implements Kind {
        @Override
        public CollectiveAlgorithm algorithm(Communicator comm, Plan plan) {
            return new OneRankAlgorithm();
        }

        @Override
        public AlphaBeta alphaBeta(CollectiveRequest req, Communicator comm) {
            return new AlphaBeta(0, req.bytes(), "S/beta: one rank communicates nothing; NCCL copies its input to its output");
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
            return new AlphaBeta(1, req.op() == CollectiveOp.ALL_TO_ALL ? bytes * (n - 1) / n : bytes, "alpha + (data leaving one GPU)/beta");
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
