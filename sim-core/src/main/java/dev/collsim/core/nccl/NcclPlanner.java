package dev.collsim.core.nccl;

import dev.collsim.core.collective.CollectiveOp;
import dev.collsim.core.collective.CollectiveRequest;
import dev.collsim.core.collective.Protocol;
import dev.collsim.core.input.InputException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Chooses algorithm, protocol and channels for a collective as NCCL does
 * ({@code src/enqueue.cc} {@code topoGetAlgoInfo}): the cheapest allowed candidate of the cost
 * model wins. Ring then drops channels while the message is too small to give each thread its
 * threshold of bytes; NVLS always runs on its own channel count. (NCCL also halves the threads per
 * channel of small messages; the model leaves a small message's rate to its channel count and
 * per-step latencies.)
 */
public final class NcclPlanner {
    /** Algorithms this version simulates chunk by chunk. */
    public static final Set<NcclAlgo> SIMULATED = EnumSet.of(NcclAlgo.RING, NcclAlgo.NVLS);

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
    public static Plan plan(Communicator comm, CollectiveOp op, long bytes, int root, Set<NcclAlgo> algos,
                            Set<Protocol> protos, int channels) {
        EnumSet<NcclAlgo> runnable = EnumSet.noneOf(NcclAlgo.class);
        runnable.addAll(algos);
        runnable.retainAll(SIMULATED);
        if (runnable.isEmpty()) {
            throw new InputException("algorithm " + algos.stream().map(NcclAlgo::label).collect(Collectors.joining(","))
                    + " is not simulated yet; this version simulates "
                    + SIMULATED.stream().map(NcclAlgo::label).collect(Collectors.joining(", ")));
        }
        if (protos.isEmpty()) {
            throw new InputException("no protocol left to choose from");
        }
        List<NcclTuner.Estimate> candidates = estimates(comm, op, bytes);
        boolean explicitAlgos = algos.size() < NcclAlgo.values().length;
        boolean explicitProtocols = protos.size() < Protocol.values().length;
        NcclTuner.Estimate best = candidates.stream()
                .filter(e -> runnable.contains(e.algo()) && protos.contains(e.protocol()))
                .filter(e -> e.enabled() || (explicitProtocols && e.algo() == NcclAlgo.RING))
                .min(Comparator.comparingDouble(NcclTuner.Estimate::timeMicros))
                .orElseThrow(() -> new InputException("no allowed algorithm and protocol can run "
                        + op.ncclName() + " here" + (explicitAlgos || explicitProtocols ? " (check --algo, --proto, --nvls)" : "")));
        Protocol proto = best.protocol();
        int nc = channels;
        if (nc == 0) {
            nc = best.algo() == NcclAlgo.NVLS ? comm.nvlsGraph().channels() : ringChannels(comm, proto, bytes);
        }
        CollectiveRequest request = new CollectiveRequest(op, comm.nRanks(), bytes, root, proto, nc);
        return new Plan(best.algo(), request, best, candidates);
    }

    /** The cost model's estimate for every algorithm and protocol this communicator could run. */
    public static List<NcclTuner.Estimate> estimates(Communicator comm, CollectiveOp op, long bytes) {
        TunerInputs in = comm.tunerInputs();
        List<NcclTuner.Estimate> out = new ArrayList<>();
        for (Protocol p : Protocol.values()) {
            out.add(NcclTuner.ring(op, p, bytes, in));
        }
        NcclTuner.Estimate nvls = NcclTuner.nvls(op, Protocol.SIMPLE, bytes, in);
        if (nvls != null) {
            out.add(nvls);
        }
        return List.copyOf(out);
    }

    private static int ringChannels(Communicator comm, Protocol proto, long bytes) {
        int nc = comm.ring().channels();
        long perChannel = (long) proto.maxThreads() * threadThreshold(proto, comm.nRanks());
        while (bytes < nc * perChannel && nc > 1) {
            nc--;
        }
        return nc;
    }

    private static long threadThreshold(Protocol proto, int nRanks) {
        return switch (proto) {
            case LL -> (long) LL_THREAD_THRESHOLD * nRanks; // ring LL scales with the ring's length
            case LL128 -> LL128_THREAD_THRESHOLD;
            case SIMPLE -> SIMPLE_THREAD_THRESHOLD;
        };
    }
}
