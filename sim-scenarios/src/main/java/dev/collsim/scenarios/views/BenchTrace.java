package dev.collsim.scenarios.views;

import dev.collsim.core.collective.Schedule;
import dev.collsim.core.collective.TransferKind;
import dev.collsim.core.collective.TransferTimes;
import dev.collsim.core.fabric.Fabric;
import dev.collsim.core.fabric.Link;
import dev.collsim.core.nccl.Communicator;
import dev.collsim.core.nccl.Plan;
import dev.collsim.reports.TraceEvents;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One collective of a bench run in the Chrome trace-event format that the Perfetto UI loads: a process
 * per GPU with a thread per channel, a slice per transfer on its sender's channel (bytes, peer, channel,
 * protocol, step), a flow arrow from each send to its arrival on the receiver's channel, and a counter
 * track per link that carried data, its utilisation over time (each transfer's wire bytes spread evenly
 * over its time in flight, so a step's latency shows as lower use). Timestamps in us; each flow
 * ends on a short arrival slice on the receiver's channel, for the viewer to bind it to.
 */
public final class BenchTrace {
    private static final int LINK_PIDS = 100_000;

    private BenchTrace() {}

    public static String json(Communicator comm, Plan plan) {
        Schedule s = comm.schedule(plan);
        TransferTimes times = new TransferTimes(s.transferCount());
        comm.simulate(plan, s, times, false);
        Fabric f = comm.fabric();
        TraceEvents trace = new TraceEvents();
        String proto = plan.request().protocol().label();
        for (int r = 0; r < comm.nRanks(); r++) {
            trace.processName(r + 1, "GPU " + r + " (" + f.device(comm.placement().devices()[r]).name() + ")");
            for (int c = 0; c < plan.request().channels(); c++) {
                trace.threadName(r + 1, c + 1, "channel " + c);
            }
        }
        double wire = 1 / plan.request().protocol().wireEfficiency();
        Map<Integer, List<double[]>> linkRates = new TreeMap<>();
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
                trace.slice("arrival from GPU " + src, "transfer", s.dst(t) + 1, tid, end, 0.001);
                trace.flow(t, "transfer", src + 1, tid, start, s.dst(t) + 1, tid, end);
                if (end > start && s.bytes(t) > 0) {
                    double rate = s.bytes(t) * wire / ((end - start) / 1e6);
                    for (int l : f.router().route(comm.placement().devices()[src], comm.placement().devices()[s.dst(t)]).links()) {
                        List<double[]> changes = linkRates.computeIfAbsent(l, k -> new ArrayList<>());
                        changes.add(new double[] {start, rate});
                        changes.add(new double[] {end, -rate});
                    }
                }
            }
        }
        for (Map.Entry<Integer, List<double[]>> e : linkRates.entrySet()) {
            Link link = f.link(e.getKey());
            String name = f.device(link.from()).name() + " -> " + f.device(link.to()).name() + " utilisation (%)";
            int pid = LINK_PIDS + link.from();
            trace.processName(pid, f.device(link.from()).name() + " (links)");
            List<double[]> changes = e.getValue();
            changes.sort((a, b) -> Double.compare(a[0], b[0]));
            double level = 0;
            for (int i = 0; i < changes.size(); i++) {
                level += changes.get(i)[1];
                if (i + 1 < changes.size() && changes.get(i + 1)[0] == changes.get(i)[0]) {
                    continue;
                }
                trace.counter(name, pid, changes.get(i)[0], "percent", Math.max(0, 100 * level / link.rate().bytesPerSecond()));
            }
        }
        return trace.render("ns");
    }
}
