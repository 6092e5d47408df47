package dev.collsim.core.nccl;

import dev.collsim.core.collective.CollectiveOp;
import dev.collsim.core.collective.CollectiveRequest;
import dev.collsim.core.collective.Protocol;
import dev.collsim.core.input.InputException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Chooses algorithm, protocol, channels and threads for a collective as NCCL does
 * ({@code src/enqueue.cc} {@code topoGetAlgoInfo}): the cheapest allowed candidate of the cost
 * model wins; then channels are dropped while the message is too small to give each thread its
 * threshold of bytes. (NCCL then also halves the threads per channel; the model leaves a small
 * message's rate to its channel count and per-step latencies.)
 */
public final class NcclPlanner {
    /** Algorithms this version simulates chunk by chunk. */
    public static final Set<NcclAlgo> SIMULATED = EnumSet.of(NcclAlgo.RING);

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
        TunerInputs in = comm.tunerInputs();
        boolean explicitProtocols = protos.size() < Protocol.values().length;
        List<NcclTuner.Estimate> candidates = new ArrayList<>();
        NcclTuner.Estimate best = null;
        for (Protocol p : Protocol.values()) {
            NcclTuner.Estimate e = NcclTuner.ring(op, p, bytes, in);
            candidates.add(e);
            boolean allowed = protos.contains(p) && (e.enabled() || explicitProtocols);
            if (allowed && (best == null || e.timeMicros() < best.timeMicros())) {
                best = e;
            }
        }
        if (best == null) {
            throw new InputException("none of the chosen protocols is usable here");
        }
        Protocol proto = best.protocol();
        int nc = channels > 0 ? channels : comm.ring().channels();
        if (channels == 0) {
            long perChannel = (long) proto.maxThreads() * threadThreshold(proto, comm.nRanks());
            while (bytes < nc * perChannel && nc > 1) {
                nc--;
            }
        }
        CollectiveRequest request = new CollectiveRequest(op, comm.nRanks(), bytes, root, proto, nc);
        return new Plan(NcclAlgo.RING, request, best, List.copyOf(candidates));
    }

    private static long threadThreshold(Protocol proto, int nRanks) {
        return switch (proto) {
            case LL -> (long) LL_THREAD_THRESHOLD * nRanks; // ring LL scales with the ring's length
            case LL128 -> LL128_THREAD_THRESHOLD;
            case SIMPLE -> SIMPLE_THREAD_THRESHOLD;
        };
    }
}
