package dev.collsim.core.collective;

import dev.collsim.core.engine.Engine;
import dev.collsim.core.engine.Event;
import dev.collsim.core.engine.IndexedEvent;
import dev.collsim.core.fabric.Route;
import dev.collsim.core.flow.FlowListener;
import dev.collsim.core.flow.FlowNetwork;
import dev.collsim.core.units.Rate;
import dev.collsim.core.units.TimeSpan;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Locale;
import java.util.Set;
import java.util.function.DoubleSupplier;
import java.util.stream.Collectors;

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
 *
 * <p>Between GPUs that cannot reach each other's memory (no PCIe peer-to-peer, NCCL's SHM
 * transport) a transfer is staged through host memory on the receiver's side, as NCCL's
 * {@code NCCL_SHM_LOCALITY} default puts it, in two legs: the sender's kernel writes it there (a flow
 * from its GPU to that memory), then the receiver's kernel reads it (a flow back down). Both legs are
 * work of the kernels' own threads, so each channel of a rank runs one primitive at a time: a send,
 * a receive, or a receive fused with the send that forwards it (the read and the write stream
 * together). The data is visible to the receiver once written; it is delivered once read.
 * Without GPUDirect RDMA a transfer across nodes is staged the same way at both ends: the sender's
 * kernel writes it to its host memory, the NICs carry it from there to the receiver's host memory (a
 * third leg, between the two, that no kernel thread waits on), and the receiver's kernel reads it.
 *
 * <p>Given {@link LinkOrbits}, it runs one orbit of a folded schedule: every route on its links'
 * orbits' first links, every rank's proxy work on its orbit's first rank, every link's bytes read off
 * its orbit's first.
 *
 * <p>The runner keeps about 12 bytes a transfer (a counter and a time) and no record of when each
 * started or arrived: an observer ({@link TransferTimes}) keeps that for the views that show it.
 */
public final class ScheduleRunner implements FlowListener {
    /**
     * What a kernel's own loads and stores to host memory get of a PCIe link, relative to the copy
     * engines' DMA that the links' rates describe: the SMs move at most 128 B per transaction layer
     * packet where DMA moves 256 B, each with about 26 B of framing, sequence number, 64-bit-address
     * header and CRC, so (128 / 154) / (256 / 282) = 0.915.
     */
    static final double HOST_ACCESS_EFFICIENCY = (128.0 / 154) / (256.0 / 282);

    private final Engine engine;
    private final FlowNetwork network;
    private final RunRoutes routes;
    /** Where a folded run's orbits' flows and proxy work go, or null. */
    private final LinkOrbits orbits;

    private Schedule schedule;
    private double wireFactor;
    /** Share of a Simple channel's rate each direction of a send/receive pair gets. */
    static final double P2P_DIRECTION_SHARE = 0.5;
    /** NCCL's P2P_PER_CHANNEL_NET_BW, 14 GB/s: what one p2p channel to a network peer carries (TG_B200_SR_SCALING's 64 nodes: 14.8). */
    static final double NET_P2P_CHANNEL_BYTES_PER_S = 14e9;
    private double capWireRate;
    /** A point-to-point channel's cap on a route through a NIC: the lower of its own rate and the network p2p rate. */
    private double netCapWireRate;
    private long sendOverhead;
    /** What a channel's threads copy into their own rank's memory per second ({@link Schedule#copiesLocally}). */
    private double localCopyRate;
    private Rate localCopy;
    private long notifyLatency;
    private long netLatency;
    private long proxyPost;
    private long proxyReceive;
    /** Per rank: when its proxy thread is free for the next network step. */
    private long[] proxyFreeAt;
    private NvlsCosts nvls;
    private NvlsCosts sharp;
    private final IndexedEvent startHandler = this::start;
    private final IndexedEvent copiedHandler = this::copied;
    private long origin;
    /** Told on the engine when the run ends, or null. */
    private Event onEnd;
    private long launchLatency;
    /**
     * Per transfer: until it starts, how many of its dependencies are not yet met; after, how many
     * of its flows have not yet ended (an in-switch or in-network operation's).
     */
    private int[] waiting;
    /**
     * Per transfer: when its last dependency is met; once it starts, when it started, or for a step
     * through a NIC when its proxy had posted it (it is not visible before).
     */
    private long[] readyAt;
    private BitSet begun;
    private BitSet arrived;
    /** Room for one transfer's successors. */
    private int[] successors;
    private int done;
    private long last;
    private TransferObserver observer;
    private boolean[] staged;
    private int[] fusedInto;
    private int[] fusedHead;
    private int[] fusedNext;
    private ChannelGates gates;
    private DoubleSupplier stepJitter;
    private final IndexedEvent legEndHandler = this::transferred;
    private final IndexedEvent offerReadHandler = this::offerRead;
    private final IndexedEvent networkLegHandler = this::startNetworkLeg;
    private final IndexedEvent landedHandler = this::landed;

    public ScheduleRunner(Engine engine, FlowNetwork network, RankPlacement placement) {
        this(engine, network, placement, null);
    }

    /** A runner of one orbit of a folded schedule, on the orbits' first links and ranks; null: not folded. */
    ScheduleRunner(Engine engine, FlowNetwork network, RankPlacement placement, LinkOrbits orbits) {
        this.engine = engine;
        this.network = network;
        this.routes = new RunRoutes(placement, orbits);
        this.orbits = orbits;
    }

    public void setObserver(TransferObserver observer) {
        this.observer = observer;
    }

    /**
     * Scales each point-to-point step's latency (its route and the receiver's notification) by a
     * factor drawn per transfer, for stochastic runs; null: none.
     */
    public void setStepJitter(DoubleSupplier factor) {
        this.stepJitter = factor;
    }

    /**
     * Runs the schedule to completion, starting now.
     *
     * @throws CollectiveStalledException if some transfer can never arrive (a dependency cycle)
     */
    public RunResult run(Schedule s, StepCosts costs) {
        network.declareRoutes(prepare(s, costs));
        begin();
        engine.run();
        return result();
    }

    /**
     * Sets a run of {@code s} up, starting now, and returns every route its flows can take, for the
     * flow network to be told before any flow starts ({@link #routesOf}); then {@link #begin}, the
     * engine's run and {@link #result}. Several runners on one engine and flow network run their
     * collectives at the same time, contending for the links they share.
     */
    Set<int[]> prepare(Schedule s, StepCosts costs) {
        ProtocolCosts protocolCosts = costs.protocol();
        NvlsCosts nvlsCosts = costs.nvls();
        NvlsCosts sharpCosts = costs.sharp();
        TimeSpan launchLatency = costs.launchLatency();
        CollectiveRequest req = s.request();
        if (req.nRanks() > routes.ranks()) {
            throw new IllegalArgumentException(req.nRanks() + " ranks but only " + routes.ranks() + " GPUs");
        }
        this.schedule = s;
        this.wireFactor = 1.0 / req.protocol().wireEfficiency();
        // A point-to-point channel's warps split between its send and its receive (NCCL's sendrecv.h), so
        // under Simple, whose channel rate is its warps' copying, each direction gets half a channel; LL's
        // channel rate is its flag lines' (NCCL's llMaxBw), which the split does not halve. Towards a
        // network peer a channel carries at most NCCL's own per-channel figure (P2P_PER_CHANNEL_NET_BW).
        boolean p2p = req.op().pointToPoint();
        double share = p2p && req.protocol() == Protocol.SIMPLE ? P2P_DIRECTION_SHARE : 1;
        this.capWireRate = protocolCosts.channelRate().bytesPerSecond() * wireFactor * share;
        this.netCapWireRate = p2p ? Math.min(capWireRate, NET_P2P_CHANNEL_BYTES_PER_S * wireFactor) : capWireRate;
        this.sendOverhead = protocolCosts.sendOverhead().picos();
        this.localCopy = protocolCosts.localCopyRate();
        this.localCopyRate = localCopy.bytesPerSecond();
        this.notifyLatency = protocolCosts.notifyLatency().picos();
        this.netLatency = protocolCosts.netLatency().picos();
        this.proxyPost = protocolCosts.proxyPost().picos();
        this.proxyReceive = protocolCosts.proxyReceive().picos();
        this.nvls = nvlsCosts;
        this.sharp = sharpCosts;
        int n = s.transferCount();
        waiting = new int[n];
        readyAt = new long[n];
        begun = new BitSet(n);
        arrived = new BitSet(n);
        successors = new int[s.maxSuccessors()];
        done = 0;
        prepareStaging(s);
        this.launchLatency = launchLatency.picos();
        return routesOf(s);
    }

    /** Starts the run now: schedules the transfers that wait on nothing, at the kernel's start. */
    void begin() {
        begin(null);
    }

    /** {@link #begin()}, and {@code onEnd} runs on the engine at the instant the last transfer arrives. */
    void begin(Event onEnd) {
        this.onEnd = onEnd;
        Schedule s = schedule;
        int n = s.transferCount();
        origin = engine.now();
        last = origin;
        long kernelStart = origin + launchLatency;
        Arrays.fill(readyAt, kernelStart);
        proxyFreeAt = new long[routes.ranks()];
        Arrays.fill(proxyFreeAt, kernelStart);
        s.countPredecessors(waiting);
        for (int t = 0; t < n; t++) {
            if (waiting[t] == 0) {
                engine.schedule(kernelStart, startHandler, t);
            }
        }
        if (n == 0 && onEnd != null) {
            engine.schedule(origin, onEnd);
        }
    }

    /**
     * What the run produced, once the engine has run; on a flow network several runs share, the
     * bytes per link are what all of them put there.
     *
     * @throws CollectiveStalledException if some transfer can never arrive (a dependency cycle)
     */
    RunResult result() {
        Schedule s = schedule;
        if (done != s.transferCount()) {
            throw stalled();
        }
        long[] linkBytes = new long[routes.fabric().links().size()];
        for (int l = 0; l < linkBytes.length; l++) {
            linkBytes[l] = orbits == null ? network.bytesCarried(l) : orbits.crossed(l) ? network.bytesCarried(orbits.firstLink(l)) : 0;
        }
        return new RunResult(s, last - origin, linkBytes);
    }

    /**
     * Every route the schedule's flows can take, for the flow network to find the links that always
     * carry the same flows: each point-to-point transfer's (or, staged, its legs'), and the routes up
     * and down of every switch an in-switch or in-network operation uses. Looking them up fills the
     * caches the run then reads.
     */
    private Set<int[]> routesOf(Schedule s) {
        s.representatives().forEach(t -> {
            switch (s.kind(t)) {
                case P2P -> {
                    if (staged != null && staged[t]) {
                        writeRoute(t);
                        readRoute(t);
                        if (route(t).viaNic()) {
                            routes.network(s.src(t), s.dst(t));
                        }
                    } else {
                        route(t);
                    }
                }
                case SWITCH_ALLREDUCE, SWITCH_REDUCE, SWITCH_MULTICAST, NETWORK_ALLREDUCE -> hubGroupOf(t);
                case LOCAL_COPY -> { }
            }
        });
        return routes.found();
    }

    private void start(int t) {
        if (staged != null && staged[t]) {
            int gate = gates.gate(schedule.src(t), schedule.channel(t));
            if (gates.offer(gate, 2 * t)) {
                runNext(gate);
            }
            return;
        }
        long now = engine.now();
        begin(t, now);
        long bytes = schedule.bytes(t);
        TransferKind kind = schedule.kind(t);
        if (bytes == 0) {
            // No data, but the step's flag still crosses the route.
            finish(t, kind, now, kind == TransferKind.P2P ? routeLatency(route(t)) : 0);
            return;
        }
        switch (kind) {
            case SWITCH_ALLREDUCE, SWITCH_REDUCE, SWITCH_MULTICAST -> startSwitchOperation(t, kind, bytes);
            case NETWORK_ALLREDUCE -> startNetworkAllReduce(t, bytes);
            // NVLS's scatter and gather warps copy at their own rate; other kernels' threads (or the copy engine) at the local-copy rate.
            case LOCAL_COPY -> engine.schedule(now + (nvls != null ? nvls.copyRate() : localCopy).picosFor(bytes), copiedHandler, t);
            case P2P -> {
                waiting[t] = 1;
                Route r = route(t);
                if (r.viaNic() && proxyPost > 0) {
                    post(t, now);
                }
                startFlow(t, r);
            }
        }
    }

    /**
     * The sender's proxy posts network step {@code t} while the NIC may still be sending the one
     * before, so the post delays the step's arrival, not the wire; a busy proxy makes posts queue. A
     * transfer that continues its predecessor's step went with that post.
     */
    private void post(int t, long now) {
        if (schedule.postedWithPrevious(t)) {
            readyAt[t] = Math.max(now, readyAt[t - 1]);
            return;
        }
        int src = proxyOf(schedule.src(t));
        proxyFreeAt[src] = Math.max(now, proxyFreeAt[src]) + proxyPost;
        readyAt[t] = proxyFreeAt[src];
    }

    private void startFlow(int t, Route r) {
        network.start(r.links(), schedule.bytes(t) * wireFactor,
                (r.viaNic() ? netCapWireRate : capWireRate) * schedule.threadShare(t), this, t);
    }

    /** The rank whose proxy thread does a rank's network work: its own, or in a folded run its orbit's first. */
    private int proxyOf(int rank) {
        return orbits == null ? rank : orbits.firstRank(rank);
    }

    /** A point-to-point step's latency after its last byte has left: the route's, and the network's across nodes. */
    private long routeLatency(Route r) {
        return r.latencyPicos() + (r.viaNic() ? netLatency : 0);
    }

    /**
     * Starts the flows of an in-switch operation over the ranks on the switch of its head (its
     * receiver for a reduction, its sender otherwise). All-reduce: every rank up and down, each
     * {@code data x (1 + 1/ranks)}. Reduction: every rank up, the head down. Multicast: the head up,
     * every rank down. Wire bytes are data over the NVLS efficiency.
     */
    private void startSwitchOperation(int t, TransferKind kind, long bytes) {
        if (nvls == null) {
            throw new IllegalStateException("an NVLS operation without NVLS costs");
        }
        int head = schedule.anchor(t);
        RunRoutes.HubGroup g = hubGroupOf(t);
        if (g == null) {
            throw new IllegalStateException("rank " + head + " has no NVLS switch");
        }
        int members = g.ranks().length;
        double data = kind == TransferKind.SWITCH_ALLREDUCE ? bytes * (1 + 1.0 / members) : bytes;
        double legBytes = data / nvls.efficiency();
        double cap = nvls.channelRate().bytesPerSecond() / nvls.efficiency();
        for (int m = 0; m < members; m++) {
            int r = g.ranks()[m];
            boolean up = kind != TransferKind.SWITCH_MULTICAST || r == head;
            boolean down = kind != TransferKind.SWITCH_REDUCE || r == head;
            if (up) {
                network.start(g.up()[m].links(), legBytes, cap, this, t);
                waiting[t]++;
            }
            if (down) {
                network.start(g.down()[m].links(), legBytes, cap, this, t);
                waiting[t]++;
            }
        }
    }

    /** The group an in-switch or in-network transfer runs on, or null if its rank has no such switch. */
    private RunRoutes.HubGroup hubGroupOf(int t) {
        int anchor = schedule.anchor(t);
        return schedule.kind(t) == TransferKind.NETWORK_ALLREDUCE ? routes.sharpGroup(anchor) : routes.switchGroup(anchor);
    }

    /** The route of a point-to-point transfer. */
    private Route route(int t) {
        return routes.direct(schedule.src(t), schedule.dst(t));
    }

    /** Every rank of the SHARP group sends the piece up through its NIC and gets the sum back down. */
    private void startNetworkAllReduce(int t, long bytes) {
        RunRoutes.HubGroup g = sharp == null ? null : hubGroupOf(t);
        if (g == null) {
            throw new IllegalStateException("an in-network all-reduce without a SHARP switch");
        }
        double legBytes = bytes / sharp.efficiency();
        double cap = sharp.channelRate().bytesPerSecond() / sharp.efficiency();
        for (int m = 0; m < g.ranks().length; m++) {
            network.start(g.up()[m].links(), legBytes, cap, this, t);
            network.start(g.down()[m].links(), legBytes, cap, this, t);
            waiting[t] += 2;
        }
    }

    /** Transfer t starts now. */
    private void begin(int t, long now) {
        readyAt[t] = now;
        begun.set(t);
        if (observer != null) {
            observer.started(t, now);
        }
    }

    /** Transfer t's data is in its receiver's own memory from {@code at}: the transfer is done. */
    private void received(int t, long at) {
        arrived.set(t);
        last = Math.max(last, at);
        done++;
        if (observer != null) {
            observer.received(t, at);
        }
        if (done == schedule.transferCount() && onEnd != null) {
            engine.schedule(last, onEnd);
        }
    }

    private void copied(int t) {
        finish(t, TransferKind.LOCAL_COPY, engine.now(), 0);
    }

    @Override
    public void transferred(int t) {
        int n = schedule.transferCount();
        if (t >= 2 * n) {
            networkEnded(t - 2 * n);
        } else if (t >= n) {
            readEnded(t - n);
        } else if (staged != null && staged[t]) {
            writeEnded(t);
        } else if (--waiting[t] == 0) {
            TransferKind kind = schedule.kind(t);
            finish(t, kind, engine.now(), kind == TransferKind.P2P ? routeLatency(route(t)) : hubGroupOf(t).latency());
        }
    }

    private void finish(int t, TransferKind kind, long end, long routeLatency) {
        long freeAt = end + switch (kind) {
            case P2P -> senderBusy(t);
            case SWITCH_ALLREDUCE, SWITCH_REDUCE, SWITCH_MULTICAST -> nvls.stepOverhead().picos();
            case NETWORK_ALLREDUCE -> sharp.stepOverhead().picos();
            case LOCAL_COPY -> 0;
        };
        long stepLatency = routeLatency + switch (kind) {
            case P2P -> notifyLatency;
            case SWITCH_ALLREDUCE, SWITCH_REDUCE, SWITCH_MULTICAST -> nvls.notifyLatency().picos();
            case NETWORK_ALLREDUCE -> sharp.notifyLatency().picos();
            case LOCAL_COPY -> 0;
        };
        if (stepJitter != null && kind == TransferKind.P2P) {
            stepLatency = Math.round(stepLatency * stepJitter.getAsDouble());
        }
        long visibleAt = Math.max(freeAt, kind == TransferKind.P2P ? readyAt[t] : 0) + stepLatency;
        if (kind == TransferKind.P2P && proxyReceive > 0 && route(t).viaNic()) {
            // The sender moves on; the receiver's proxy takes the step when it lands, in turn with its other work.
            release(t, true, false, -1, freeAt, freeAt);
            engine.schedule(visibleAt, landedHandler, t);
            return;
        }
        delivered(t, visibleAt);
        release(t, true, true, -1, freeAt, visibleAt);
    }

    /**
     * How long {@code t}'s sending channel stays busy after its last byte left: the protocol's send overhead, and where
     * the step keeps a copy in its own rank's output ({@link Schedule#copiesLocally}), that copy at the channel's rate.
     */
    private long senderBusy(int t) {
        long copy = schedule.copiesLocally(t) ? Math.round(schedule.bytes(t) / (localCopyRate * schedule.threadShare(t)) * 1e12) : 0;
        return sendOverhead + copy;
    }

    /** A network step has landed in its receiver's buffer: the receiver's proxy flushes it, then the GPU may see it. */
    private void landed(int t) {
        int dst = proxyOf(schedule.dst(t));
        proxyFreeAt[dst] = Math.max(engine.now(), proxyFreeAt[dst]) + proxyReceive;
        long visibleAt = proxyFreeAt[dst];
        delivered(t, visibleAt);
        release(t, false, true, -1, visibleAt, visibleAt);
    }

    /** Transfer t's data is visible to its receiver from {@code at}, which has it in its own memory. */
    private void delivered(int t, long at) {
        if (observer != null) {
            observer.delivered(t, at);
        }
        received(t, at);
    }

    /**
     * Releases {@code t}'s successors: with {@code sends}, those waiting for its sender (at {@code
     * freeAt}); with {@code deliveries}, those waiting for its data (at {@code visibleAt}) other than
     * {@code fused}; without, only {@code fused}.
     */
    private void release(int t, boolean sends, boolean deliveries, int fused, long freeAt, long visibleAt) {
        for (int i = 0, count = schedule.successors(t, successors); i < count; i++) {
            int entry = successors[i];
            int next = entry >>> 1;
            boolean delivery = (entry & 1) != 0;
            if (delivery ? deliveries == (next == fused) : !sends) {
                continue;
            }
            long at = delivery ? visibleAt : freeAt;
            if (at > readyAt[next]) {
                readyAt[next] = at;
            }
            if (--waiting[next] == 0) {
                engine.schedule(readyAt[next], startHandler, next);
            }
        }
    }

    // ---- Staging through host memory -------------------------------------------------------------

    /** Marks the staged transfers and pairs each with the send its receiver forwards it in, if any. */
    private void prepareStaging(Schedule s) {
        staged = null;
        if (!routes.staging()) {
            return;
        }
        int n = s.transferCount();
        boolean any = false;
        boolean[] mark = new boolean[n];
        int channels = 1;
        for (int t = 0; t < n; t++) {
            channels = Math.max(channels, s.channel(t) + 1);
            if (s.kind(t) == TransferKind.P2P && routes.staged(s.src(t), s.dst(t))) {
                mark[t] = true;
                any = true;
            }
        }
        if (!any) {
            return;
        }
        staged = mark;
        gates = new ChannelGates(routes.ranks(), channels);
        fusedInto = new int[n];
        fusedHead = new int[n];
        fusedNext = new int[n];
        Arrays.fill(fusedInto, -1);
        Arrays.fill(fusedHead, -1);
        for (int u = 0; u < n; u++) {
            if (!staged[u]) {
                continue;
            }
            for (int i = 0, count = s.successors(u, successors); i < count; i++) {
                int entry = successors[i];
                int t = entry >>> 1;
                if ((entry & 1) != 0 && staged[t] && s.src(t) == s.dst(u) && s.channel(t) == s.channel(u)) {
                    fusedInto[u] = t;
                    fusedNext[u] = fusedHead[t];
                    fusedHead[t] = u;
                    break;
                }
            }
        }
    }

    /** Legs of a primitive: {@code 2t} writes {@code t} and reads what it forwards; {@code 2u+1} reads {@code u}. */
    private int legsOf(int primitive) {
        if ((primitive & 1) != 0) {
            return 1;
        }
        int legs = 1;
        for (int u = fusedHead[primitive >> 1]; u >= 0; u = fusedNext[u]) {
            legs++;
        }
        return legs;
    }

    /** Starts the next waiting primitive on an idle gate. */
    private void runNext(int gate) {
        int primitive = gates.next(gate, this::legsOf);
        if (primitive < 0) {
            return;
        }
        if ((primitive & 1) != 0) {
            startRead(primitive >> 1);
            return;
        }
        int t = primitive >> 1;
        long now = engine.now();
        begin(t, now);
        for (int u = fusedHead[t]; u >= 0; u = fusedNext[u]) {
            startRead(u);
        }
        startLeg(writeRoute(t).links(), schedule.bytes(t), t);
    }

    private void startRead(int u) {
        startLeg(readRoute(u).links(), schedule.bytes(u), schedule.transferCount() + u);
    }

    private void startLeg(int[] links, long bytes, int tag) {
        if (bytes == 0) {
            engine.schedule(engine.now(), legEndHandler, tag);
        } else {
            int n = schedule.transferCount();
            double cap = capWireRate * schedule.threadShare(tag < n ? tag : tag - n) / HOST_ACCESS_EFFICIENCY;
            network.start(links, bytes * wireFactor / HOST_ACCESS_EFFICIENCY, cap, this, tag);
        }
    }

    private Route writeRoute(int t) {
        return routes.write(schedule.src(t), schedule.dst(t));
    }

    private Route readRoute(int t) {
        return routes.read(schedule.src(t), schedule.dst(t));
    }

    /** The data is in the sender's host memory: the sender moves on; across nodes the NICs take it on. */
    private void writeEnded(int t) {
        long freeAt = engine.now() + senderBusy(t);
        release(t, true, false, -1, freeAt, freeAt);
        legEnded(schedule.src(t), schedule.channel(t));
        if (route(t).viaNic()) {
            engine.schedule(freeAt + writeRoute(t).latencyPicos(), networkLegHandler, t);
        } else {
            arrived(t, freeAt + writeRoute(t).latencyPicos() + notifyLatency);
        }
    }

    private void startNetworkLeg(int t) {
        // The NICs' RDMA between host memories: no kernel access, so the link rates apply as they are.
        int[] links = routes.network(schedule.src(t), schedule.dst(t)).links();
        if (schedule.bytes(t) == 0) {
            engine.schedule(engine.now(), legEndHandler, 2 * schedule.transferCount() + t);
        } else {
            network.start(links, schedule.bytes(t) * wireFactor, Double.POSITIVE_INFINITY, this, 2 * schedule.transferCount() + t);
        }
    }

    private void networkEnded(int t) {
        arrived(t, engine.now() + routes.network(schedule.src(t), schedule.dst(t)).latencyPicos() + netLatency + notifyLatency);
    }

    /** The data is in the receiver's host memory, visible to it from {@code visibleAt}. */
    private void arrived(int t, long visibleAt) {
        if (observer != null) {
            observer.delivered(t, visibleAt);
        }
        if (fusedInto[t] >= 0) {
            release(t, false, false, fusedInto[t], visibleAt, visibleAt);
        } else {
            engine.schedule(visibleAt, offerReadHandler, t);
        }
    }

    private void offerRead(int u) {
        int gate = gates.gate(schedule.dst(u), schedule.channel(u));
        if (gates.offer(gate, 2 * u + 1)) {
            runNext(gate);
        }
    }

    /** The receiver has read the data into its own memory. */
    private void readEnded(int u) {
        long at = engine.now() + readRoute(u).latencyPicos();
        received(u, at);
        release(u, false, true, fusedInto[u], at, at);
        legEnded(schedule.dst(u), schedule.channel(u));
    }

    private void legEnded(int rank, int channel) {
        int gate = gates.gate(rank, channel);
        if (gates.legDone(gate)) {
            runNext(gate);
        }
    }

    /** The transfers that never arrived, the ranks left waiting for them, and why the first one never did. */
    private CollectiveStalledException stalled() {
        int n = schedule.transferCount();
        BitSet waitingRanks = new BitSet();
        int missing = -1;
        for (int t = 0; t < n; t++) {
            if (arrived.get(t)) {
                continue;
            }
            waitingRanks.set(schedule.dst(t) == Schedule.ALL ? schedule.src(t) : schedule.dst(t));
            boolean betterExample = missing < 0 || (begun.get(t) && !begun.get(missing));
            if (betterExample) {
                missing = t;
            }
        }
        int[] ranks = waitingRanks.stream().toArray();
        String why;
        if (begun.get(missing)) {
            why = "started at " + micros(readyAt[missing]) + " and never arrived";
        } else {
            int before = undeliveredPredecessor(missing);
            why = "never started: it waits for " + waiting[missing] + " transfer(s) that never arrive"
                    + (before < 0 ? "" : ", e.g. " + describe(before) + (!begun.get(before) && waiting[before] > 0 ? ", itself waiting" : ""))
                    + " (a dependency cycle)";
        }
        String message = schedule.request().op().ncclName() + " (" + schedule.algorithm() + ", " + schedule.request().nRanks()
                + " ranks) stalled at " + micros(Math.max(last, engine.now())) + ": " + (n - done) + " of " + n
                + " transfers never arrived; ranks " + waitingRanks.stream().mapToObj(Integer::toString).collect(Collectors.joining(", "))
                + " wait for data; " + describe(missing) + " " + why;
        return new CollectiveStalledException(message, ranks, missing);
    }

    private int undeliveredPredecessor(int t) {
        int n = schedule.transferCount();
        for (int p = 0; p < n; p++) {
            for (int i = 0, count = schedule.successors(p, successors); i < count; i++) {
                if (successors[i] >>> 1 == t && !arrived.get(p)) {
                    return p;
                }
            }
        }
        return -1;
    }

    private String describe(int t) {
        String to = schedule.dst(t) == Schedule.ALL ? "all" : "rank " + schedule.dst(t);
        String from = schedule.src(t) == Schedule.ALL ? "all" : "rank " + schedule.src(t);
        return "transfer " + t + " (" + from + " -> " + to + ", channel " + schedule.channel(t) + ", step "
                + schedule.step(t) + ")";
    }

    private String micros(long picos) {
        return String.format(Locale.ROOT, "%.3f us", (picos - origin) / 1e6);
    }
}
