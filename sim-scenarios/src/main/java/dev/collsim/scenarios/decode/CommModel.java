package dev.collsim.scenarios.decode;

import dev.collsim.core.collective.CollectiveOp;
import dev.collsim.core.collective.Protocol;
import dev.collsim.core.collective.Schedule;
import dev.collsim.core.collective.TransferKind;
import dev.collsim.core.input.InputException;
import dev.collsim.core.nccl.AlgorithmId;
import dev.collsim.core.nccl.Communicator;
import dev.collsim.core.nccl.LinkType;
import dev.collsim.core.nccl.MscclAllPairs;
import dev.collsim.core.nccl.NcclPlanner;
import dev.collsim.core.nccl.Payload;
import dev.collsim.core.nccl.Plan;
import dev.collsim.scenarios.stochastic.Variability;
import dev.collsim.topologies.view.TopoMatrix;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The decode step's collectives, each simulated chunk by chunk on its group's GPUs of the system
 * (cached by group, operation and size, as every layer repeats them). A group of G GPUs sits inside
 * one node when G fits, else on G / (GPUs per node) whole nodes. Safe to share between threads and
 * between steps on the same machine ({@link Cache}), as a layout search does.
 */
public final class CommModel {
    /**
     * A collective's cost alone on its group: its time (in picoseconds as simulated, and in us), the
     * part of it that does not shrink with size, the SMs its kernel holds, the data one GPU sends
     * (over links, or up to the switch for in-switch reductions), and what was simulated.
     */
    record Cost(long picos, double latencyMicros, int sms, long bytesSent, Collective what) {
        double micros() {
            return picos / 1e6;
        }

        AlgorithmId algorithm() {
            return what.algorithm();
        }
    }

    /** Which GPUs of a layout run a collective at the same time, every group of them at once ({@link LayoutGroups}). */
    enum Shape {
        /** Every block of {@code n} consecutive GPUs: the TP groups of every replica and stage, or the EP groups. */
        BLOCKS,
        /** Every GPU of a pipeline stage to the same GPU of the next stage ({@code n} the TP size). */
        STAGE_SEND,
        /** In each replica's last stage, the TP group's shards to its first GPU ({@code n} the TP size). */
        GATHER
    }

    /**
     * A collective as the step runs it: its shape, operation, group size and message (per GPU, or
     * the total for all-to-alls and all-gathers), the algorithm its plan chose, for a pair whether it
     * stays in one node, and for a pipeline send the stage that sends (else 0).
     */
    record Collective(Shape shape, CollectiveOp op, int n, long bytes, AlgorithmId algorithm, boolean sameNode, int stage) {}

    private final Machine machine;
    private final AllReduceKind allReduce;
    private final CustomAllReduceRule rule;
    private final Variability noise;
    private final Map<Integer, Communicator> groups = new ConcurrentHashMap<>();
    private final Map<String, Cost> costs = new ConcurrentHashMap<>();
    private final Map<String, Communicator> layouts = new ConcurrentHashMap<>();

    /** Collective costs shared between decode steps on the same machine and all-reduce kind. */
    public static final class Cache {
        private final Map<Key, CommModel> models = new ConcurrentHashMap<>();

        /** What sets a step's machine and collectives; a topology file's system by the one loaded. */
        private record Key(DecodeSystem system, AllReduceKind kernel, CustomAllReduceRule rule) {}

        CommModel forSpec(DecodeSpec spec, Supplier<Machine> machine) {
            Key key = new Key(spec.system(), spec.allReduceKernel(), spec.customAllReduceRule());
            return models.computeIfAbsent(key, k -> new CommModel(machine.get(), k.kernel(), k.rule(), null));
        }
    }

    /** With {@code noise}, each distinct collective is simulated once with its draws (launch and step jitter). */
    CommModel(Machine machine, AllReduceKind allReduce, CustomAllReduceRule rule, Variability noise) {
        this.machine = machine;
        this.allReduce = allReduce;
        this.rule = rule;
        this.noise = noise;
    }

    /** The communicator of a group of {@code size} GPUs placed as tightly as the system allows. */
    Communicator group(int size) {
        return groups.computeIfAbsent(size, machine::group);
    }

    /** All the GPUs of a layout of {@code gpus} ({@link Machine#layout}), built once per size. */
    Communicator layout(int gpus) {
        int perNode = Math.min(gpus, machine.gpusPerNode());
        return layouts.computeIfAbsent(machine.nodesFor(gpus) + "x" + perNode, k -> machine.layout(gpus));
    }

    /** A TP all-reduce of {@code bytes} with the kernel {@code --allreduce} asks for. */
    Cost allReduce(LayoutGroups layout, int tp, long bytes) {
        return cost(layout, CollectiveOp.ALL_REDUCE, tp, bytes);
    }

    /** A slice of a fused all-reduce: the same kernel as the whole message's, on a smaller piece. */
    Cost allReduceSlice(LayoutGroups layout, int tp, long bytes, Cost whole) {
        LayoutGroups.Placed g = layout.first(Shape.BLOCKS, tp, 0, true);
        String key = "slice/" + whole.algorithm() + "/" + tp + "/" + bytes + g.where();
        return costs.computeIfAbsent(key, k -> simulate(g.communicator(), Shape.BLOCKS, CollectiveOp.ALL_REDUCE, Math.max(1, bytes),
                whole.algorithm().custom() ? EnumSet.of(whole.algorithm()) : ncclAlgos(), true, 0));
    }

    /** An all-gather whose output is {@code bytes} on each of {@code n} GPUs. */
    Cost allGather(LayoutGroups layout, int n, long bytes) {
        return cost(layout, CollectiveOp.ALL_GATHER, n, bytes);
    }

    /** A reduce-scatter of {@code bytes} on each of {@code n} GPUs, each left with its 1/n of the sums. */
    Cost reduceScatter(LayoutGroups layout, int n, long bytes) {
        return cost(layout, CollectiveOp.REDUCE_SCATTER, n, bytes);
    }

    /**
     * A dispatch or combine by DeepEP's kernels ({@link DeepEp}): {@code bytes} of top-k copies leave each of {@code n}
     * GPUs. Timed by DeepEP's rates, not simulated on the fabric: its cost names no collective to run on one clock.
     */
    double deepEpMicros(int n, long bytes, int topK, boolean lowLatency) {
        return DeepEp.micros(bytes, n, Math.min(n, machine.gpusPerNode()), topK, lowLatency, machine.deepEpRates());
    }

    /** An expert-parallel dispatch or combine: {@code bytes} leave each of {@code n} GPUs, spread over all of them. */
    Cost allToAll(LayoutGroups layout, int n, long bytes) {
        return cost(layout, CollectiveOp.ALL_TO_ALL, n, bytes);
    }

    /**
     * A gather to the group's first GPU, as vLLM gathers the logits: the first GPU's inbound links
     * carry every other shard, so it costs a send of (n - 1) shards between two GPUs placed as the
     * group is; each GPU sends one shard.
     */
    Cost gatherToFirst(LayoutGroups layout, int n, long shardBytes) {
        boolean sameNode = n <= machine.gpusPerNode();
        Cost inbound = pairSend(layout.first(Shape.GATHER, n, 0, sameNode), Shape.GATHER, n, 0, sameNode, (n - 1) * shardBytes);
        return new Cost(inbound.picos(), inbound.latencyMicros(), inbound.sms(), shardBytes, inbound.what());
    }

    /** Activations from pipeline stage {@code from} to the next: inside a node when both stages sit in one, else across two. */
    Cost stageSend(LayoutGroups layout, int tp, int from, boolean sameNode, long bytes) {
        return pairSend(layout.first(Shape.STAGE_SEND, tp, from, sameNode), Shape.STAGE_SEND, tp, from, sameNode, bytes);
    }

    private Cost pairSend(LayoutGroups.Placed pair, Shape shape, int n, int stage, boolean sameNode, long bytes) {
        String key = "p2p/" + sameNode + "/" + bytes + pair.where();
        Cost send = costs.computeIfAbsent(key, k -> simulate(pair.communicator(), Shape.STAGE_SEND, CollectiveOp.SEND_RECV, bytes,
                EnumSet.allOf(AlgorithmId.class), sameNode, 0));
        Collective w = send.what();
        return new Cost(send.picos(), send.latencyMicros(), send.sms(), send.bytesSent(),
                new Collective(shape, w.op(), n, w.bytes(), w.algorithm(), sameNode, stage));
    }

    /**
     * A collective on the first group of {@code n} GPUs of the layout: timed alone where the layout
     * puts it, on its fabric when it leaves a node (another group's network, a bigger spine), so
     * that the step on one clock meets the time where nothing contends ({@link OneClock}).
     */
    private Cost cost(LayoutGroups layout, CollectiveOp op, int n, long bytes) {
        long rounded = op.sizeIsTotal() ? Math.max(n, bytes / n * n) : Math.max(1, bytes);
        LayoutGroups.Placed g = layout.first(Shape.BLOCKS, n, 0, true);
        String key = op + "/" + n + "/" + rounded + g.where();
        return costs.computeIfAbsent(key, k -> {
            Communicator c = g.communicator();
            return simulate(c, Shape.BLOCKS, op, rounded, op == CollectiveOp.ALL_REDUCE ? allReduceAlgos(c, rounded)
                    : EnumSet.allOf(AlgorithmId.class), n <= machine.gpusPerNode(), 0);
        });
    }

    /** The engine's custom all-reduce rule ({@link CustomAllReduceRule}: one-shot for small messages, two-shot up to its limit), else NCCL. */
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
                boolean kernelSizes = n == 2 || n == 4 || n == 6 || n == 8;
                if (!nvlinkDomain || !kernelSizes || rule.tooLarge(bytes)) {
                    yield ncclAlgos();
                }
                yield EnumSet.of(rule.oneShot(n, bytes) ? AlgorithmId.ONESHOT : AlgorithmId.TWOSHOT);
            }
        };
    }

    private static EnumSet<AlgorithmId> ncclAlgos() {
        EnumSet<AlgorithmId> all = EnumSet.allOf(AlgorithmId.class);
        all.removeIf(AlgorithmId::custom);
        return all;
    }

    /** Simulates the collective, and again at its smallest size for the part of its time that is latency. */
    private Cost simulate(Communicator c, Shape shape, CollectiveOp op, long bytes, EnumSet<AlgorithmId> algos, boolean sameNode, int stage) {
        Plan plan = plan(c, op, bytes, algos);
        long picos = (noise == null ? c.simulate(plan, null, false)
                : c.simulate(plan, null, false, noise.launchFactor(), noise.stepJitter(), null)).durationPicos();
        long smallest = plan.algo() == AlgorithmId.ALL_PAIRS ? MscclAllPairs.smallestBytes(ACTIVATIONS)
                : op.sizeIsTotal() ? c.nRanks() * 2L : 2;
        Plan tiny = plan(c, op, smallest, EnumSet.of(plan.algo()));
        double latency = Math.min(picos, c.simulate(tiny, null, false).durationPicos()) / 1e6;
        return new Cost(picos, latency, plan.request().channels(), bytesSent(c.schedule(plan), c.nNodes()),
                new Collective(shape, op, c.nRanks(), bytes, plan.algo(), sameNode, stage));
    }

    /** What the collectives of a decode step carry: bfloat16 activations, summed. */
    private static final Payload ACTIVATIONS = Payload.BF16_SUM;

    /** NCCL's plan (or the custom kernel's) of {@code op} on {@code c} among {@code algos}, every protocol allowed. */
    static Plan plan(Communicator c, CollectiveOp op, long bytes, EnumSet<AlgorithmId> algos) {
        return NcclPlanner.plan(c, op, bytes, 0, algos, EnumSet.allOf(Protocol.class), 0, ACTIVATIONS);
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
                sockets |= a != b && TopoMatrix.label(c.fabric(), c.placement().devices()[a],
                        c.placement().devices()[b]).equals("SYS");
            }
        }
        return sockets ? List.of("PCIe", "a CPU socket link") : List.of("PCIe");
    }
}
