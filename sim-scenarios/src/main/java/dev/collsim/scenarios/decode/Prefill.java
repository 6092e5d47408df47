package dev.collsim.scenarios.decode;

import dev.collsim.core.collective.CollectiveOp;
import dev.collsim.core.collective.CollectiveRun;
import dev.collsim.core.collective.CollectiveSimulator;
import dev.collsim.core.collective.RunResult;
import dev.collsim.core.input.InputException;
import dev.collsim.core.input.Require;
import dev.collsim.core.nccl.AlgorithmId;
import dev.collsim.core.nccl.Communicator;
import dev.collsim.core.units.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * The prefill of {@code requests} prompts of {@code isl} tokens on a layout: every prompt token a row
 * of the GEMMs, attention causal over the prompt, the layout's collectives at prefill sizes, layer by
 * layer on the decode step's machinery ({@link DecodeStep#prefillForward}); whole, or in chunks of
 * {@code chunk} tokens, each a forward that attends to the chunks before it (chunked prefill). The
 * time to first token is every forward plus the engine's host step before each. An engine that leaves
 * a prompt's last token to its decoder (TurboMind) prefills the rest and runs that token as a forward of
 * its own in the same iteration, with no host step between them.
 *
 * <p>Its KV cache then goes to a decode instance of the same layout (disaggregated serving), each GPU
 * its shard to its peer, all at once: over the network between two nodes, and over NVLink where the
 * NVLink domain holds both instances. Sent after the last layer, all of it waits; sent layer by layer
 * as the layers end (NIXL, Mooncake), each layer's share starts once its layer has ended and the link
 * has sent the layer before (in chunks, each forward's share once the layer ends in that forward), and
 * only what the last send adds after the prefill is exposed.
 */
public final class Prefill {
    private Prefill() {}

    /**
     * @param layout   the layout (its batch and context are ignored)
     * @param isl      prompt tokens per request
     * @param requests prompts prefilled together
     * @param chunk    tokens per forward, or 0 for the whole prompt at once
     */
    public static PrefillResult run(DecodeSpec layout, int isl, int requests, int chunk) {
        return run(layout, isl, requests, chunk, new CommModel.Cache(), false);
    }

    /**
     * As above, its collectives' costs shared through {@code cache}; {@code alone}: each collective as
     * long as it takes alone, contended or not (quicker, as a search's estimate: {@link DecodeStep#estimate}).
     */
    public static PrefillResult run(DecodeSpec layout, int isl, int requests, int chunk, CommModel.Cache cache, boolean alone) {
        Forwards f = forwards(layout, isl, requests, chunk, cache, alone);
        List<PrefillResult.LayerTime> layers = new ArrayList<>();
        for (int l = 0; l < f.layerMs.length; l++) {
            layers.add(new PrefillResult.LayerTime(l, layout.model().isMoe(l), Duration.ofMillis(f.layerMs[l])));
        }
        ModelConfig m = layout.model();
        // A sparse attention's index cache is every layer's too; a hybrid model's prompt leaves its linear layers' states.
        double kvPerToken = (double) m.cachedLayers() * m.kvElementsPerToken() * layout.kvBytes() + m.cachedLayers() * m.indexCacheBytesPerToken();
        long perGpu = Math.round((double) isl * requests * m.cachedLayers() * m.kvElementsPerTokenPerRank(layout.tp()) * layout.kvBytes()
                + requests * m.linearStateBytesPerRank(layout.tp()) + (double) isl * requests * m.cachedLayers() * m.indexCacheBytesPerToken());
        Machine machine = Machine.of(layout);
        List<PrefillResult.KvTransfer> transfers = new ArrayList<>();
        transfers.add(transfer(PrefillResult.KvTransfer.NETWORK, machine, layout, perGpu, f.layerEnds, f.forwards, isl, f.ttft, false));
        boolean hasNvlink = machine.gpu().nvlink() != null;
        String inside = hasNvlink ? PrefillResult.KvTransfer.NVLINK : PrefillResult.KvTransfer.PCIE;
        transfers.add(2 * layout.gpus() <= machine.gpusPerNode() ? transfer(inside, machine, layout, perGpu, f.layerEnds, f.forwards, isl, f.ttft, true)
                : PrefillResult.KvTransfer.notSimulated(inside, (hasNvlink ? "an NVLink domain of " : "a PCIe server of ") + machine.gpusPerNode()
                        + " GPUs holds one instance of " + (layout.gpus() == layout.tp() ? "TP " + layout.tp() : layout.gpus() + " GPUs")
                        + ", not two"));
        DecodeResult first = f.first;
        PrefillResult.Time time = new PrefillResult.Time(Duration.ofMillis(f.ttft), Duration.ofMillis(f.compute), Duration.ofMillis(f.comm),
                Duration.ofMillis(f.exposed), Duration.ofMillis(f.hostMs));
        return new PrefillResult(first.setup(), first.layout(), new PrefillResult.Prompts(isl, requests, chunk), time,
                new PrefillResult.KvCache(kvPerToken, kvPerToken * isl, perGpu, transfers), f.forwards, layers, first.warnings(), f.last);
    }

    /**
     * The GPU time of each forward of one prompt of {@code isl} tokens in chunks of {@code chunk}
     * (0: whole), the host's time left out: what a chunk adds to the decode step it rides in.
     */
    public static double[] chunkGpuMs(DecodeSpec layout, int isl, int chunk, CommModel.Cache cache) {
        return forwards(layout, isl, 1, chunk, cache, true).forwards.stream().mapToDouble(fw -> fw.gpu().ms()).toArray();
    }

    /** One forward's GPU time and the part of it its attention kernels take, ms. */
    public record ForwardCost(double gpuMs, double attentionMs) {}

    /**
     * One forward of {@code tokens} new prompt tokens of one sequence, {@code cachedBefore} of its tokens already in
     * the cache (an earlier chunk's, or a prefix cache's), its collectives as long as they take alone: the GPU time,
     * host left out, and its attention's share (what depends on the context; the rest depends on the tokens alone).
     */
    public static ForwardCost forwardCost(DecodeSpec layout, int tokens, int cachedBefore, CommModel.Cache cache) {
        DecodeResult r = DecodeStep.prefillForward(layout.withTokens(tokens, cachedBefore + tokens), cachedBefore, cache, true);
        double attention = r.layers().stream().flatMap(l -> l.spans().stream()).filter(s -> s.name().equals("attention"))
                .mapToDouble(s -> s.length().ms()).sum();
        return new ForwardCost(r.timing().gpu().ms(), attention);
    }

    /** The forwards of a prefill, each layer's time summed over them, each forward's layer ends on the prefill's clock, and the host's time in all. */
    private record Forwards(DecodeResult first, DecodeResult last, List<PrefillResult.Forward> forwards, double[] layerMs, List<double[]> layerEnds, double hostMs,
                            double ttft, double compute, double comm, double exposed) {}

    private static Forwards forwards(DecodeSpec layout, int isl, int requests, int chunk, CommModel.Cache cache, boolean alone) {
        Require.atLeastOne("--isl", isl);
        Require.atLeastOne("--batch", requests);
        if (chunk < 0) {
            throw new InputException("--chunk " + chunk + ": expected a positive number of tokens, or leave it out");
        }
        DecodeStep.requireFits(layout.withTokens(requests, isl));
        // An engine that leaves the last token to the decoder prefills the rest, then runs that token in the same iteration.
        int prompt = layout.engine().firstTokenFromDecodeStep() ? isl - 1 : isl;
        int step = chunk == 0 ? prompt : Math.min(chunk, prompt);
        List<PrefillResult.Forward> forwards = new ArrayList<>();
        DecodeResult first = null;
        DecodeResult last = null;
        double[] layerMs = null;
        List<double[]> layerEnds = new ArrayList<>();
        double hostStepMs = layout.engine().hostMicros(requests) / 1000;
        double hostMs = 0;
        double ttft = 0;
        double compute = 0;
        double comm = 0;
        double exposed = 0;
        for (int cached = 0; cached < isl; ) {
            int tokens = cached < prompt ? Math.min(step, prompt - cached) : 1;
            double host = cached >= prompt && !forwards.isEmpty() ? 0 : hostStepMs;
            DecodeResult r = DecodeStep.prefillForward(layout.withTokens(requests * tokens, cached + tokens), cached, cache, alone);
            double gpuMs = r.timing().gpu().ms();
            forwards.add(new PrefillResult.Forward(cached, tokens, Duration.ofMillis(gpuMs), r.timing().compute(), r.comm().busy(), r.comm().exposed()));
            last = r;
            if (first == null) {
                first = r;
                layerMs = new double[r.layers().size()];
            }
            double[] ends = new double[r.layers().size()];
            for (int l = 0; l < layerMs.length; l++) {
                DecodeResult.Layer layer = r.layers().get(l);
                layerMs[l] += layer.end().ms() - layer.start().ms();
                ends[l] = ttft + host + layer.end().ms();
            }
            layerEnds.add(ends);
            ttft += host + gpuMs;
            hostMs += host;
            cached += tokens;
            compute += r.timing().compute().ms();
            comm += r.comm().busy().ms();
            exposed += r.comm().exposed().ms();
        }
        return new Forwards(first, last, forwards, layerMs, layerEnds, hostMs, ttft, compute, comm, exposed);
    }

    /**
     * Every GPU's KV shard of {@code perGpu} bytes to its peer in a decode instance of the same TP
     * size, all at once: on another node ({@code insideNode} false) or in the same node (its NVLink domain, or its PCIe tree). Once
     * after the prefill, and layer by layer: each forward's share of a layer after that layer's end
     * in that forward ({@code layerEnds}, ms, forward by forward; {@code tokens} each forward's).
     */
    private static PrefillResult.KvTransfer transfer(String over, Machine machine, DecodeSpec layout, long perGpu, List<double[]> layerEnds,
                                                     List<PrefillResult.Forward> forwards, int isl, double ttft, boolean insideNode) {
        int tp = layout.tp();
        int perNode = machine.gpusPerNode();
        if (!insideNode && machine.maxNodes() < 2) {
            return PrefillResult.KvTransfer.notSimulated(over, "one node: no network between instances");
        }
        if (!insideNode && 2 * nodesOf(tp, perNode) > machine.maxNodes()) {
            return PrefillResult.KvTransfer.notSimulated(over, "the two instances need " + 2 * nodesOf(tp, perNode) + " nodes; the system has "
                    + machine.maxNodes());
        }
        double whole = sendMs(machine, tp, perGpu, insideNode);
        double linkFree = 0;
        Map<Long, Double> sendOf = new HashMap<>();
        for (int k = 0; k < layerEnds.size(); k++) {
            double[] ends = layerEnds.get(k);
            long share = Math.max(1, Math.round((double) perGpu * forwards.get(k).tokens() / isl / ends.length));
            double send = sendOf.computeIfAbsent(share, b -> sendMs(machine, tp, b, insideNode));
            for (double end : ends) {
                linkFree = Math.max(linkFree, end) + send;
            }
        }
        return new PrefillResult.KvTransfer(over, Duration.ofMillis(whole), Duration.ofMillis(Math.max(0, linkFree - ttft)), "");
    }

    /**
     * How a prefill instance's KV sends and its own collectives slow each other where they cross the same links (the
     * GPUs' NVLink ports inside an NVLink domain; the NICs where the instance spans nodes), for the prefill {@code
     * prefill} of one prompt in one forward. Both are run together on one fabric, chunk by chunk: the forward's
     * collective of its prompt tokens on the instance's first group (its
     * TP all-reduce, or its EP dispatch where attention runs without TP: an all-gather or an all-to-all), and the KV sends to the decode peers placed as
     * {@link #sendMs} places them, sized to last as long as the collective alone, so that each one's time together over
     * its time alone is its rate while the other runs. Where no link is shared both slowdowns are 1.
     *
     * @param insideNode whether the KV cache stays inside the node (true: NVLink, or PCIe on a PCIe server) or crosses the network
     */
    public static KvContention kvContention(DecodeSpec layout, PrefillResult prefill, boolean insideNode) {
        ModelConfig m = layout.model();
        int tokens = prefill.prompts().isl();
        int tp = layout.tp();
        int group = tp > 1 ? tp : layout.ep();
        if (group == 1) {
            return KvContention.NONE;
        }
        Machine machine = Machine.of(layout);
        int perNode = machine.gpusPerNode();
        int offset = insideNode ? group : nodesOf(group, perNode) * perNode;
        Communicator whole = machine.layout(2 * offset);
        Communicator own = machine.group(group).placedAt(whole.placement().subset(IntStream.range(0, group).toArray()));
        CollectiveOp op = tp > 1 ? CollectiveOp.ALL_REDUCE : layout.expertsAllToAll() ? CollectiveOp.ALL_TO_ALL : CollectiveOp.ALL_GATHER;
        long bytes = switch (op) {
            case ALL_TO_ALL -> (long) tokens * m.expertsPerToken() * m.hidden() * layout.precision().dispatchBytes();
            case ALL_GATHER -> (long) tokens * group * m.hidden() * Precision.ACTIVATION_BYTES;
            default -> (long) tokens * m.hidden() * Precision.ACTIVATION_BYTES;
        };
        CollectiveRun collective = own.collectiveRun(CommModel.plan(own, op, bytes, EnumSet.allOf(AlgorithmId.class)));
        double collectiveAlone = CollectiveSimulator.runTogether(List.of(collective)).get(0).durationPicos();
        long probe = Math.max(1, Math.round(tokens * m.kvElementsPerTokenPerRank(tp) * layout.kvBytes()));
        long share = Math.max(1, Math.round(probe * collectiveAlone / slowest(kvSends(machine, whole, tp, offset, probe, insideNode), tp)));
        List<CollectiveRun> runs = kvSends(machine, whole, tp, offset, share, insideNode);
        double kvAlone = slowest(runs, tp);
        runs.add(collective);
        List<RunResult> together = CollectiveSimulator.runTogether(runs);
        double kvTogether = together.subList(0, tp).stream().mapToLong(RunResult::durationPicos).max().orElse(0);
        PrefillResult.Forward forward = prefill.forwards().get(0);
        double commShare = Math.min(1, forward.comm().ms() / forward.gpu().ms());
        return new KvContention(kvTogether / kvAlone, together.get(tp).durationPicos() / collectiveAlone, commShare);
    }

    /**
     * What {@link #kvContention} finds.
     *
     * @param kvSlowdown         a KV send's time while the instance's collective runs, over its time alone
     * @param collectiveSlowdown the collective's time while KV sends run, over its time alone
     * @param commShare          the part of a forward's GPU time its collectives hold the links
     */
    public record KvContention(double kvSlowdown, double collectiveSlowdown, double commShare) {
        public static final KvContention NONE = new KvContention(1, 1, 0);

        /** A KV move's time while the instance runs forwards, over its time alone. */
        public double kvFactor() {
            return 1 + (kvSlowdown - 1) * commShare;
        }

        /** A forward's time when a KV move is in flight for {@code overlap} (0 to 1) of it, over its time alone. */
        public double forwardFactor(double overlap) {
            return 1 + (collectiveSlowdown - 1) * commShare * overlap;
        }
    }

    private static List<CollectiveRun> kvSends(Machine machine, Communicator whole, int tp, int offset, long bytes, boolean insideNode) {
        Communicator pairOf = machine.pair(insideNode);
        List<CollectiveRun> runs = new ArrayList<>();
        for (int t = 0; t < tp; t++) {
            Communicator pair = pairOf.placedAt(whole.placement().subset(t, offset + t));
            runs.add(pair.collectiveRun(CommModel.plan(pair, CollectiveOp.SEND_RECV, bytes, EnumSet.allOf(AlgorithmId.class))));
        }
        return runs;
    }

    /** The longest of the first {@code n} runs, run together, picoseconds. */
    private static double slowest(List<CollectiveRun> runs, int n) {
        return CollectiveSimulator.runTogether(runs).subList(0, n).stream().mapToLong(RunResult::durationPicos).max().orElse(0);
    }

    /** Whole nodes a TP group of {@code tp} takes. */
    private static int nodesOf(int tp, int perNode) {
        return (tp + perNode - 1) / perNode;
    }

    /**
     * The time of {@code tp} sends of {@code bytes} each, GPU t to its peer, run together. Over the
     * network the decode instance is on the nodes after the prefill's (a TP group of 16 on 8-GPU nodes:
     * nodes 0-1 send to nodes 2-3, GPU t to GPU t of the same rail), so each node's NICs carry its own
     * GPUs' shards and a group across nodes sends on all of its nodes' NICs at once.
     */
    private static double sendMs(Machine machine, int tp, long bytes, boolean insideNode) {
        int offset = insideNode ? tp : nodesOf(tp, machine.gpusPerNode()) * machine.gpusPerNode();
        List<CollectiveRun> runs = kvSends(machine, machine.layout(2 * offset), tp, offset, bytes, insideNode);
        return slowest(runs, tp) / 1e9;
    }
}
