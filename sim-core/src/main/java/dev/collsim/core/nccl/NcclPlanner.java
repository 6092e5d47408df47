package dev.collsim.core.nccl;

import dev.collsim.core.collective.CollectiveOp;
import dev.collsim.core.collective.CollectiveRequest;
import dev.collsim.core.collective.CustomAllReduceAlgorithm;
import dev.collsim.core.collective.Protocol;
import dev.collsim.core.input.InputException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Chooses algorithm, protocol and channels for a collective as NCCL does
 * ({@code src/enqueue.cc} {@code topoGetAlgoInfo}): the cheapest allowed candidate of the cost
 * model wins. Ring then drops channels while the message is too small to give each thread its
 * threshold of bytes; NVLS always runs on its own channel count. (NCCL also halves the threads per
 * channel of small messages; the model leaves a small message's rate to its channel count and
 * per-step latencies.)
 */
public final class NcclPlanner {
    /** NCCL's {@code NCCL_P2P_LL_THRESHOLD}: a send of at most this many bytes per channel uses LL. */
    private static final long P2P_LL_THRESHOLD = 16384;

    /** Bytes per thread below which NCCL drops a channel ({@code NCCL_*_THREAD_THRESHOLD}). */
    private static final int LL_THREAD_THRESHOLD = 8;
    private static final int LL128_THREAD_THRESHOLD = 8;
    private static final int SIMPLE_THREAD_THRESHOLD = 64;

    private NcclPlanner() {}

    /**
     * @param bytes    nccl-tests' size
     * @param algos    allowed algorithms
     * @param protos   allowed protocols
     * @param channels a fixed channel count, or 0 to choose as NCCL does
     */
    public static Plan plan(Communicator comm, CollectiveOp op, long bytes, int root, Set<AlgorithmId> algos,
                            Set<Protocol> protos, int channels) {
        return plan(comm, op, bytes, root, algos, protos, channels, Payload.FLOAT_SUM);
    }

    /**
     * {@link #plan(Communicator, CollectiveOp, long, int, Set, Set, int)} for a buffer of {@code payload}'s elements and
     * reduction, which decide whether RCCL's MSCCL algorithms take it ({@link MscclAllPairs}).
     */
    public static Plan plan(Communicator comm, CollectiveOp op, long bytes, int root, Set<AlgorithmId> algos,
                            Set<Protocol> protos, int channels, Payload payload) {
        if (protos.isEmpty()) {
            throw new InputException("no protocol left to choose from");
        }
        if (comm.nRanks() == 1) {
            // NCCL's one-rank path, whatever the algorithm and protocol asked for: no kernel, a copy (ncclLaunchOneRank).
            return new Plan(AlgorithmId.ONE_RANK, new CollectiveRequest(op, 1, bytes, root, Protocol.SIMPLE, 1), null, List.of());
        }
        if (algos.equals(EnumSet.of(AlgorithmId.ONE_RANK))) {
            throw new InputException("OneRank is NCCL's path for a communicator of one rank; this one has " + comm.nRanks());
        }
        if (op.pointToPoint()) {
            return pointToPoint(comm, op, bytes, protos, channels);
        }
        EnumSet<AlgorithmId> runnable = EnumSet.noneOf(AlgorithmId.class);
        runnable.addAll(algos);
        runnable.remove(AlgorithmId.P2P);
        runnable.remove(AlgorithmId.ONE_RANK);
        boolean explicitAlgos = algos.size() < AlgorithmId.values().length;
        if (explicitAlgos && runnable.size() == 1 && runnable.iterator().next().custom()) {
            return custom(comm, op, bytes, runnable.iterator().next(), channels);
        }
        runnable.removeIf(AlgorithmId::custom);
        if (runnable.remove(AlgorithmId.ALL_PAIRS)) {
            // RCCL's MSCCL scheduler takes the message before its tuner does, where one of its algorithms fits it.
            MscclAllPairs.Choice msccl = MscclAllPairs.choose(comm, op, bytes, payload);
            if (msccl != null && protos.contains(msccl.protocol())) {
                CollectiveRequest request = new CollectiveRequest(op, comm.nRanks(), bytes, root, msccl.protocol(),
                        channels > 0 ? channels : msccl.channels());
                return new Plan(AlgorithmId.ALL_PAIRS, request, null, estimates(comm, op, bytes));
            }
            if (runnable.isEmpty()) {
                throw new InputException("AllPairs cannot run " + op.ncclName() + " of " + bytes + " B here: "
                        + MscclAllPairs.whyNot(comm, op, bytes, payload));
            }
        }
        if (runnable.isEmpty()) {
            throw new InputException("algorithm " + algos.stream().map(AlgorithmId::label).collect(Collectors.joining(","))
                    + " cannot run " + op.ncclName() + ": P2P carries alltoall and sendrecv, and the inference kernels"
                    + " run one at a time, by name");
        }
        List<NcclTuner.Estimate> candidates = estimates(comm, op, bytes);
        boolean explicitProtocols = protos.size() < Protocol.values().length;
        NcclTuner.Estimate best = candidates.stream()
                .filter(e -> runnable.contains(AlgorithmId.of(e.algo())) && protos.contains(e.protocol()))
                .filter(e -> e.enabled() || (explicitProtocols && e.algo() == NcclAlgo.RING))
                .min(Comparator.comparingDouble(NcclTuner.Estimate::timeMicros))
                .orElseThrow(() -> new InputException(explicitAlgos ? whyNone(comm, op, runnable)
                        : "no allowed algorithm and protocol can run " + op.ncclName() + " here"
                        + (explicitProtocols ? " (check --algo, --proto, --nvls, --collnet)" : "")));
        RcclTuning rccl = comm.tunerInputs().arch().rcclTuning();
        Protocol override = rccl == null || explicitProtocols ? null
                : rccl.protocolOverride(op, bytes, comm.nRanks(), comm.nNodes(), NcclTuner.rcclLl128Enabled(comm.tunerInputs()));
        if (override != null) {
            // RCCL keeps its tuner's algorithm and replaces the protocol by size (rcclUpdateCollectiveProtocol).
            NcclAlgo algo = best.algo();
            best = candidates.stream().filter(e -> e.algo() == algo && e.protocol() == override).findFirst().orElse(best);
        }
        Protocol proto = override != null ? override : best.protocol();
        int nc = channels;
        if (nc == 0) {
            nc = best.algo() == NcclAlgo.NVLS || best.algo() == NcclAlgo.NVLS_TREE ? comm.nccl().nvlsGraph().channels()
                    : best.algo() == NcclAlgo.TREE ? treeChannels(comm, proto, bytes)
                    : ringChannels(comm, proto, bytes);
        }
        CollectiveRequest request = new CollectiveRequest(op, comm.nRanks(), bytes, root, proto, nc);
        return new Plan(AlgorithmId.of(best.algo()), request, best, candidates);
    }

    /** Why none of the algorithms asked for can run the operation here, each in words NCCL's own rules give. */
    private static String whyNone(Communicator comm, CollectiveOp op, Set<AlgorithmId> asked) {
        List<String> reasons = new ArrayList<>();
        for (AlgorithmId a : asked) {
            String why = whyNot(comm.tunerInputs(), op, a);
            reasons.add(a.label() + " cannot run " + op.ncclName() + " here: "
                    + (why != null ? why : "NCCL does not enable it with the protocols allowed (check --proto, --nvls, --collnet)"));
        }
        return String.join("; ", reasons);
    }

    /** Why NCCL would not run {@code algo} for {@code op} on this communicator, or null if it can. */
    static String whyNot(TunerInputs in, CollectiveOp op, AlgorithmId algo) {
        boolean allReduce = op == CollectiveOp.ALL_REDUCE;
        String sharp = in.arch() == NcclArch.AMPERE || in.arch() == NcclArch.VOLTA
                ? "no NVLink SHARP on this " + in.arch().name().charAt(0) + in.arch().name().substring(1).toLowerCase(Locale.ROOT)
                        + " system's NVSwitch (generation 2 and before cannot reduce or multicast; NVLS came with the third generation,"
                        + " on Hopper)"
                : "no NVSwitch that can reduce and multicast (NVLink SHARP) joins these GPUs";
        return switch (algo) {
            case TREE -> !allReduce ? "NCCL's tree runs all_reduce only" : in.nRanks() < 2 ? "one rank has no tree" : null;
            case NVLS -> in.nvls() == null ? sharp : !allReduce ? "NVLS runs all_reduce here (all_gather and reduce_scatter over NVLS need CollNet"
                    + " across nodes)" : in.nNodes() > 1 ? "NVLS stays in one node; across nodes NCCL runs NVLSTree" : null;
            case NVLS_TREE -> in.nvls() == null ? sharp : !allReduce ? "NVLSTree runs all_reduce only"
                    : in.nNodes() < 2 ? "NVLSTree joins nodes (a tree over nodes, NVLS inside each); NCCL disables it on one node, where NVLS runs"
                    : null;
            case PAT -> op != CollectiveOp.ALL_GATHER && op != CollectiveOp.REDUCE_SCATTER ? "PAT runs all_gather and reduce_scatter only"
                    : in.nNodes() != in.nRanks() ? "NCCL runs PAT only with one GPU per node"
                    : !in.version().hasPat() ? "PAT came with NCCL 2.23; NCCL " + in.version().release() + " has none" : null;
            case COLLNET_DIRECT, COLLNET_CHAIN -> !in.collNet() ? "CollNet reduces in a SHARP network switch: it needs such a network"
                    + " (--collnet on) and more than one node" : in.nNodes() < 2 ? "CollNet reduces in the network's switch: it needs more"
                    + " than one node" : !allReduce ? "CollNet runs all_reduce here" : null;
            default -> null;
        };
    }

    /**
     * An inference engine's all-reduce kernel, asked for by name: all_reduce only, inside one NVLink
     * domain (vLLM needs every pair of GPUs on NVLink), multimem only where the switch can reduce.
     */
    private static Plan custom(Communicator comm, CollectiveOp op, long bytes, AlgorithmId algo, int channels) {
        if (op != CollectiveOp.ALL_REDUCE) {
            throw new InputException(algo.label() + " is an all_reduce kernel; " + op.ncclName() + " runs with NCCL's algorithms");
        }
        if (!comm.oneNvlinkDomain()) {
            throw new InputException(algo.label() + " needs every GPU in one NVLink domain");
        }
        if (algo == AlgorithmId.MULTIMEM && comm.book().nvls() == null) {
            throw new InputException("Multimem needs an NVSwitch that can reduce and multicast (NVLS)");
        }
        int blocks = channels > 0 ? channels : CustomAllReduceAlgorithm.blocksFor(bytes);
        return new Plan(algo, new CollectiveRequest(op, comm.nRanks(), bytes, 0, Protocol.SIMPLE, blocks), null, List.of());
    }

    /**
     * alltoall and sendrecv: NCCL's point-to-point path, no tuner. A send is split over channels as
     * {@code scheduleP2pTasksToPlan} and {@code addP2pToPlan} ({@code src/enqueue.cc}) split it: at
     * most the communicator's p2p channels per peer, starting from as many as let every rank's
     * operation have its own channels, doubled while a part exceeds 32 chunks inside a node (one
     * chunk across nodes); so a large send inside a node takes more channels only as its size grows.
     * LL carries sends of at most 16 KiB per channel, Simple the rest.
     */
    private static Plan pointToPoint(Communicator comm, CollectiveOp op, long bytes, Set<Protocol> protos, int channels) {
        int n = comm.nRanks();
        long block = op.sizeIsTotal() ? bytes / n : bytes;
        int parts = channels > 0 ? channels : p2pParts(comm, block);
        boolean ll = block <= parts * P2P_LL_THRESHOLD;
        Protocol proto = ll && protos.contains(Protocol.LL) || !protos.contains(Protocol.SIMPLE) ? Protocol.LL : Protocol.SIMPLE;
        if (!protos.contains(proto)) {
            throw new InputException(op.ncclName() + " runs with LL or Simple; --proto allows neither");
        }
        return new Plan(AlgorithmId.P2P, new CollectiveRequest(op, n, bytes, 0, proto, parts), null, List.of());
    }

    /** Channels NCCL splits one send of {@code block} bytes over ({@code addP2pToPlan}). */
    static int p2pParts(Communicator comm, long block) {
        int max = comm.p2pChannelsPerPeer();
        int min = max;
        while (min * comm.nRanks() > comm.p2pChannels() && min > 1) {
            min /= 2;
        }
        long chunk = comm.p2pChunkBytes();
        boolean across = comm.nNodes() > 1;
        long minPart = across ? chunk / 2 : chunk / 8;
        long maxPart = across ? chunk : chunk * 32;
        int parts = (int) Math.max(1, Math.min(min, (block + minPart - 1) / minPart));
        long part = Math.max(minPart, (block + parts - 1) / parts);
        while (part > maxPart && parts <= max / 2) {
            parts *= 2;
            part = (block + parts - 1) / parts;
        }
        return parts;
    }

    /** The cost model's estimate for every algorithm and protocol this communicator could run. */
    public static List<NcclTuner.Estimate> estimates(Communicator comm, CollectiveOp op, long bytes) {
        TunerInputs in = comm.tunerInputs();
        List<NcclTuner.Estimate> out = new ArrayList<>();
        for (Protocol p : Protocol.values()) {
            out.add(NcclTuner.ring(op, p, bytes, in));
        }
        for (Protocol p : Protocol.values()) {
            NcclTuner.Estimate tree = NcclTuner.tree(op, p, bytes, in);
            if (tree != null) {
                out.add(tree);
            }
        }
        // The algorithms NCCL runs with Simple only; each is null where it cannot run.
        Stream.of(NcclTuner.nvls(op, Protocol.SIMPLE, bytes, in), NcclTuner.nvlsTree(op, Protocol.SIMPLE, bytes, in),
                        NcclTuner.pat(op, Protocol.SIMPLE, bytes, in), NcclTuner.collNetDirect(op, Protocol.SIMPLE, bytes, in),
                        NcclTuner.collNetChain(op, Protocol.SIMPLE, bytes, in))
                .filter(Objects::nonNull).forEach(out::add);
        return List.copyOf(out);
    }

    private static int ringChannels(Communicator comm, Protocol proto, long bytes) {
        int nc = comm.nccl().ring().channels();
        long perChannel = (long) proto.maxThreads() * threadThreshold(proto, comm.nRanks());
        while (bytes < nc * perChannel && nc > 1) {
            nc--;
        }
        return nc;
    }

    /**
     * The tree's channels, dropped while each thread would have less than the protocol's plain
     * threshold; the threads counted are the protocol's ({@code maxThreads[TREE]}: 512 under LL and
     * Simple, 640 under LL128), though the kernel then runs 640.
     */
    private static int treeChannels(Communicator comm, Protocol proto, long bytes) {
        int nc = comm.nccl().ring().channels();
        long perChannel = (long) proto.maxThreads() * threadThreshold(proto, 1);
        while (bytes < nc * perChannel && nc > 1) {
            nc--;
        }
        return nc;
    }

    private static long threadThreshold(Protocol proto, int nRanks) {
        return switch (proto) {
            case LL -> (long) LL_THREAD_THRESHOLD * nRanks; // ring LL scales with the ring's length; tree passes 1
            case LL128 -> LL128_THREAD_THRESHOLD;
            case SIMPLE -> SIMPLE_THREAD_THRESHOLD;
        };
    }
}
