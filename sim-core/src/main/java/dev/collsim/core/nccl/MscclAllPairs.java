package dev.collsim.core.nccl;

import dev.collsim.core.collective.CollectiveOp;
import dev.collsim.core.collective.Protocol;

/**
 * When RCCL runs MSCCL's all-pairs all-reduce ({@link dev.collsim.core.collective.AllPairsAlgorithm}) rather than its
 * tuner's choice, and with what protocol and channels.
 *
 * <p>RCCL enables MSCCL by default (2.21.5 to 2.27.7, the releases read: {@code RCCL_MSCCL_ENABLE=1}, single-process
 * communicators included) on the topologies whose model turns it on: {@code rome_model_79}, one node of eight GPUs each
 * joined to every other by its own xGMI link ({@code src/graph/rome_models.cc}: {@code mscclEnabled=1}; NICs are
 * trimmed from a one-node communicator first). Its scheduler then takes the first built-in algorithm whose size range
 * holds the message and whose chunks divide its elements ({@code mscclInternalSchedulerSelectAlgo}); the all_reduce
 * ones for eight GPUs ({@code tools/msccl-algorithms/allreduce-allpairs-8n-*.xml}) are all-pairs:
 * <ul>
 *   <li>{@code -ll-32tb}: LL, 4 channels, 256 chunks a pass, up to 64 KiB;</li>
 *   <li>{@code -ll-64tb}: LL, 8 channels, 512 chunks, to 512 KiB;</li>
 *   <li>{@code -simple}: Simple, 8 channels, 512 chunks, from 512 KiB to 20 MiB (16 MiB before RCCL 2.25).</li>
 * </ul>
 * The reduction must be below {@code ncclAvg}; RCCL 2.27 runs no FP8 through MSCCL and bfloat16 only to 8 MiB
 * ({@code src/collectives.cc}). RCCL 2.28.3 removed MSCCL (its CHANGELOG). Sources: ROCm/rccl @ 0cbce2a7 (2.21.5) and
 * RCCL 2.25.1 and 2.27.7 as carried in meta-pytorch/torchcomms {@code comms/rcclx} (9e93d2818, 35a97fc2e).
 */
public final class MscclAllPairs {
    /** The ranks the built-in algorithms are written for. */
    static final int RANKS = 8;
    /** The largest message of the Simple algorithm (RCCL 2.25 and later). */
    static final long MAX_BYTES = 20L << 20;
    /** RCCL 2.27's largest bfloat16 message through MSCCL. */
    static final long MAX_BF16_BYTES = 8L << 20;

    private MscclAllPairs() {}

    /** The algorithm RCCL's MSCCL scheduler picks: its protocol and channels. */
    public record Choice(Protocol protocol, int channels) {}

    /** Whether RCCL turns MSCCL on for this communicator: one node of eight Instinct GPUs that every pair joins directly. */
    static boolean enabled(Communicator comm) {
        return comm.nccl().arch().rccl() && comm.nNodes() == 1 && comm.nRanks() == RANKS && comm.nccl().searched() != null
                && comm.nccl().searched().nodeRings() != null;
    }

    /** The smallest message of {@code payload}'s elements an algorithm takes: one pass of 256 elements. */
    public static long smallestBytes(Payload payload) {
        return 256L * payload.elementBytes();
    }

    /** Why MSCCL's all-pairs does not run this message here, in RCCL's terms. */
    static String whyNot(Communicator comm, CollectiveOp op, long bytes, Payload payload) {
        Choice c = choose(comm, op, bytes, payload);
        if (c != null) {
            return "it runs " + c.protocol().label() + ", which --proto leaves out";
        }
        return op != CollectiveOp.ALL_REDUCE ? "RCCL's MSCCL algorithms here are all_reduce ones"
                : !enabled(comm) ? "RCCL turns MSCCL on only for one node of " + RANKS + " Instinct GPUs that every pair joins by"
                        + " its own xGMI link"
                : payload.averages() ? "MSCCL runs no averaging reduction"
                : payload.fp8() ? "RCCL runs no FP8 through MSCCL"
                : "its algorithms take 1 KiB to 20 MiB (bfloat16 to 8 MiB) in whole passes of 256 elements (512 above 64 KiB)";
    }

    /** What MSCCL runs for {@code op} of {@code bytes}, or null where RCCL leaves it to its tuner. */
    public static Choice choose(Communicator comm, CollectiveOp op, long bytes, Payload payload) {
        if (op != CollectiveOp.ALL_REDUCE || bytes == 0 || !enabled(comm) || payload.averages() || payload.fp8()
                || payload.bfloat16() && bytes > MAX_BF16_BYTES) {
            return null;
        }
        long count = bytes / payload.elementBytes();
        if (bytes <= 64L << 10) {
            return count % 256 == 0 ? new Choice(Protocol.LL, 4) : null;
        }
        if (count % 512 != 0 || bytes > MAX_BYTES) {
            return null;
        }
        return bytes < 512L << 10 ? new Choice(Protocol.LL, 8) : new Choice(Protocol.SIMPLE, 8);
    }
}
