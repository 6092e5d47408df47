package dev.collsim.scenarios.views;

import dev.collsim.core.collective.LinkLoads;
import dev.collsim.core.collective.Schedule;
import dev.collsim.core.collective.TransferKind;
import dev.collsim.core.collective.TransferObserver;
import dev.collsim.core.collective.TransferTimes;
import dev.collsim.core.fabric.Fabric;
import dev.collsim.core.fabric.Link;
import dev.collsim.core.nccl.Communicator;
import dev.collsim.core.nccl.Plan;
import dev.collsim.reports.TraceEvents;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Comparator;
import java.util.Locale;

/**
 * One collective of a bench run in the Chrome trace-event format that the Perfetto UI loads: a process
 * per GPU with a thread per channel (and one more per channel for each further transfer in flight at
 * once, so that slices on a track never overlap), a slice per transfer on its sender's channel (bytes, peer, channel,
 * protocol, step), a flow arrow from each send to its arrival on the receiver's channel, and a counter
 * track per link that carried data, its utilisation over time as the flow network rated it (the wire
 * bytes per second of every flow on it at each moment: never above 100 %, and adding up to what crossed
 * the link). Timestamps in us; each flow ends on an arrival, an instant event on the receiver's
 * channel, for the viewer to bind it to.
 */
public final class BenchTrace {
    private static final int LINK_PIDS = 100_000;

    private BenchTrace() {}

    public static String json(Communicator comm, Plan plan) {
        Schedule s = comm.schedule(plan);
        TransferTimes times = new TransferTimes(s.transferCount());
        LinkLoads loads = new LinkLoads(comm.fabric().links().size());
        comm.simulate(plan, s, TransferObserver.both(times, loads), false);
        Fabric f = comm.fabric();
        TraceEvents trace = new TraceEvents();
        String proto = plan.request().protocol().label();
        // Point-to-point operations spread their peers over more channels than the request's (NCCL's p2p channels per peer).
        int channels = plan.request().channels();
        for (int t = 0; t < s.transferCount(); t++) {
            channels = Math.max(channels, s.channel(t) + 1);
        }
        int[] lane = lanes(s, times, comm.nRanks(), channels);
        int lanes = Arrays.stream(lane).max().orElse(0) + 1;
        for (int r = 0; r < comm.nRanks(); r++) {
            trace.processName(r + 1, "GPU " + r + " (" + f.device(comm.placement().devices()[r]).name() + ")");
        }
        boolean[][] used = new boolean[comm.nRanks()][channels * lanes];
        for (int t = 0; t < s.transferCount(); t++) {
            used[sender(s, t)][track(s.channel(t), lane[t], channels)] = true;
        }
        for (int r = 0; r < comm.nRanks(); r++) {
            for (int k = 0; k < channels * lanes; k++) {
                if (k < channels || used[r][k]) {
                    trace.threadName(r + 1, k + 1, "channel " + k % channels + (k < channels ? "" : ", transfers at once " + (k / channels + 1)));
                }
            }
        }
        for (int t = 0; t < s.transferCount(); t++) {
            double start = times.startedPicos(t) / 1e6;
            double end = times.receivedPicos(t) / 1e6;
            boolean p2p = s.kind(t) == TransferKind.P2P;
            int src = sender(s, t);
            int tid = track(s.channel(t), lane[t], channels) + 1;
            String peer = s.dst(t) == Schedule.ALL ? "all" : "GPU " + s.dst(t);
            trace.slice(p2p ? (s.reduces(t) ? "reduce to " : "send to ") + peer : s.kind(t).name().toLowerCase(Locale.ROOT), "transfer", src + 1,
                    tid, start, end - start).put("bytes", s.bytes(t)).put("peer", peer).put("channel", s.channel(t)).put("protocol", proto)
                    .put("step", s.step(t));
            if (p2p) {
                trace.instant("arrival from GPU " + src, "transfer", s.dst(t) + 1, s.channel(t) + 1, end);
                trace.flow(t, "transfer", src + 1, tid, start, s.dst(t) + 1, s.channel(t) + 1, end);
            }
        }
        BitSet named = new BitSet();
        for (int l = 0; l < f.links().size(); l++) {
            if (loads.steps(l) == 0) {
                continue;
            }
            Link link = f.link(l);
            String name = f.device(link.from()).name() + " -> " + f.device(link.to()).name() + " utilisation (%)";
            int pid = LINK_PIDS + link.from();
            if (!named.get(link.from())) {
                named.set(link.from());
                trace.processName(pid, f.device(link.from()).name() + " (links)");
            }
            for (int i = 0; i < loads.steps(l); i++) {
                trace.counter(name, pid, loads.stepPicos(l, i) / 1e6, "percent", percent(loads.load(l, i), link.rate().bytesPerSecond()));
            }
        }
        return trace.render("ns");
    }

    /** A rank's transfers go on the channel's track of their sender; a link-wide operation on rank 0's. */
    private static int sender(Schedule s, int t) {
        return s.src(t) == Schedule.ALL ? 0 : s.src(t);
    }

    /** The thread of lane {@code lane} of channel {@code c}: the channel's own for lane 0, then one more track per lane. */
    private static int track(int c, int lane, int channels) {
        return lane * channels + c;
    }

    /**
     * Which lane of its sender's channel each transfer's slice goes on, so that slices on one track never
     * overlap (the trace format wants a track's complete events nested or apart): a transfer takes the
     * first lane free by its start, in order of start (interval partitioning: as few lanes as the most
     * transfers in flight at once on that channel).
     */
    static int[] lanes(Schedule s, TransferTimes times, int ranks, int channels) {
        int n = s.transferCount();
        Integer[] order = new Integer[n];
        for (int t = 0; t < n; t++) {
            order[t] = t;
        }
        Arrays.sort(order, Comparator.comparingLong((Integer t) -> times.startedPicos(t)).thenComparingInt(t -> t));
        long[][][] free = new long[ranks][channels][];
        int[] lane = new int[n];
        for (int t : order) {
            long[] ends = free[sender(s, t)][s.channel(t)];
            if (ends == null) {
                ends = new long[0];
            }
            int k = 0;
            while (k < ends.length && ends[k] > times.startedPicos(t)) {
                k++;
            }
            if (k == ends.length) {
                ends = Arrays.copyOf(ends, ends.length + 1);
            }
            ends[k] = times.receivedPicos(t);
            free[sender(s, t)][s.channel(t)] = ends;
            lane[t] = k;
        }
        return lane;
    }

    /** A link's use in percent of its rate; flows that fill it read 100, not 100.00000000000001. */
    static double percent(double bytesPerSecond, double rate) {
        double p = 100 * bytesPerSecond / rate;
        return p > 100 && p < 100 * (1 + 1e-9) ? 100 : p;
    }
}
