package dev.collsim.core.flow;

import dev.collsim.core.engine.Engine;
import dev.collsim.core.engine.Event;
import dev.collsim.core.engine.IndexedEvent;
import dev.collsim.core.units.TimeSpan;
import java.nio.IntBuffer;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * Flows of bytes over routes of directed links, sharing every link by max-min fairness.
 *
 * <p>Each flow may carry its own rate cap (what one channel can push). Rates are found by
 * progressive filling: raise every unfrozen flow's rate together until a link is full or a flow
 * reaches its cap, freeze the flows held there, and repeat. All starts and finishes at one instant
 * are resolved together by a single event at that instant (no time passes between them, so the
 * result is the same as resolving each). Only the flows a change reaches are re-rated: those on the
 * changed links first, against the others at their rates, then also each flow the new rates leave
 * without a full link it is fastest on, until none is left; a ripple that keeps going re-rates the
 * whole connected component instead. In a large collective a change moves a few dozen flows of a
 * component of thousands. Latency is not modelled here: a flow ends when its last byte has been
 * sent, and the caller adds the route's latency.
 *
 * <p>Flows started at the same instant over the same links with the same bytes and rate cap are
 * held as one flow of that many members: max-min fairness treats such flows alike in every round
 * (whether a flow is held depends only on its cap and its links), so they always share one rate
 * and end together. Each member counts on its links as a flow of its own; when the flow ends every
 * member's listener is told, in the order they started. Collectives start many such flows (every
 * rank's leg of the switch operations of one step, the same step on channels that share links), and
 * holding them once cuts the solver's work without changing a rate.
 *
 * <p>When the routes flows will take are {@linkplain #declareRoutes declared} up front, links that
 * exactly the same routes cross are one constraint to the solver (see there): it re-rates fewer
 * links, and every rate stays the same to the bit.
 *
 * <p>Flow and link state lives in primitive arrays indexed by flow slot and link id; the solver
 * reuses its scratch arrays, so the steady state allocates nothing.
 */
public final class FlowNetwork {
    private static final double RELATIVE_EPSILON = 1e-12;
    /**
     * How far, relative, a rate may sit from max-min fairness's condition and still count as meeting
     * it, when only part of a component is re-rated: well above the filling's rounding, well below
     * anything a result shows.
     */
    private static final double HELD_TOLERANCE = 1e-9;
    /** Rounds of growing the re-rated set before the whole component is re-rated instead. */
    private static final int LOCAL_ROUNDS = 8;

    private final Engine engine;
    /** What the solver shares out on each link: for a set of twin links, the least of their rates, on the one that stands for them. */
    private final double[] capacity;
    /** Each link's own rate. */
    private final double[] linkRate;
    /** The link that stands for each link in the solver: itself, or its twin with the lowest id. */
    private final int[] twinOf;
    /** Each declared route as the solver sees it (one link of each set of twins), or null: routes as given. */
    private IdentityHashMap<int[], int[]> solverRoutes;
    private boolean started;
    private final long[] linkBytesCarried;
    private int[][] linkFlows;
    private final int[] linkFlowCount;
    /** Members of the flows on each link: what the link's share is divided by. */
    private final int[] linkMembers;

    // Flow slots.
    private double[] remaining;
    private double[] totalBytes;
    private double[] rate;
    private double[] rateCap;
    private long[] lastUpdate;
    private int[][] route;
    private int[][] posInLink;
    private int[] timer;
    private int[] tag;
    private int[] members;
    /** Tags of a flow's members after the first, in the order they started. */
    private int[][] laterTags;
    private FlowListener[] listener;
    private boolean[] active;
    private int[] freeFlows;
    private int freeCount;
    private int flowSlots;
    private int activeCount;

    // Pending resolution of the current instant.
    private int[] dirtyLinks;
    private int dirtyCount;
    private final boolean[] linkDirty;
    private boolean resolveScheduled;

    // Flows started at this instant and not yet rated, by what a later start must match to join them.
    private int[] joinTable = new int[64];
    private int[] joinStamp = new int[64];
    private int joinEpoch = 1;
    private int joinCount;
    private final IndexedEvent completion = this::complete;
    private final Event resolution = this::resolve;

    // Solver scratch.
    private final int[] linkStamp;
    private int[] flowStamp;
    private int epoch;
    private int[] compFlows;
    private int[] compLinks;
    private final double[] linkRemaining;
    /** Room left over unfrozen members, per link, in the current round of filling. */
    private final double[] linkShare;
    private final int[] linkUnfrozen;
    private double[] newRate;
    /** The link whose share set each flow's rate when it was last rated, or -1 for its cap. */
    private int[] heldBy;
    /** The fastest flow on each touched link among those not being re-rated. */
    private final double[] linkFastestHeld;
    private int nFlows;
    private int nLinks;
    /** Room for every flow slot: the filling's newly frozen, the flows to admit. */
    private int[] flowScratch;

    private boolean checkCapacity;
    private double maxUtilisation;

    /**
     * @param engine            the engine whose clock the flows follow
     * @param bytesPerSecond    the capacity of each link, by link id, in bytes per second
     */
    public FlowNetwork(Engine engine, double[] bytesPerSecond) {
        this.engine = engine;
        int links = bytesPerSecond.length;
        this.capacity = bytesPerSecond.clone();
        for (int l = 0; l < links; l++) {
            if (!(capacity[l] > 0) || Double.isInfinite(capacity[l])) {
                throw new IllegalArgumentException("link " + l + " has capacity " + capacity[l] + " B/s");
            }
        }
        linkRate = capacity.clone();
        twinOf = new int[links];
        Arrays.setAll(twinOf, l -> l);
        linkBytesCarried = new long[links];
        linkFlows = new int[links][];
        for (int l = 0; l < links; l++) {
            linkFlows[l] = new int[4];
        }
        linkFlowCount = new int[links];
        linkMembers = new int[links];
        linkDirty = new boolean[links];
        dirtyLinks = new int[Math.max(4, links)];
        linkStamp = new int[links];
        compLinks = new int[links];
        linkRemaining = new double[links];
        linkShare = new double[links];
        linkUnfrozen = new int[links];
        linkFastestHeld = new double[links];
        allocateFlowSlots(64);
        compFlows = new int[64];
    }

    /** Asks every resolution to verify that no link carries more than its capacity. For tests. */
    public void setCheckCapacity(boolean check) {
        this.checkCapacity = check;
    }

    /** Highest sum of rates over capacity seen on any link while checking was on (at most 1). */
    public double maxUtilisation() {
        return maxUtilisation;
    }

    /** Transfers in flight: every member of every flow. */
    public int activeFlows() {
        return activeCount;
    }

    /** Bytes that finished crossing each link so far, by link id. */
    public long bytesCarried(int link) {
        return linkBytesCarried[twinOf[link]];
    }

    /**
     * Declares every route a flow will take, before the first flow starts; after this, a flow over
     * any other route is refused. Links that exactly the same declared routes cross are twins: they
     * always carry the same flows, in the same order on each. Of a set of twins the solver keeps one,
     * with the least of their rates: another can never hold a flow that one does not, as its share
     * of the same flows is never the smaller (subtraction and division round monotonically), nor
     * join flows it does not join. So every rate, and the order in which the re-rating meets flows
     * and links (each set of twins is met where its first link would be), is the same, while the
     * re-rating visits fewer links: a collective's network routes cross several links in a row that
     * carry the same flows.
     */
    public void declareRoutes(Collection<int[]> routes) {
        if (started || solverRoutes != null) {
            throw new IllegalStateException("routes are declared once, before the first flow");
        }
        IdentityHashMap<int[], Integer> index = new IdentityHashMap<>();
        for (int[] route : routes) {
            index.putIfAbsent(route, index.size());
        }
        int links = capacity.length;
        int[][] crossing = new int[links][];
        int[] count = new int[links];
        for (Map.Entry<int[], Integer> e : index.entrySet()) {
            for (int l : e.getKey()) {
                if (crossing[l] == null || crossing[l].length == count[l]) {
                    crossing[l] = crossing[l] == null ? new int[4] : Arrays.copyOf(crossing[l], count[l] * 2);
                }
                crossing[l][count[l]++] = e.getValue();
            }
        }
        Map<IntBuffer, Integer> standIn = new HashMap<>();
        for (int l = 0; l < links; l++) {
            if (count[l] > 0) {
                Arrays.sort(crossing[l], 0, count[l]);
                Integer first = standIn.putIfAbsent(IntBuffer.wrap(crossing[l], 0, count[l]), l);
                twinOf[l] = first == null ? l : first;
            }
        }
        for (int l = 0; l < links; l++) {
            capacity[twinOf[l]] = Math.min(capacity[twinOf[l]], linkRate[l]);
        }
        solverRoutes = new IdentityHashMap<>();
        for (int[] route : index.keySet()) {
            int[] solver = new int[route.length];
            int n = 0;
            for (int l : route) {
                int t = twinOf[l];
                boolean seen = false;
                for (int i = 0; i < n && !seen; i++) {
                    seen = solver[i] == t;
                }
                if (!seen) {
                    solver[n++] = t;
                }
            }
            solverRoutes.put(route, Arrays.copyOf(solver, n));
        }
    }

    /**
     * Changes a link's capacity from now on (a link degraded, or nearly down for a while and then
     * back); the flows that share its component are re-rated at this instant.
     */
    public void setCapacity(int link, double bytesPerSecond) {
        if (!(bytesPerSecond > 0) || Double.isInfinite(bytesPerSecond)) {
            throw new IllegalArgumentException("link " + link + " capacity " + bytesPerSecond + " B/s");
        }
        linkRate[link] = bytesPerSecond;
        int t = twinOf[link];
        capacity[t] = bytesPerSecond;
        for (int l = 0; l < linkRate.length; l++) {
            if (twinOf[l] == t) {
                capacity[t] = Math.min(capacity[t], linkRate[l]);
            }
        }
        markDirty(t);
    }

    /** Current rate of a flow in bytes per second (0 until the instant it started is resolved). */
    public double rate(int flow) {
        return rate[flow];
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
        int[] links = solverRoutes == null ? path : solverRoutes.get(path);
        if (links == null) {
            throw new IllegalArgumentException("a flow over a route that was not declared: " + Arrays.toString(path));
        }
        started = true;
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
        rate[f] = 0;
        rateCap[f] = maxBytesPerSecond;
        lastUpdate[f] = engine.now();
        route[f] = links;
        tag[f] = flowTag;
        members[f] = 1;
        listener[f] = onDone;
        active[f] = true;
        addJoinable(-at - 1, f, hash);
        if (posInLink[f] == null || posInLink[f].length < links.length) {
            posInLink[f] = new int[links.length];
        }
        for (int i = 0; i < links.length; i++) {
            int l = links[i];
            if (linkFlowCount[l] == linkFlows[l].length) {
                linkFlows[l] = Arrays.copyOf(linkFlows[l], linkFlows[l].length * 2);
            }
            posInLink[f][i] = linkFlowCount[l];
            linkFlows[l][linkFlowCount[l]++] = f;
            linkMembers[l]++;
            markDirty(l);
        }
        return f;
    }

    /** One more member for flow {@code f}, started at the same instant as it and not yet rated. */
    private void join(int f, int flowTag) {
        int later = members[f] - 1;
        if (laterTags[f] == null || laterTags[f].length == later) {
            laterTags[f] = laterTags[f] == null ? new int[4] : Arrays.copyOf(laterTags[f], later * 2);
        }
        laterTags[f][later] = flowTag;
        members[f]++;
        for (int l : route[f]) {
            linkMembers[l]++;
            markDirty(l);
        }
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
            if (totalBytes[f] == bytes && rateCap[f] == cap && listener[f] == onDone
                    && (route[f] == links || Arrays.equals(route[f], links))) {
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
                    int j = joinHash(route[g], totalBytes[g], rateCap[g], listener[g]) & mask;
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
        int[] links = route[f];
        int n = members[f];
        long bytes = Math.round(totalBytes[f]) * n;
        for (int i = 0; i < links.length; i++) {
            int l = links[i];
            linkBytesCarried[l] += bytes;
            linkMembers[l] -= n;
            int pos = posInLink[f][i];
            int last = --linkFlowCount[l];
            int moved = linkFlows[l][last];
            linkFlows[l][pos] = moved;
            if (moved != f) {
                int[] movedRoute = route[moved];
                for (int j = 0; j < movedRoute.length; j++) {
                    if (movedRoute[j] == l) {
                        posInLink[moved][j] = pos;
                        break;
                    }
                }
            }
            markDirty(l);
        }
        FlowListener onDone = listener[f];
        int flowTag = tag[f];
        // A listener may start a flow in this slot again; the later tags stay with this flow.
        int[] later = laterTags[f];
        laterTags[f] = null;
        active[f] = false;
        activeCount -= n;
        listener[f] = null;
        route[f] = null;
        freeFlows[freeCount++] = f;
        onDone.transferred(flowTag);
        for (int i = 0; i < n - 1; i++) {
            onDone.transferred(later[i]);
        }
        if (laterTags[f] == null) {
            laterTags[f] = later;
        }
    }

    private void markDirty(int l) {
        if (!linkDirty[l]) {
            linkDirty[l] = true;
            if (dirtyCount == dirtyLinks.length) {
                dirtyLinks = Arrays.copyOf(dirtyLinks, dirtyCount * 2);
            }
            dirtyLinks[dirtyCount++] = l;
        }
        if (!resolveScheduled) {
            resolveScheduled = true;
            engine.schedule(engine.now(), resolution);
        }
    }

    /**
     * Re-rates the flows that the starts, ends and capacity changes of this instant can reach: first
     * around the changed links alone, growing while the flows just beyond disagree with the new
     * rates, and over the whole connected component when that keeps growing.
     */
    private void resolve() {
        resolveScheduled = false;
        if (joinCount > 0) {
            joinCount = 0;
            if (++joinEpoch == Integer.MAX_VALUE) {
                Arrays.fill(joinStamp, 0);
                joinEpoch = 1;
            }
        }
        int seeds = dirtyCount;
        dirtyCount = 0;
        for (int i = 0; i < seeds; i++) {
            linkDirty[dirtyLinks[i]] = false;
        }
        if (!rateAroundChanges(seeds)) {
            rateComponent(seeds);
        }
        applyRates();
        if (checkCapacity) {
            verifyCapacity();
        }
    }

    private void nextEpoch() {
        if (++epoch == Integer.MAX_VALUE) {
            Arrays.fill(linkStamp, 0);
            Arrays.fill(flowStamp, 0);
            epoch = 1;
        }
        nFlows = 0;
        nLinks = 0;
    }

    /** Adds a flow, and the links of its route not met yet, to those re-rated at this instant. */
    private void admit(int f) {
        flowStamp[f] = epoch;
        if (nFlows == compFlows.length) {
            compFlows = Arrays.copyOf(compFlows, nFlows * 2);
        }
        compFlows[nFlows++] = f;
        for (int l : route[f]) {
            if (linkStamp[l] != epoch) {
                linkStamp[l] = epoch;
                compLinks[nLinks++] = l;
            }
        }
    }

    private void admitFlowsOn(int l) {
        int count = linkFlowCount[l];
        int[] flows = linkFlows[l];
        for (int k = 0; k < count; k++) {
            if (flowStamp[flows[k]] != epoch) {
                admit(flows[k]);
            }
        }
    }

    /**
     * Rates the flows on the changed links against the rest held at their rates, and grows that set
     * until every flow it touches is held somewhere (max-min fairness's condition: at its cap, or on a
     * full link where no flow runs faster). Every flow then meets the condition, so these are the
     * max-min rates, equal to a recomputation of the whole component up to rounding (within {@link
     * #HELD_TOLERANCE}). Returns false, having moved no flow's rate, when the set still grows after
     * {@link #LOCAL_ROUNDS} rounds.
     */
    private boolean rateAroundChanges(int seeds) {
        nextEpoch();
        for (int i = 0; i < seeds; i++) {
            admitFlowsOn(dirtyLinks[i]);
        }
        for (int round = 0; round < LOCAL_ROUNDS; round++) {
            int rated = nFlows;
            int touched = nLinks;
            shareWhatTheRestLeave(touched);
            fill(touched, rated);
            admitTheDisagreeing(touched, rated);
            if (nFlows == rated) {
                return true;
            }
        }
        return false;
    }

    /**
     * Sets each touched link's room to what the flows not being re-rated leave of its capacity (they
     * fit, as the link's capacity and their rates are those of the last rating), and notes the
     * fastest of them.
     */
    private void shareWhatTheRestLeave(int touched) {
        for (int i = 0; i < touched; i++) {
            int l = compLinks[i];
            double held = 0;
            double fastest = 0;
            int unfrozen = 0;
            int count = linkFlowCount[l];
            int[] flows = linkFlows[l];
            for (int k = 0; k < count; k++) {
                int f = flows[k];
                if (flowStamp[f] == epoch) {
                    unfrozen += members[f];
                } else {
                    held += rate[f] * members[f];
                    fastest = Math.max(fastest, rate[f]);
                }
            }
            linkRemaining[l] = Math.max(0, capacity[l] - held);
            linkUnfrozen[l] = unfrozen;
            linkFastestHeld[l] = fastest;
        }
    }

    /**
     * After filling the re-rated flows, admits the flows that break max-min fairness's condition: a
     * held flow faster than a re-rated flow on the link that holds the latter, and a held flow whose
     * own holding link is no longer full or now carries a faster flow.
     */
    private void admitTheDisagreeing(int touched, int rated) {
        // Flows to admit are stamped -epoch until the checks are done: they still count as held.
        int[] pending = flowScratch;
        int nPending = 0;
        for (int k = 0; k < rated; k++) {
            int f = compFlows[k];
            int l = heldBy[f];
            double limit = newRate[f] * (1 + HELD_TOLERANCE);
            if (l >= 0 && linkFastestHeld[l] > limit) {
                int count = linkFlowCount[l];
                int[] flows = linkFlows[l];
                for (int j = 0; j < count; j++) {
                    int g = flows[j];
                    if (flowStamp[g] != epoch && flowStamp[g] != -epoch && rate[g] > limit) {
                        flowStamp[g] = -epoch;
                        pending[nPending++] = g;
                    }
                }
            }
        }
        for (int i = 0; i < touched; i++) {
            int l = compLinks[i];
            int count = linkFlowCount[l];
            int[] flows = linkFlows[l];
            double fastest = linkFastestHeld[l];
            for (int k = 0; k < count; k++) {
                int f = flows[k];
                if (flowStamp[f] == epoch) {
                    fastest = Math.max(fastest, newRate[f]);
                }
            }
            boolean full = linkRemaining[l] <= HELD_TOLERANCE * capacity[l];
            double slowest = fastest * (1 - HELD_TOLERANCE);
            for (int k = 0; k < count; k++) {
                int g = flows[k];
                if (flowStamp[g] != epoch && flowStamp[g] != -epoch && heldBy[g] == l && (!full || rate[g] < slowest)) {
                    flowStamp[g] = -epoch;
                    pending[nPending++] = g;
                }
            }
        }
        for (int i = 0; i < nPending; i++) {
            admit(pending[i]);
        }
    }

    /** Re-rates the whole connected component of flows and links around the changed links. */
    private void rateComponent(int seeds) {
        nextEpoch();
        for (int i = 0; i < seeds; i++) {
            int l = dirtyLinks[i];
            if (linkStamp[l] != epoch) {
                linkStamp[l] = epoch;
                compLinks[nLinks++] = l;
            }
        }
        // Breadth-first over links, in the order met; flows found on a link bring in their other links.
        for (int head = 0; head < nLinks; head++) {
            admitFlowsOn(compLinks[head]);
        }
        for (int i = 0; i < nLinks; i++) {
            int l = compLinks[i];
            linkRemaining[l] = capacity[l];
            linkUnfrozen[l] = linkMembers[l];
        }
        fill(nLinks, nFlows);
    }

    /** Moves the re-rated flows to their new rates, and their ends to match. */
    private void applyRates() {
        long now = engine.now();
        for (int k = 0; k < nFlows; k++) {
            int f = compFlows[k];
            double r = newRate[f];
            if (Math.abs(r - rate[f]) <= RELATIVE_EPSILON * r) {
                continue;
            }
            double sent = rate[f] * (now - lastUpdate[f]) / TimeSpan.PICOS_PER_SECOND;
            remaining[f] = Math.max(0, remaining[f] - sent);
            lastUpdate[f] = now;
            rate[f] = r;
            // A link taken nearly down leaves its flows crawling: their end is far away, not past the clock's range.
            long dt = (long) Math.min(Math.ceil(remaining[f] / r * TimeSpan.PICOS_PER_SECOND), Long.MAX_VALUE / 4.0);
            engine.setTimer(timer[f], now + dt);
        }
    }

    /**
     * Progressive filling of the flows in compFlows[0..flowCount) over the links in compLinks[0..linkCount),
     * from the room and unfrozen members the caller set on each link.
     */
    private void fill(int linkCount, int flowCount) {
        double minCap = Double.POSITIVE_INFINITY;
        for (int k = 0; k < flowCount; k++) {
            minCap = Math.min(minCap, rateCap[compFlows[k]]);
        }
        int unfrozen = flowCount;
        int[] scratch = flowScratch;
        while (unfrozen > 0) {
            double level = minCap;
            for (int i = 0; i < linkCount; i++) {
                int l = compLinks[i];
                if (linkUnfrozen[l] > 0) {
                    double share = linkRemaining[l] / linkUnfrozen[l];
                    linkShare[l] = share;
                    level = Math.min(level, share);
                }
            }
            double threshold = level * (1 + RELATIVE_EPSILON);
            // Decide on the shares before this round, keeping the unfrozen first and the newly
            // frozen after (in scratch, last first), and only then charge the links.
            int kept = 0;
            int frozenFrom = unfrozen;
            minCap = Double.POSITIVE_INFINITY;
            for (int k = 0; k < unfrozen; k++) {
                int f = compFlows[k];
                boolean held = rateCap[f] <= threshold;
                heldBy[f] = -1;
                if (!held) {
                    for (int l : route[f]) {
                        if (linkShare[l] <= threshold) {
                            held = true;
                            heldBy[f] = l;
                            break;
                        }
                    }
                }
                if (held) {
                    scratch[--frozenFrom] = f;
                } else {
                    compFlows[kept++] = f;
                    minCap = Math.min(minCap, rateCap[f]);
                }
            }
            for (int k = frozenFrom; k < unfrozen; k++) {
                int f = scratch[k];
                compFlows[k] = f;
                newRate[f] = level;
                int n = members[f];
                double taken = n == 1 ? level : level * n;
                for (int l : route[f]) {
                    linkRemaining[l] -= taken;
                    linkUnfrozen[l] -= n;
                }
            }
            unfrozen = kept;
        }
    }

    private void verifyCapacity() {
        for (int i = 0; i < nLinks; i++) {
            int l = compLinks[i];
            double sum = 0;
            for (int k = 0; k < linkFlowCount[l]; k++) {
                int f = linkFlows[l][k];
                sum += rate[f] * members[f];
            }
            double utilisation = sum / capacity[l];
            maxUtilisation = Math.max(maxUtilisation, utilisation);
            if (utilisation > 1 + 1e-9) {
                throw new IllegalStateException("link " + l + " carries " + sum + " B/s over its capacity " + capacity[l]);
            }
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
        rate = grow(rate, newSize);
        rateCap = grow(rateCap, newSize);
        newRate = grow(newRate, newSize);
        heldBy = heldBy == null ? new int[newSize] : Arrays.copyOf(heldBy, newSize);
        lastUpdate = lastUpdate == null ? new long[newSize] : Arrays.copyOf(lastUpdate, newSize);
        route = route == null ? new int[newSize][] : Arrays.copyOf(route, newSize);
        posInLink = posInLink == null ? new int[newSize][] : Arrays.copyOf(posInLink, newSize);
        timer = timer == null ? new int[newSize] : Arrays.copyOf(timer, newSize);
        tag = tag == null ? new int[newSize] : Arrays.copyOf(tag, newSize);
        members = members == null ? new int[newSize] : Arrays.copyOf(members, newSize);
        laterTags = laterTags == null ? new int[newSize][] : Arrays.copyOf(laterTags, newSize);
        listener = listener == null ? new FlowListener[newSize] : Arrays.copyOf(listener, newSize);
        active = active == null ? new boolean[newSize] : Arrays.copyOf(active, newSize);
        flowStamp = flowStamp == null ? new int[newSize] : Arrays.copyOf(flowStamp, newSize);
        freeFlows = freeFlows == null ? new int[newSize] : Arrays.copyOf(freeFlows, newSize);
        flowScratch = new int[newSize];
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
