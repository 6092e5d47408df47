package dev.collsim.core.flow;

import dev.collsim.core.engine.Engine;
import dev.collsim.core.engine.Event;
import dev.collsim.core.engine.IndexedEvent;
import dev.collsim.core.units.TimeSpan;
import java.util.Arrays;
import java.util.Collection;

/**
 * Flows of bytes over routes of directed links, in time: each flow's rate is its max-min fair share
 * ({@link MaxMinSolver}), and its end a timer on the engine, moved whenever its rate changes.
 *
 * <p>All starts and finishes at one instant are resolved together by a single event at that instant
 * (no time passes between them, so the result is the same as resolving each). Latency is not
 * modelled here: a flow ends when its last byte has been sent, and the caller adds the route's
 * latency.
 *
 * <p>Flows started at the same instant over the same links with the same bytes and rate cap are
 * held as one flow of that many members: max-min fairness treats such flows alike in every round,
 * so they always share one rate and end together. When the flow ends every member's listener is
 * told, in the order they started. Collectives start many such flows (every rank's leg of the switch
 * operations of one step, the same step on channels that share links), and holding them once cuts
 * the solver's work without changing a rate.
 *
 * <p>Flow state lives in primitive arrays indexed by flow slot, shared with the solver's numbering,
 * so the steady state allocates nothing.
 */
public final class FlowNetwork {
    private final Engine engine;
    private final MaxMinSolver solver;
    private final long[] linkBytesCarried;

    // Flow slots.
    private double[] remaining;
    private double[] totalBytes;
    private long[] lastUpdate;
    private int[] timer;
    private int[] tag;
    /** Tags of a flow's members after the first, in the order they started. */
    private int[][] laterTags;
    private FlowListener[] listener;
    /** Each flow's path as its starter gave it, for the link rate listener. */
    private int[][] path;
    private LinkRateListener rates;
    private int[] freeFlows;
    private int freeCount;
    private int flowSlots;
    private int activeCount;

    private boolean resolveScheduled;

    // Flows started at this instant and not yet rated, by what a later start must match to join them.
    private int[] joinTable = new int[64];
    private int[] joinStamp = new int[64];
    private int joinEpoch = 1;
    private int joinCount;
    private final IndexedEvent completion = this::complete;
    private final Event resolution = this::resolve;
    private final MaxMinSolver.RateChange rateMoved = this::rateMoved;

    /**
     * @param engine            the engine whose clock the flows follow
     * @param bytesPerSecond    the capacity of each link, by link id, in bytes per second
     */
    public FlowNetwork(Engine engine, double[] bytesPerSecond) {
        this.engine = engine;
        this.solver = new MaxMinSolver(bytesPerSecond);
        linkBytesCarried = new long[bytesPerSecond.length];
        allocateFlowSlots(64);
    }

    /** Asks every resolution to verify that no link carries more than its capacity. For tests. */
    public void setCheckCapacity(boolean check) {
        solver.setCheckCapacity(check);
    }

    /** Highest sum of rates over capacity seen on any link while checking was on (at most 1). */
    public double maxUtilisation() {
        return solver.maxUtilisation();
    }

    /** Tells {@code listener} of every change of the rate crossing links (null: no one). */
    public void setLinkRateListener(LinkRateListener listener) {
        this.rates = listener;
    }

    /** Transfers in flight: every member of every flow. */
    public int activeFlows() {
        return activeCount;
    }

    /** Bytes that finished crossing each link so far, by link id. */
    public long bytesCarried(int link) {
        return linkBytesCarried[solver.standIn(link)];
    }

    /** Declares every route a flow will take, before the first flow starts: see {@link MaxMinSolver#declareRoutes}. */
    public void declareRoutes(Collection<int[]> routes) {
        solver.declareRoutes(routes);
    }

    /**
     * Changes a link's capacity from now on (a link degraded, or nearly down for a while and then
     * back); the flows that share its component are re-rated at this instant.
     */
    public void setCapacity(int link, double bytesPerSecond) {
        solver.setCapacity(link, bytesPerSecond);
        resolveThisInstant();
    }

    /** Current rate of a flow in bytes per second (0 until the instant it started is resolved). */
    public double rate(int flow) {
        return solver.rate(flow);
    }

    /**
     * Starts a flow of {@code bytes} over {@code path} (link ids, owned by the caller and not
     * modified; a declared route, once routes are declared), no faster than {@code
     * maxBytesPerSecond}. Returns the flow's slot number, shared with the flows it was found
     * identical to.
     */
    public int start(int[] path, double bytes, double maxBytesPerSecond, FlowListener onDone, int flowTag) {
        if (!(bytes > 0) || path.length == 0) {
            throw new IllegalArgumentException("a flow needs bytes > 0 and at least one link");
        }
        if (!(maxBytesPerSecond > 0)) {
            throw new IllegalArgumentException("a flow's rate cap must be positive");
        }
        int[] links = solver.linksOf(path);
        activeCount++;
        int hash = joinHash(links, bytes, maxBytesPerSecond, onDone);
        int at = findJoin(hash, links, bytes, maxBytesPerSecond, onDone);
        if (at >= 0) {
            join(joinTable[at], flowTag);
            return joinTable[at];
        }
        int f = takeFlowSlot();
        remaining[f] = bytes;
        totalBytes[f] = bytes;
        lastUpdate[f] = engine.now();
        tag[f] = flowTag;
        listener[f] = onDone;
        this.path[f] = path;
        solver.add(f, links, maxBytesPerSecond);
        addJoinable(-at - 1, f, hash);
        resolveThisInstant();
        return f;
    }

    /** One more member for flow {@code f}, started at the same instant as it and not yet rated. */
    private void join(int f, int flowTag) {
        int later = solver.members(f) - 1;
        if (laterTags[f] == null || laterTags[f].length == later) {
            laterTags[f] = laterTags[f] == null ? new int[4] : Arrays.copyOf(laterTags[f], later * 2);
        }
        laterTags[f][later] = flowTag;
        solver.addMember(f);
        resolveThisInstant();
    }

    private static int joinHash(int[] links, double bytes, double cap, FlowListener onDone) {
        int h = Arrays.hashCode(links);
        h = 31 * h + Double.hashCode(bytes);
        h = 31 * h + Double.hashCode(cap);
        h = 31 * h + System.identityHashCode(onDone);
        return h ^ (h >>> 16);
    }

    /**
     * The join table's slot holding a flow of this instant that a start with these arguments joins,
     * or {@code -(free slot) - 1} where such a flow would go.
     */
    private int findJoin(int hash, int[] links, double bytes, double cap, FlowListener onDone) {
        int mask = joinTable.length - 1;
        for (int i = hash & mask; ; i = (i + 1) & mask) {
            if (joinStamp[i] != joinEpoch) {
                return -i - 1;
            }
            int f = joinTable[i];
            int[] route = solver.route(f);
            if (totalBytes[f] == bytes && solver.rateCap(f) == cap && listener[f] == onDone
                    && (route == links || Arrays.equals(route, links))) {
                return i;
            }
        }
    }

    private void addJoinable(int at, int f, int hash) {
        joinTable[at] = f;
        joinStamp[at] = joinEpoch;
        if (++joinCount * 2 > joinTable.length) {
            int[] oldTable = joinTable;
            int[] oldStamp = joinStamp;
            joinTable = new int[oldTable.length * 2];
            joinStamp = new int[oldTable.length * 2];
            int mask = joinTable.length - 1;
            for (int i = 0; i < oldTable.length; i++) {
                if (oldStamp[i] == joinEpoch) {
                    int g = oldTable[i];
                    int j = joinHash(solver.route(g), totalBytes[g], solver.rateCap(g), listener[g]) & mask;
                    while (joinStamp[j] == joinEpoch) {
                        j = (j + 1) & mask;
                    }
                    joinTable[j] = g;
                    joinStamp[j] = joinEpoch;
                }
            }
        }
    }

    private void complete(int f) {
        int n = solver.members(f);
        long bytes = Math.round(totalBytes[f]) * n;
        for (int l : solver.route(f)) {
            linkBytesCarried[l] += bytes;
        }
        if (rates != null) {
            rates.rateChanged(engine.now(), path[f], -n * solver.rate(f));
        }
        path[f] = null;
        solver.remove(f);
        resolveThisInstant();
        FlowListener onDone = listener[f];
        int flowTag = tag[f];
        // A listener may start a flow in this slot again; the later tags stay with this flow.
        int[] later = laterTags[f];
        laterTags[f] = null;
        activeCount -= n;
        listener[f] = null;
        freeFlows[freeCount++] = f;
        onDone.transferred(flowTag);
        for (int i = 0; i < n - 1; i++) {
            onDone.transferred(later[i]);
        }
        if (laterTags[f] == null) {
            laterTags[f] = later;
        }
    }

    private void resolveThisInstant() {
        if (!resolveScheduled) {
            resolveScheduled = true;
            engine.schedule(engine.now(), resolution);
        }
    }

    /** Re-rates what the starts, ends and capacity changes of this instant reach, and moves the ends of the flows whose rate moved. */
    private void resolve() {
        resolveScheduled = false;
        if (joinCount > 0) {
            joinCount = 0;
            if (++joinEpoch == Integer.MAX_VALUE) {
                Arrays.fill(joinStamp, 0);
                joinEpoch = 1;
            }
        }
        solver.solve(rateMoved);
    }

    /** Charges a flow the bytes it sent at its old rate, and moves its end to match the new one. */
    private void rateMoved(int f, double oldRate, double newRate) {
        long now = engine.now();
        double sent = oldRate * (now - lastUpdate[f]) / TimeSpan.PICOS_PER_SECOND;
        remaining[f] = Math.max(0, remaining[f] - sent);
        lastUpdate[f] = now;
        // A link taken nearly down leaves its flows crawling: their end is far away, not past the clock's range.
        long dt = (long) Math.min(Math.ceil(remaining[f] / newRate * TimeSpan.PICOS_PER_SECOND), Long.MAX_VALUE / 4.0);
        engine.setTimer(timer[f], now + dt);
        if (rates != null) {
            rates.rateChanged(now, path[f], solver.members(f) * (newRate - oldRate));
        }
    }

    private int takeFlowSlot() {
        if (freeCount == 0) {
            allocateFlowSlots(flowSlots * 2);
        }
        return freeFlows[--freeCount];
    }

    private void allocateFlowSlots(int newSize) {
        int old = flowSlots;
        remaining = grow(remaining, newSize);
        totalBytes = grow(totalBytes, newSize);
        lastUpdate = lastUpdate == null ? new long[newSize] : Arrays.copyOf(lastUpdate, newSize);
        timer = timer == null ? new int[newSize] : Arrays.copyOf(timer, newSize);
        tag = tag == null ? new int[newSize] : Arrays.copyOf(tag, newSize);
        laterTags = laterTags == null ? new int[newSize][] : Arrays.copyOf(laterTags, newSize);
        listener = listener == null ? new FlowListener[newSize] : Arrays.copyOf(listener, newSize);
        path = path == null ? new int[newSize][] : Arrays.copyOf(path, newSize);
        freeFlows = freeFlows == null ? new int[newSize] : Arrays.copyOf(freeFlows, newSize);
        // Hand out low slot numbers first, so runs are easy to read in a debugger.
        for (int f = newSize - 1; f >= old; f--) {
            timer[f] = engine.newTimer(completion, f);
            freeFlows[freeCount++] = f;
        }
        flowSlots = newSize;
    }

    private static double[] grow(double[] a, int n) {
        return a == null ? new double[n] : Arrays.copyOf(a, n);
    }
}
