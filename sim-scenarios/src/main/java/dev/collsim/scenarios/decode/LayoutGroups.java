package dev.collsim.scenarios.decode;

import dev.collsim.core.collective.CollectiveRun;
import dev.collsim.core.collective.CollectiveSimulator;
import dev.collsim.core.collective.RankPlacement;
import dev.collsim.core.fabric.Fabric;
import dev.collsim.core.nccl.Communicator;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * Every GPU of a layout on one fabric, and the groups of them that run each of the step's
 * collectives at the same time. GPU {@code (d x pp + s) x tp + t} is TP rank {@code t} of stage
 * {@code s} of replica {@code d}, so a replica's stages sit side by side, as the pipeline sends
 * assume. The pipeline keeps every stage busy and the replicas decode in lockstep, so when the GPU
 * the step follows runs a collective, every group of its shape runs it too: every block of {@code n}
 * consecutive GPUs (the TP groups of every replica and stage, or the EP groups, placed as tightly
 * as {@link CommModel} times them), every GPU of a stage in every replica sending to the next
 * stage, every replica's logits gathered. Each group runs with its own communicator's NCCL view and
 * costs, placed on the layout's fabric.
 */
final class LayoutGroups {
    private final DecodeSpec spec;
    private final Machine machine;
    private final CommModel comm;
    /** The layout's GPUs, built when first needed. */
    private Communicator whole;
    private final Map<CommModel.Collective, List<CollectiveRun>> runs = new HashMap<>();
    /** Per collective, the links each group's flows can cross, in the order of {@link #runs}. */
    private final Map<CommModel.Collective, List<BitSet>> groupLinks = new HashMap<>();

    LayoutGroups(DecodeSpec spec, Machine machine, CommModel comm) {
        this.spec = spec;
        this.machine = machine;
        this.comm = comm;
    }

    Fabric fabric() {
        return whole().fabric();
    }

    private Communicator whole() {
        if (whole == null) {
            whole = comm.layout(spec.gpus());
        }
        return whole;
    }

    /**
     * The first group of a shape (replica 0's; for a pipeline send, stage {@code stage}'s first GPU
     * and its peer) with its own communicator's NCCL view: on its own small system where it stays in
     * one node, which is the same there; else placed on the layout's fabric, {@code where} naming the
     * place for a cache of costs.
     */
    record Placed(Communicator communicator, String where) {}

    Placed first(CommModel.Shape shape, int n, int stage, boolean sameNode) {
        int[] m = members(shape, n, stage, sameNode).get(0);
        Communicator own = own(shape, n, sameNode);
        int perNode = machine.gpusPerNode();
        if (Arrays.stream(m).allMatch(g -> g / perNode == m[0] / perNode)) {
            return new Placed(own, "");
        }
        return new Placed(own.placedAt(whole().placement().subset(m)), "@" + whole().nRanks() + "/" + Arrays.toString(m));
    }

    private Communicator own(CommModel.Shape shape, int n, boolean sameNode) {
        return switch (shape) {
            case BLOCKS -> comm.group(n);
            case STAGE_SEND, GATHER -> machine.pair(sameNode);
        };
    }

    /** The fabric device of GPU 0, the one the step follows. */
    int followedDevice() {
        return whole().placement().devices()[0];
    }

    /** The pipeline stage of an op's layer (the embedding's is the first, the head's the last). */
    int stageOf(int layer) {
        return layer < 0 ? 0 : LayerKernels.stageOf(spec, Math.min(layer, spec.model().layers() - 1));
    }

    /** How many groups run the collective at once. */
    int groupCount(CommModel.Collective c) {
        return members(c.shape(), c.n(), c.stage(), c.sameNode()).size();
    }

    /** The collective's runs, one per group that runs it, every one planned as the step's was. */
    List<CollectiveRun> runs(CommModel.Collective c) {
        return runs.computeIfAbsent(c, k -> {
            Communicator own = own(k.shape(), k.n(), k.sameNode());
            RankPlacement all = whole().placement();
            List<CollectiveRun> out = new ArrayList<>();
            for (int[] m : members(k.shape(), k.n(), k.stage(), k.sameNode())) {
                Communicator g = own.placedAt(all.subset(m));
                out.add(g.collectiveRun(CommModel.plan(g, k.op(), k.bytes(), EnumSet.of(k.algorithm()))));
            }
            return out;
        });
    }

    /** Which of {@link #runs} the GPU the step follows takes part in, at {@code stage}. */
    int followed(CommModel.Collective c, int stage) {
        return switch (c.shape()) {
            case BLOCKS -> stage * spec.tp() / c.n();
            case STAGE_SEND -> 0;
            case GATHER -> 0;
        };
    }

    /** Every link any group of the collective's flows can cross. */
    BitSet links(CommModel.Collective c) {
        BitSet all = new BitSet();
        groupLinks(c).forEach(all::or);
        return all;
    }

    /** Whether two groups of the collective can cross one link: they contend whenever it runs. */
    boolean groupsShareALink(CommModel.Collective c) {
        BitSet seen = new BitSet();
        for (BitSet mine : groupLinks(c)) {
            if (mine.intersects(seen)) {
                return true;
            }
            seen.or(mine);
        }
        return false;
    }

    private List<BitSet> groupLinks(CommModel.Collective c) {
        return groupLinks.computeIfAbsent(c, k -> runs(k).stream().map(CollectiveSimulator::linksOf).toList());
    }

    /**
     * Whether the followed replica's stage {@code s} and the next sit in one node, as the layout
     * numbers their GPUs: with TP 4 and three stages on 8-GPU nodes the first send stays in the node
     * and the second leaves it.
     */
    boolean stagesShareANode(int s) {
        int perNode = machine.gpusPerNode();
        return gpu(0, s, 0) / perNode == (gpu(0, s + 1, spec.tp() - 1)) / perNode;
    }

    /** The layout's number of TP rank {@code t} of stage {@code s} of replica {@code d}. */
    private int gpu(int d, int s, int t) {
        return (d * spec.pp() + s) * spec.tp() + t;
    }

    /** Each group's GPUs, in rank order; the first group is the one with the followed GPU of stage 0 (of {@code stage}, for sends). */
    private List<int[]> members(CommModel.Shape shape, int n, int stage, boolean sameNode) {
        int tp = spec.tp();
        int pp = spec.pp();
        List<int[]> out = new ArrayList<>();
        switch (shape) {
            case BLOCKS -> {
                for (int first = 0; first + n <= spec.gpus(); first += n) {
                    out.add(IntStream.range(first, first + n).toArray());
                }
            }
            case STAGE_SEND -> {
                // One boundary's sends: every GPU of the stage, in every replica, to its peer in the next.
                for (int d = 0; d < spec.dp(); d++) {
                    for (int t = 0; t < tp; t++) {
                        int g = gpu(d, stage, t);
                        out.add(new int[] {g, g + tp});
                    }
                }
            }
            case GATHER -> {
                // The first GPU of each replica's last stage receives; the pair is the one CommModel timed.
                int step = sameNode ? 1 : machine.gpusPerNode();
                for (int d = 0; d < spec.dp(); d++) {
                    int first = gpu(d, pp - 1, 0);
                    out.add(new int[] {first, first + step});
                }
            }
        }
        return out;
    }
}
