package dev.collsim.core.collective;

import dev.collsim.core.engine.Engine;
import dev.collsim.core.fabric.Fabric;
import dev.collsim.core.fabric.Route;
import dev.collsim.core.flow.FlowListener;
import dev.collsim.core.flow.FlowNetwork;
import dev.collsim.core.units.TimeSpan;
import java.util.Arrays;

/**
 * Runs a {@link Schedule} on the engine over the fabric.
 *
 * <p>A transfer becomes a flow of wire bytes ({@code data / wire efficiency}) from its sender's GPU
 * to its receiver's GPU, capped at the channel's rate. When its last byte has left, the sending
 * channel stays busy for the protocol's send overhead; the data is visible at the receiver after
 * that overhead, the notify latency and the route's latency. Transfers that move no data (empty
 * blocks of tiny messages) still pay those latencies, as NCCL's steps still synchronise. Every
 * rank's kernel starts after the collective's launch latency.
 */
public final class ScheduleRunner implements FlowListener {
    private final Engine engine;
    private final FlowNetwork network;
    private final Fabric fabric;
    private final int[] rankDevice;

    private Schedule schedule;
    private double wireFactor;
    private double capWireRate;
    private long sendOverhead;
    private long notifyLatency;
    private long origin;
    private int[] pending;
    private long[] readyAt;
    private long[] started;
    private long[] delivered;
    private int done;
    private long last;
    private TransferObserver observer;

    /**
     * @param rankDevice fabric device id of each rank's GPU
     */
    public ScheduleRunner(Engine engine, FlowNetwork network, Fabric fabric, int[] rankDevice) {
        this.engine = engine;
        this.network = network;
        this.fabric = fabric;
        this.rankDevice = rankDevice.clone();
    }

    public void setObserver(TransferObserver observer) {
        this.observer = observer;
    }

    /**
     * Runs the schedule to completion, starting now.
     *
     * @param launchLatency time from the start until the kernels begin work
     * @throws IllegalStateException if some transfer can never start (a dependency cycle)
     */
    public RunResult run(Schedule s, ProtocolCosts protocolCosts, TimeSpan launchLatency) {
        CollectiveRequest req = s.request();
        if (req.nRanks() > rankDevice.length) {
            throw new IllegalArgumentException(req.nRanks() + " ranks but only " + rankDevice.length + " GPUs");
        }
        this.schedule = s;
        this.wireFactor = 1.0 / req.protocol().wireEfficiency();
        this.capWireRate = protocolCosts.channelRate().bytesPerSecond() * wireFactor;
        this.sendOverhead = protocolCosts.sendOverhead().picos();
        this.notifyLatency = protocolCosts.notifyLatency().picos();
        int n = s.transferCount();
        origin = engine.now();
        pending = new int[n];
        readyAt = new long[n];
        started = new long[n];
        delivered = new long[n];
        done = 0;
        last = origin;
        long kernelStart = origin + launchLatency.picos();
        Arrays.fill(readyAt, kernelStart);
        for (int t = 0; t < n; t++) {
            pending[t] = s.dependencyCount(t);
            if (pending[t] == 0) {
                engine.schedule(kernelStart, this::start, t);
            }
        }
        engine.run();
        if (done != n) {
            throw new IllegalStateException(stallMessage());
        }
        for (int t = 0; t < n; t++) {
            started[t] -= origin;
            delivered[t] -= origin;
        }
        return new RunResult(s, last - origin, started, delivered);
    }

    private void start(int t) {
        long now = engine.now();
        started[t] = now;
        if (observer != null) {
            observer.started(t, now);
        }
        long bytes = schedule.bytes(t);
        if (bytes == 0) {
            finish(t, now, 0);
            return;
        }
        Route route = route(t);
        network.start(route.links(), bytes * wireFactor, capWireRate, this, t);
    }

    private Route route(int t) {
        return fabric.route(rankDevice[schedule.src(t)], rankDevice[schedule.dst(t)]);
    }

    @Override
    public void transferred(int t) {
        finish(t, engine.now(), route(t).latencyPicos());
    }

    private void finish(int t, long end, long routeLatency) {
        long freeAt = end + sendOverhead;
        long visibleAt = freeAt + notifyLatency + routeLatency;
        delivered[t] = visibleAt;
        last = Math.max(last, visibleAt);
        done++;
        if (observer != null) {
            observer.delivered(t, visibleAt);
        }
        for (int i = schedule.successorsFrom(t), to = schedule.successorsTo(t); i < to; i++) {
            int entry = schedule.successorEntry(i);
            int next = entry >>> 1;
            long at = (entry & 1) != 0 ? visibleAt : freeAt;
            if (at > readyAt[next]) {
                readyAt[next] = at;
            }
            if (--pending[next] == 0) {
                engine.schedule(readyAt[next], this::start, next);
            }
        }
    }

    private String stallMessage() {
        int n = schedule.transferCount();
        for (int t = 0; t < n; t++) {
            if (pending[t] > 0) {
                return "collective stalled: " + (n - done) + " of " + n + " transfers never ran; e.g. transfer " + t
                        + " (rank " + schedule.src(t) + " -> " + schedule.dst(t) + ", channel " + schedule.channel(t)
                        + ", step " + schedule.step(t) + ") still waits for " + pending[t] + " dependencies";
            }
        }
        return "collective stalled: " + (n - done) + " of " + n + " transfers never finished";
    }
}
