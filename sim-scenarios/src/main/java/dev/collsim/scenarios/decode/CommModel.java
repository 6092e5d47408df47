package dev.collsim.scenarios.decode;

import dev.collsim.core.collective.CollectiveOp;
import dev.collsim.core.collective.Protocol;
import dev.collsim.core.collective.Schedule;
import dev.collsim.core.collective.TransferKind;
import dev.collsim.core.input.InputException;
import dev.collsim.core.nccl.AlgorithmId;
import dev.collsim.core.nccl.Communicator;
import dev.collsim.core.nccl.LinkType;
import dev.collsim.core.nccl.NcclPlanner;
import dev.collsim.core.nccl.Plan;
import dev.collsim.scenarios.stochastic.Variability;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The decode step's collectives, each simulated chunk by chunk on its group's GPUs of the system
 * (cached by group, operation and size, as every layer repeats them). A group of G GPUs sits inside
 * one node when G fits, else on G / (GPUs per node) whole nodes. Safe to share between threads and
 * between steps on the same machine ({@link Cache}), as a layout search does.
 */
public final class CommModel {
    /**
     * A collective's cost: its time, the part of it that does not shrink with size, the SMs its
     * kernel holds, and the data one GPU sends (over links, or up to the switch for in-switch reductions).
     */
    record Cost(double micros, double latencyMicros, int sms, long bytesSent, AlgorithmId algorithm) {}

    private final Machine machine;
    private final AllReduceKind allReduce;
    private final Variability noise;
    private final Map<Integer, Communicator> groups = new ConcurrentHashMap<>();
    private final Map<String, Cost> costs = new ConcurrentHashMap<>();

    /** Collective costs shared between decode steps on the same machine and all-reduce kind. */
    public static final class Cache {
        private final Map<Key, CommModel> models = new ConcurrentHashMap<>();

        /** What sets a step's machine and collectives; a topology file's system by the one loaded. */
        private record Key(DecodeSystem system, AllReduceKind kernel) {}

        CommModel forSpec(DecodeSpec spec, java.util.function.Supplier<Machine> machine) {
            Key key = new Key(spec.system(), spec.allReduceKernel());
            return models.computeIfAbsent(key, k -> new CommModel(machine.get(), spec.allReduceKernel()));
        }
    }

    CommModel(Machine machine, AllReduceKind allReduce) {
        this(machine, allReduce, null);
    }

    /** With {@code noise}, each distinct collective is simulated once with its draws (launch and step jitter). */
    CommModel(Machine machine, AllReduceKind allReduce, Variability noise) {
        this.machine = machine;
        this.allReduce = allReduce;
        this.noise = noise;
    }

    /** The communicator of a group of {@code size} GPUs placed as tightly as the system allows. */
    Communicator group(int size) {
        return groups.computeIfAbsent(size, machine::group);
    }

    /** A TP all-reduce of {@code bytes} with the kernel {@code --allreduce} asks for. */
    Cost allReduce(int tp, long bytes) {
        return cost(CollectiveOp.ALL_REDUCE, tp, bytes);
    }

    /** A slice of a fused all-reduce: the same kernel as the whole message's, on a smaller piece. */
    Cost allReduceSlice(int tp, long bytes, Cost whole) {
        String key = "slice/" + whole.algorithm() + "/" + tp + "/" + bytes;
        return costs.computeIfAbsent(key, k -> simulate(group(tp), CollectiveOp.ALL_REDUCE, Math.max(1, bytes),
                whole.algorithm().custom() ? EnumSet.of(whole.algorithm()) : ncclAlgos()));
    }

    /** An all-gather whose output is {@code bytes} on each of {@code n} GPUs. */
    Cost allGather(int n, long bytes) {
        return cost(CollectiveOp.ALL_GATHER, n, bytes);
    }

    /** An expert-parallel dispatch or combine: {@code bytes} leave each of {@code n} GPUs, spread over all of them. */
    Cost allToAll(int n, long bytes) {
        return cost(CollectiveOp.ALL_TO_ALL, n, bytes);
    }

    /**
     * A gather to the group's first GPU, as vLLM gathers the logits: the first GPU's inbound links
     * carry every other shard, so it costs a send of (n - 1) shards between two GPUs placed as the
     * group is; each GPU sends one shard.
     */
    Cost gatherToFirst(int n, long shardBytes) {
        Cost inbound = stageSend(n <= machine.gpusPerNode(), (n - 1) * shardBytes);
        return new Cost(inbound.micros(), inbound.latencyMicros(), inbound.sms(), shardBytes, inbound.algorithm());
    }

    /** Activations from one pipeline stage to the next: inside a node when both stages fit in one, else across two. */
    Cost stageSend(boolean sameNode, long bytes) {
        String key = "p2p/" + sameNode + "/" + bytes;
        return costs.computeIfAbsent(key, k -> {
            return simulate(machine.pair(sameNode), CollectiveOp.SEND_RECV, bytes, EnumSet.allOf(AlgorithmId.class));
        });
    }

    private Cost cost(CollectiveOp op, int n, long bytes) {
        long rounded = op.sizeIsTotal() ? Math.max(n, bytes / n * n) : Math.max(1, bytes);
        String key = op + "/" + n + "/" + rounded;
        return costs.computeIfAbsent(key, k -> {
            Communicator c = group(n);
            return simulate(c, op, rounded, op == CollectiveOp.ALL_REDUCE ? allReduceAlgos(c, rounded) : EnumSet.allOf(AlgorithmId.class));
        });
    }

    /** vLLM's custom all-reduce rule (one-shot at 2 GPUs and for small messages, two-shot up to 8 MiB), else NCCL. */
    private EnumSet<AlgorithmId> allReduceAlgos(Communicator c, long bytes) {
        boolean nvlinkDomain = c.oneNvlinkDomain();
        return switch (allReduce) {
            case NCCL -> ncclAlgos();
            case ONESHOT, TWOSHOT -> {
                if (!nvlinkDomain) {
                    throw new InputException("--allreduce " + allReduce.label() + ": the inference engines' kernels need the group of "
                            + c.nRanks() + " GPUs inside one NVLink domain; use --allreduce nccl or auto");
                }
                yield EnumSet.of(allReduce == AllReduceKind.ONESHOT ? AlgorithmId.ONESHOT : AlgorithmId.TWOSHOT);
            }
            case NVLS -> {
                if (c.nccl().nvlsGraph() == null || !nvlinkDomain) {
                    throw new InputException("--allreduce nvls: " + machine.name() + " has no NVLink SHARP for a group of " + c.nRanks()
                            + (nvlinkDomain ? "" : " that leaves its NVLink domain") + "; use --allreduce nccl or auto");
                }
                yield EnumSet.of(AlgorithmId.NVLS);
            }
            case AUTO -> {
                int n = c.nRanks();
                boolean vllmSizes = n == 2 || n == 4 || n == 6 || n == 8;
                if (!nvlinkDomain || !vllmSizes || bytes > 8L << 20) {
                    yield ncclAlgos();
                }
                boolean oneShot = n == 2 || (n <= 4 && bytes < 512 * 1024) || bytes < 256 * 1024;
                yield EnumSet.of(oneShot ? AlgorithmId.ONESHOT : AlgorithmId.TWOSHOT);
            }
        };
    }

    private static EnumSet<AlgorithmId> ncclAlgos() {
        EnumSet<AlgorithmId> all = EnumSet.allOf(AlgorithmId.class);
        all.removeIf(AlgorithmId::custom);
        return all;
    }

    /** Simulates the collective, and again at its smallest size for the part of its time that is latency. */
    private Cost simulate(Communicator c, CollectiveOp op, long bytes, EnumSet<AlgorithmId> algos) {
        EnumSet<Protocol> protos = EnumSet.allOf(Protocol.class);
        Plan plan = NcclPlanner.plan(c, op, bytes, 0, algos, protos, 0);
        double micros = (noise == null ? c.simulate(plan, null, false)
                : c.simulate(plan, null, false, noise.launchFactor(), noise.stepJitter(), null)).durationPicos() / 1e6;
        long smallest = op.sizeIsTotal() ? c.nRanks() * 2L : 2;
        Plan tiny = NcclPlanner.plan(c, op, smallest, 0, EnumSet.of(plan.algo()), protos, 0);
        double latency = Math.min(micros, c.simulate(tiny, null, false).durationPicos() / 1e6);
        return new Cost(micros, latency, plan.request().channels(), bytesSent(c.schedule(plan), c.nNodes()), plan.algo());
    }

    private static long bytesSent(Schedule s, int nodes) {
        long sum = s.bytesSentBy(0);
        for (int t = 0; t < s.transferCount() && nodes == 1; t++) {
            TransferKind kind = s.kind(t);
            if (kind == TransferKind.SWITCH_ALLREDUCE || kind == TransferKind.SWITCH_REDUCE
                    || (kind == TransferKind.SWITCH_MULTICAST && s.src(t) == 0)) {
                sum += s.bytes(t);
            }
        }
        return sum;
    }

    /** Where a group of GPUs crosses something slower than NVLink, for the layout warnings; empty if nowhere. */
    List<String> crossings(int size) {
        Communicator c = group(size);
        if (c.nNodes() > 1) {
            return List.of("the network (" + c.nNodes() + " nodes)");
        }
        if (c.nccl().intraLink() == LinkType.NVLINK) {
            return List.of();
        }
        boolean sockets = false;
        for (int a = 0; a < c.nRanks(); a++) {
            for (int b = 0; b < c.nRanks(); b++) {
                sockets |= a != b && dev.collsim.topologies.view.TopoMatrix.label(c.fabric(), c.placement().devices()[a],
                        c.placement().devices()[b]).equals("SYS");
            }
        }
        return sockets ? List.of("PCIe", "a CPU socket link") : List.of("PCIe");
    }
}
