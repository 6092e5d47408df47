package dev.collsim.core.collective;

import dev.collsim.core.engine.Engine;
import dev.collsim.core.engine.IndexedEvent;
import dev.collsim.core.fabric.Fabric;
import dev.collsim.core.fabric.Route;
import dev.collsim.core.flow.FlowListener;
import dev.collsim.core.flow.FlowNetwork;
import dev.collsim.core.units.TimeSpan;
import java.util.Arrays;

/**
 * Runs a {@link Schedule} on the engine over the fabric.
 *
 * <p>A point-to-point transfer becomes a flow of wire bytes ({@code data / wire efficiency}) from
 * its sender's GPU to its receiver's GPU, capped at the channel's rate. An in-switch all-reduce
 * becomes two flows per rank of the switch, up and down its links, each of
 * {@code data x (1 + 1/ranks) / NVLS efficiency} wire bytes; it ends when the last has ended. When its last byte has left, the sending
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
    private final int[] rankSwitch;
    private final int[] rankSharp;

    private Schedule schedule;
    private double wireFactor;
    private double capWireRate;
    private long sendOverhead;
    private long notifyLatency;
    private long netLatency;
    private NvlsCosts nvls;
    private NvlsCosts sharp;
    private int[] legsLeft;
    private long[] legLatency;
    private Route[] routes;
    private final PairRoutes pairRoutes = new PairRoutes();
    private final IndexedEvent startHandler = this::start;
    private final IndexedEvent copiedHandler = this::copied;
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
     * @param rankSwitch fabric device id of the NVLS switch each rank's GPU hangs off, or -1
     * @param rankSharp  fabric device id of the SHARP switch each rank's NIC reaches, or -1 (null: none)
     */
    public ScheduleRunner(Engine engine, FlowNetwork network, Fabric fabric, int[] rankDevice, int[] rankSwitch,
                          int[] rankSharp) {
        if (rankSwitch.length != rankDevice.length || (rankSharp != null && rankSharp.length != rankDevice.length)) {
            throw new IllegalArgumentException("one switch entry per rank");
        }
        this.engine = engine;
        this.network = network;
        this.fabric = fabric;
        this.rankDevice = rankDevice.clone();
        this.rankSwitch = rankSwitch.clone();
        this.rankSharp = rankSharp == null ? null : rankSharp.clone();
    }

    public void setObserver(TransferObserver observer) {
        this.observer = observer;
    }

    /**
     * Runs the schedule to completion, starting now.
     *
     * @param nvlsCosts     costs of NVLS operations, or null if the schedule has none
     * @param sharpCosts    costs of in-network (SHARP) all-reduces, or null if the schedule has none
     * @param launchLatency time from the start until the kernels begin work
     * @throws IllegalStateException if some transfer can never start (a dependency cycle)
     */
    public RunResult run(Schedule s, ProtocolCosts protocolCosts, NvlsCosts nvlsCosts, NvlsCosts sharpCosts,
                         TimeSpan launchLatency) {
        CollectiveRequest req = s.request();
        if (req.nRanks() > rankDevice.length) {
            throw new IllegalArgumentException(req.nRanks() + " ranks but only " + rankDevice.length + " GPUs");
        }
        this.schedule = s;
        this.wireFactor = 1.0 / req.protocol().wireEfficiency();
        this.capWireRate = protocolCosts.channelRate().bytesPerSecond() * wireFactor;
        this.sendOverhead = protocolCosts.sendOverhead().picos();
        this.notifyLatency = protocolCosts.notifyLatency().picos();
        this.netLatency = protocolCosts.netLatency().picos();
        this.nvls = nvlsCosts;
        this.sharp = sharpCosts;
        int n = s.transferCount();
        legsLeft = new int[n];
        legLatency = new long[n];
        routes = new Route[n];
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
                engine.schedule(kernelStart, startHandler, t);
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
        long[] linkBytes = new long[fabric.links().size()];
        for (int l = 0; l < linkBytes.length; l++) {
            linkBytes[l] = network.bytesCarried(l);
        }
        return new RunResult(s, last - origin, started, delivered, linkBytes);
    }

    private void start(int t) {
        long now = engine.now();
        started[t] = now;
        if (observer != null) {
            observer.started(t, now);
        }
        long bytes = schedule.bytes(t);
        if (bytes == 0) {
            // No data, but the step's flag still crosses the route.
            Route r = schedule.kind(t) == TransferKind.P2P ? route(t) : null;
            finish(t, now, r == null ? 0 : r.latencyPicos() + (r.viaNic() ? netLatency : 0));
            return;
        }
        if (schedule.kind(t) == TransferKind.SWITCH_ALLREDUCE || schedule.kind(t) == TransferKind.SWITCH_REDUCE
                || schedule.kind(t) == TransferKind.SWITCH_MULTICAST) {
            startSwitchOperation(t, bytes);
            return;
        }
        if (schedule.kind(t) == TransferKind.NETWORK_ALLREDUCE) {
            startNetworkAllReduce(t, bytes);
            return;
        }
        if (schedule.kind(t) == TransferKind.LOCAL_COPY) {
            engine.schedule(now + nvls.copyRate().picosFor(bytes), copiedHandler, t);
            return;
        }
        Route route = route(t);
        network.start(route.links(), bytes * wireFactor, capWireRate, this, t);
    }

    /**
     * Starts the flows of an in-switch operation over the ranks on the switch of its head (its
     * receiver for a reduction, its sender otherwise). All-reduce: every rank up and down, each
     * {@code data x (1 + 1/ranks)}. Reduction: every rank up, the head down. Multicast: the head up,
     * every rank down. Wire bytes are data over the NVLS efficiency.
     */
    private void startSwitchOperation(int t, long bytes) {
        if (nvls == null) {
            throw new IllegalStateException("an NVLS operation without NVLS costs");
        }
        TransferKind kind = schedule.kind(t);
        int head = kind == TransferKind.SWITCH_REDUCE ? schedule.dst(t) : schedule.src(t);
        int sw = rankSwitch[head];
        if (sw < 0) {
            throw new IllegalStateException("rank " + head + " has no NVLS switch");
        }
        int members = 0;
        for (int s : rankSwitch) {
            members += s == sw ? 1 : 0;
        }
        double data = kind == TransferKind.SWITCH_ALLREDUCE ? bytes * (1 + 1.0 / members) : bytes;
        double legBytes = data / nvls.efficiency();
        double cap = nvls.channelRate().bytesPerSecond() / nvls.efficiency();
        long latency = 0;
        for (int r = 0; r < rankSwitch.length; r++) {
            if (rankSwitch[r] != sw) {
                continue;
            }
            boolean up = kind != TransferKind.SWITCH_MULTICAST || r == head;
            boolean down = kind != TransferKind.SWITCH_REDUCE || r == head;
            Route upRoute = fabric.route(rankDevice[r], sw);
            Route downRoute = fabric.route(sw, rankDevice[r]);
            latency = Math.max(latency, upRoute.latencyPicos() + downRoute.latencyPicos());
            if (up) {
                network.start(upRoute.links(), legBytes, cap, this, t);
                legsLeft[t]++;
            }
            if (down) {
                network.start(downRoute.links(), legBytes, cap, this, t);
                legsLeft[t]++;
            }
        }
        legLatency[t] = latency;
    }

    /** The route of a point-to-point transfer, looked up once. */
    private Route route(int t) {
        Route r = routes[t];
        if (r == null) {
            r = pairRoutes.get(schedule.src(t), schedule.dst(t));
            routes[t] = r;
        }
        return r;
    }

    /**
     * Routes between ranks, in an open-addressing table keyed by the rank pair: millions of transfers
     * look up a few thousand routes, and the fabric's shared cache boxes its keys.
     */
    private final class PairRoutes {
        private long[] keys = new long[1024];
        private Route[] values = new Route[1024];
        private int size;

        Route get(int src, int dst) {
            long key = ((long) src << 32) | (dst & 0xffffffffL);
            int mask = keys.length - 1;
            for (int i = mix(key) & mask; ; i = (i + 1) & mask) {
                if (values[i] == null) {
                    Route r = fabric.route(rankDevice[src], rankDevice[dst]);
                    keys[i] = key;
                    values[i] = r;
                    if (++size * 2 > keys.length) {
                        grow();
                    }
                    return r;
                }
                if (keys[i] == key) {
                    return values[i];
                }
            }
        }

        private void grow() {
            long[] oldKeys = keys;
            Route[] oldValues = values;
            keys = new long[oldKeys.length * 2];
            values = new Route[oldKeys.length * 2];
            int mask = keys.length - 1;
            for (int j = 0; j < oldKeys.length; j++) {
                if (oldValues[j] != null) {
                    int i = mix(oldKeys[j]) & mask;
                    while (values[i] != null) {
                        i = (i + 1) & mask;
                    }
                    keys[i] = oldKeys[j];
                    values[i] = oldValues[j];
                }
            }
        }

        private int mix(long key) {
            long h = key * 0x9E3779B97F4A7C15L;
            return (int) (h ^ (h >>> 32));
        }
    }

    /** Every rank of the SHARP group sends the piece up through its NIC and gets the sum back down. */
    private void startNetworkAllReduce(int t, long bytes) {
        if (sharp == null || rankSharp == null || rankSharp[schedule.src(t)] < 0) {
            throw new IllegalStateException("an in-network all-reduce without a SHARP switch");
        }
        int sw = rankSharp[schedule.src(t)];
        double legBytes = bytes / sharp.efficiency();
        double cap = sharp.channelRate().bytesPerSecond() / sharp.efficiency();
        long latency = 0;
        for (int r = 0; r < rankSharp.length; r++) {
            if (rankSharp[r] == sw) {
                Route up = fabric.route(rankDevice[r], sw);
                Route down = fabric.route(sw, rankDevice[r]);
                latency = Math.max(latency, up.latencyPicos() + down.latencyPicos());
                network.start(up.links(), legBytes, cap, this, t);
                network.start(down.links(), legBytes, cap, this, t);
                legsLeft[t] += 2;
            }
        }
        legLatency[t] = latency;
    }

    private void copied(int t) {
        finish(t, engine.now(), 0);
    }

    @Override
    public void transferred(int t) {
        if (schedule.kind(t) == TransferKind.P2P) {
            Route r = route(t);
            finish(t, engine.now(), r.latencyPicos() + (r.viaNic() ? netLatency : 0));
        } else if (--legsLeft[t] == 0) {
            finish(t, engine.now(), legLatency[t]);
        }
    }

    private void finish(int t, long end, long routeLatency) {
        TransferKind kind = schedule.kind(t);
        long freeAt = end + switch (kind) {
            case P2P -> sendOverhead;
            case SWITCH_ALLREDUCE, SWITCH_REDUCE, SWITCH_MULTICAST -> nvls.stepOverhead().picos();
            case NETWORK_ALLREDUCE -> sharp.stepOverhead().picos();
            case LOCAL_COPY -> 0;
        };
        long visibleAt = freeAt + routeLatency + switch (kind) {
            case P2P -> notifyLatency;
            case SWITCH_ALLREDUCE, SWITCH_REDUCE, SWITCH_MULTICAST -> nvls.notifyLatency().picos();
            case NETWORK_ALLREDUCE -> sharp.notifyLatency().picos();
            case LOCAL_COPY -> 0;
        };
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
                engine.schedule(readyAt[next], startHandler, next);
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
