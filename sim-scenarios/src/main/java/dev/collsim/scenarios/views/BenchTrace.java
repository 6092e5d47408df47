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
import java.util.BitSet;

/**
 * One collective of a bench run in the Chrome trace-event format that the Perfetto UI loads: a process
 * per GPU with a thread per channel, a slice per transfer on its sender's channel (bytes, peer, channel,
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
        for (int r = 0; r < comm.nRanks(); r++) {
            trace.processName(r + 1, "GPU " + r + " (" + f.device(comm.placement().devices()[r]).name() + ")");
            for (int c = 0; c < plan.request().channels(); c++) {
                trace.threadName(r + 1, c + 1, "channel " + c);
            }
        }
        for (int t = 0; t < s.transferCount(); t++) {
            double start = times.startedPicos(t) / 1e6;
            double end = times.receivedPicos(t) / 1e6;
            boolean p2p = s.kind(t) == TransferKind.P2P;
            int src = s.src(t) == Schedule.ALL ? 0 : s.src(t);
            int tid = s.channel(t) + 1;
            String peer = s.dst(t) == Schedule.ALL ? "all" : "GPU " + s.dst(t);
            trace.slice(p2p ? (s.reduces(t) ? "reduce to " : "send to ") + peer : s.kind(t).name().toLowerCase(), "transfer", src + 1, tid,
                    start, end - start).put("bytes", s.bytes(t)).put("peer", peer).put("channel", s.channel(t)).put("protocol", proto)
                    .put("step", s.step(t));
            if (p2p) {
                trace.instant("arrival from GPU " + src, "transfer", s.dst(t) + 1, tid, end);
                trace.flow(t, "transfer", src + 1, tid, start, s.dst(t) + 1, tid, end);
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
                trace.counter(name, pid, loads.stepPicos(l, i) / 1e6, "percent", 100 * loads.load(l, i) / link.rate().bytesPerSecond());
            }
        }
        return trace.render("ns");
    }
}
