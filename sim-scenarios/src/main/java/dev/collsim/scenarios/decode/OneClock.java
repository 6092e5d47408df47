package dev.collsim.scenarios.decode;

import dev.collsim.core.collective.CollectiveRun;
import dev.collsim.core.collective.LinkLoads;
import dev.collsim.core.collective.SharedFabric;
import dev.collsim.core.compute.GpuStreams;
import dev.collsim.core.engine.Engine;
import dev.collsim.core.fabric.DeviceKind;
import dev.collsim.core.fabric.Fabric;
import dev.collsim.core.fabric.Link;
import dev.collsim.scenarios.decode.DecodeResult.KernelKind;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The step's kernels on the streams of the GPU it follows, in time on the engine ({@link
 * GpuStreams}), each collective as long as it takes alone on its group ({@link CommModel}); and,
 * where that timeline shows collectives that can meet on a link, the whole step again on one clock:
 * every collective of every group that runs it ({@link LayoutGroups}) chunk by chunk on one flow
 * network over the layout's fabric, starting when its kernel starts, its kernel ending when the
 * followed group's run ends, so that runs which overlap contend.
 *
 * <p>The shortcut is exact where it is taken: if no two collectives that overlap in the timeline of
 * alone times can cross a common link, and no two groups of one collective can, each runs alone on
 * one clock too, so every kernel starts and ends as in that timeline (by induction over the
 * kernels in time order). {@code OneClockTest} runs both on small models and finds them equal to
 * the picosecond.
 */
final class OneClock {
    private OneClock() {}

    /**
     * Sets every op's start and end (us from 0). Where collectives contend it takes the step on one
     * clock (never for a stochastic step, whose collectives are timed with their draws alone) and
     * returns the load over time of the links of the followed GPU and its NIC; else null.
     */
    static List<DecodeResult.LinkLoad> schedule(List<Op> ops, int sms, LayoutGroups layout) {
        return schedule(ops, sms, layout, false);
    }

    /** The header's line for a step whose collectives contended. */
    static final String CONTENDED = "collectives that run at once share links; every group's were simulated together on one clock";

    /** {@link #schedule}, on one clock whether or not collectives contend if {@code always}: what the shortcut must equal. */
    static List<DecodeResult.LinkLoad> schedule(List<Op> ops, int sms, LayoutGroups layout, boolean always) {
        alone(ops, sms);
        if (layout == null || !(always || contend(ops, layout))) {
            return null;
        }
        return together(ops, sms, layout);
    }

    /** Every collective as long as it takes alone. */
    static void alone(List<Op> ops, int sms) {
        Engine engine = new Engine();
        GpuStreams streams = new GpuStreams(engine, sms, streams(ops));
        Map<Op, Integer> number = new IdentityHashMap<>();
        for (Op op : ops) {
            number.put(op, streams.kernel(op.stream, op.picos(), op.kind == KernelKind.COMPUTE, op.sms, waits(op, number)));
        }
        streams.run();
        times(ops, streams, number);
    }

    /**
     * Every collective of every group that runs it, on one flow network, from when its kernel
     * starts; returns the load over time of the links of the followed GPU and its NIC.
     */
    static List<DecodeResult.LinkLoad> together(List<Op> ops, int sms, LayoutGroups layout) {
        Engine engine = new Engine();
        GpuStreams streams = new GpuStreams(engine, sms, streams(ops));
        SharedFabric fabric = new SharedFabric(engine, layout.fabric());
        LinkLoads loads = new LinkLoads(layout.fabric().links().size());
        boolean watched = false;
        Map<Op, Integer> number = new IdentityHashMap<>();
        List<Op> byKernel = new ArrayList<>();
        List<int[]> runsOf = new ArrayList<>();
        List<Integer> followedRun = new ArrayList<>();
        GpuStreams.OpenKernels runner = k -> {
            Op op = byKernel.get(k);
            int[] runs = runsOf.get(k);
            int followed = followedRun.get(k);
            engine.schedule(engine.now() + op.launchPicos(), () -> {
                for (int run : runs) {
                    fabric.start(run, run == followed ? () -> streams.finish(k) : null);
                }
            });
        };
        for (Op op : ops) {
            int k;
            int[] runs = null;
            int followed = -1;
            if (op.collective == null) {
                k = streams.kernel(op.stream, op.picos(), op.kind == KernelKind.COMPUTE, op.sms, waits(op, number));
            } else {
                CommModel.Collective c = op.collective.what();
                List<CollectiveRun> groups = layout.runs(c);
                runs = new int[groups.size()];
                for (int i = 0; i < runs.length; i++) {
                    // The flow network tells every run's observers of every link's rate: one is enough.
                    runs[i] = fabric.add(watched ? groups.get(i) : groups.get(i).observedBy(loads));
                    watched = true;
                }
                followed = runs[layout.followed(c, layout.stageOf(op.layer))];
                k = streams.openKernel(op.stream, op.sms, runner, waits(op, number));
            }
            number.put(op, k);
            byKernel.add(op);
            runsOf.add(runs);
            followedRun.add(followed);
        }
        streams.run();
        times(ops, streams, number);
        return followedLinks(layout, loads);
    }

    /** The loads, in percent of each link's rate from each change on, of the links at the followed GPU (GPU 0) and its NICs. */
    private static List<DecodeResult.LinkLoad> followedLinks(LayoutGroups layout, LinkLoads loads) {
        Fabric f = layout.fabric();
        int gpu = layout.followedDevice();
        Set<Integer> ends = new TreeSet<>(List.of(gpu));
        for (int l : f.outLinks(gpu)) {
            for (int m : f.outLinks(f.link(l).to())) {
                if (f.device(f.link(m).to()).kind() == DeviceKind.NIC) {
                    ends.add(f.link(m).to());
                }
            }
        }
        List<DecodeResult.LinkLoad> out = new ArrayList<>();
        for (Link link : f.links()) {
            int l = link.id();
            if (loads.steps(l) == 0 || !(ends.contains(link.from()) || ends.contains(link.to()))) {
                continue;
            }
            List<double[]> steps = new ArrayList<>();
            for (int i = 0; i < loads.steps(l); i++) {
                steps.add(new double[] {loads.stepPicos(l, i) / 1e9, 100 * loads.load(l, i) / link.rate().bytesPerSecond()});
            }
            out.add(new DecodeResult.LinkLoad(f.device(link.from()).name() + " -> " + f.device(link.to()).name(), steps));
        }
        return out;
    }

    /**
     * Whether two collectives that overlap in the timeline of alone times can cross one link, or two
     * groups of one collective can: where neither, each runs alone on one clock too.
     */
    static boolean contend(List<Op> ops, LayoutGroups layout) {
        List<Op> comms = new ArrayList<>();
        for (Op op : ops) {
            if (op.collective != null) {
                comms.add(op);
            }
        }
        Set<CommModel.Collective> checked = new HashSet<>();
        for (Op op : comms) {
            CommModel.Collective c = op.collective.what();
            if (checked.add(c) && layout.groupCount(c) > 1 && layout.groupsShareALink(c)) {
                return true;
            }
        }
        comms.sort(Comparator.comparingDouble(o -> o.start));
        List<Op> running = new ArrayList<>();
        for (Op op : comms) {
            running.removeIf(r -> r.end <= op.start);
            for (Op r : running) {
                // Links are looked up only for collectives that do overlap in time.
                if (layout.links(r.collective.what()).intersects(layout.links(op.collective.what()))) {
                    return true;
                }
            }
            running.add(op);
        }
        return false;
    }

    private static int streams(List<Op> ops) {
        return ops.stream().mapToInt(o -> o.stream).max().orElse(0) + 1;
    }

    private static int[] waits(Op op, Map<Op, Integer> number) {
        return op.deps.stream().mapToInt(number::get).toArray();
    }

    private static void times(List<Op> ops, GpuStreams streams, Map<Op, Integer> number) {
        for (Op op : ops) {
            int k = number.get(op);
            op.start = streams.startPicos(k) / 1e6;
            op.end = streams.endPicos(k) / 1e6;
        }
    }
}
