package dev.collsim.core.flow;

import java.nio.IntBuffer;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * Max-min fair rates of flows over links, kept up to date as flows come and go: no bytes, no time.
 *
 * <p>Each flow crosses a set of links and may carry its own rate cap (what one channel can push).
 * Rates are found by progressive filling: raise every unfrozen flow's rate together until a link is
 * full or a flow reaches its cap, freeze the flows held there, and repeat. A flow may stand for
 * several members that always share one rate (flows started alike: whether a flow is held depends
 * only on its cap and its links); each member counts on its links as a flow of its own.
 *
 * <p>{@link #solve} re-rates only the flows the changes since the last solve reach: those on the
 * changed links first, against the others at their rates, then also each flow the new rates leave
 * without a full link it is fastest on, until none is left; a ripple that keeps going re-rates the
 * whole connected component instead. In a large collective a change moves a few dozen flows of a
 * component of thousands.
 *
 * <p>When the routes flows will take are {@linkplain #declareRoutes declared} up front, links that
 * exactly the same routes cross are one constraint (see there): the solver re-rates fewer links, and
 * every rate stays the same to the bit.
 *
 * <p>Flows are numbered by the caller (small, reused numbers); their state and the links' live in
 * primitive arrays, and the scratch arrays are reused, so the steady state allocates nothing.
 */
public final class MaxMinSolver {
    /** Rates this close, relative, are one level in the filling, and an unchanged rate in {@link #solve}. */
    private static final double RELATIVE_EPSILON = 1e-12;
    /**
     * How far, relative, a rate may sit from max-min fairness's condition and still count as meeting
     * it, when only part of a component is re-rated: well above the filling's rounding, well below
     * anything a result shows.
     */
    private static final double HELD_TOLERANCE = 1e-9;
    /** Rounds of growing the re-rated set before the whole component is re-rated instead. */
    private static final int LOCAL_ROUNDS = 8;

    /** Told of each flow whose rate a solve moves, just before the move. */
    public interface RateChange {
        void moved(int flow, double oldRate, double newRate);
    }

    /** What is shared out on each link: for a set of twin links, the least of their rates, on the one that stands for them. */
    private final double[] capacity;
    /** Each link's own rate. */
    private final double[] linkRate;
    /** The link that stands for each link: itself, or its twin with the lowest id. */
    private final int[] twinOf;
    /** Each declared route as the solver sees it (one link of each set of twins), or null: routes as given. */
    private IdentityHashMap<int[], int[]> solverRoutes;
    private boolean started;
    private int[][] linkFlows;
    private final int[] linkFlowCount;
    /** Members of the flows on each link: what the link's share is divided by. */
    private final int[] linkMembers;

    // Per flow.
    private double[] rate;
    private double[] rateCap;
    private int[][] route;
    private int[][] posInLink;
    private int[] members;

    // Links changed since the last solve.
    private int[] dirtyLinks;
    private int dirtyCount;
    private final boolean[] linkDirty;

    // Scratch of a solve.
    private final int[] linkStamp;
    private int[] flowStamp;
    private int epoch;
    private int[] compFlows = new int[64];
    private final int[] compLinks;
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
    /** Room for every flow: the filling's newly frozen, the flows to admit. */
    private int[] flowScratch;

    private boolean checkCapacity;
    private double maxUtilisation;

    /** @param bytesPerSecond the capacity of each link, by link id */
    public MaxMinSolver(double[] bytesPerSecond) {
        int links = bytesPerSecond.length;
        capacity = bytesPerSecond.clone();
        for (int l = 0; l < links; l++) {
            checkRate(l, capacity[l]);
        }
        linkRate = capacity.clone();
        twinOf = new int[links];
        Arrays.setAll(twinOf, l -> l);
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
        growFlows(64);
    }

    private static void checkRate(int link, double bytesPerSecond) {
        if (!(bytesPerSecond > 0) || Double.isInfinite(bytesPerSecond)) {
            throw new IllegalArgumentException("link " + link + " has capacity " + bytesPerSecond + " B/s");
        }
    }

    /** Asks every solve to verify that no link carries more than its capacity. For tests. */
    public void setCheckCapacity(boolean check) {
        this.checkCapacity = check;
    }

    /** Highest sum of rates over capacity seen on any link while checking was on (at most 1). */
    public double maxUtilisation() {
        return maxUtilisation;
    }

    /** The link that stands for {@code link} in the solver: itself, unless routes were declared and it has a twin. */
    public int standIn(int link) {
        return twinOf[link];
    }

    /**
     * Declares every route a flow will take, before the first flow; after this, a flow over any
     * other route is refused. Links that exactly the same declared routes cross are twins: they
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
        for (int[] r : routes) {
            index.putIfAbsent(r, index.size());
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
        Map<IntBuffer, Integer> standIns = new HashMap<>();
        for (int l = 0; l < links; l++) {
            if (count[l] > 0) {
                Arrays.sort(crossing[l], 0, count[l]);
                Integer first = standIns.putIfAbsent(IntBuffer.wrap(crossing[l], 0, count[l]), l);
                twinOf[l] = first == null ? l : first;
            }
        }
        for (int l = 0; l < links; l++) {
            capacity[twinOf[l]] = Math.min(capacity[twinOf[l]], linkRate[l]);
        }
        solverRoutes = new IdentityHashMap<>();
        for (int[] r : index.keySet()) {
            int[] solver = new int[r.length];
            int n = 0;
            for (int l : r) {
                int t = twinOf[l];
                boolean seen = false;
                for (int i = 0; i < n && !seen; i++) {
                    seen = solver[i] == t;
                }
                if (!seen) {
                    solver[n++] = t;
                }
            }
            solverRoutes.put(r, Arrays.copyOf(solver, n));
        }
    }

    /**
     * The links a flow over {@code path} is rated on: the path itself, or once routes are declared,
     * the declared route's stand-ins. The array is the solver's: do not modify it.
     *
     * @throws IllegalArgumentException if routes were declared and this is not one of them
     */
    public int[] linksOf(int[] path) {
        int[] links = solverRoutes == null ? path : solverRoutes.get(path);
        if (links == null) {
            throw new IllegalArgumentException("a flow over a route that was not declared: " + Arrays.toString(path));
        }
        return links;
    }

    /** Changes a link's capacity; the flows it reaches are re-rated at the next solve. */
    public void setCapacity(int link, double bytesPerSecond) {
        checkRate(link, bytesPerSecond);
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

    /** The rate flow {@code f} was given by the last solve (0 before its first). */
    public double rate(int f) {
        return rate[f];
    }

    /** Flow {@code f}'s links, as given to {@link #add}. */
    public int[] route(int f) {
        return route[f];
    }

    public double rateCap(int f) {
        return rateCap[f];
    }

    /** How many flows, all alike, flow {@code f} stands for. */
    public int members(int f) {
        return members[f];
    }

    /**
     * Adds flow {@code f} (a number not in use) of one member over {@code links} (the caller's array,
     * not modified; see {@link #linksOf}), no faster than {@code rateCap}, at rate 0 until the next
     * solve.
     */
    public void add(int f, int[] links, double rateCap) {
        if (f >= members.length) {
            growFlows(Math.max(f + 1, 2 * members.length));
        }
        started = true;
        rate[f] = 0;
        this.rateCap[f] = rateCap;
        route[f] = links;
        members[f] = 1;
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
    }

    /** One more member for flow {@code f}: one more flow alike, which will always share its rate. */
    public void addMember(int f) {
        members[f]++;
        for (int l : route[f]) {
            linkMembers[l]++;
            markDirty(l);
        }
    }

    /** Removes flow {@code f} and all its members; its number may be used again. */
    public void remove(int f) {
        int[] links = route[f];
        int n = members[f];
        for (int i = 0; i < links.length; i++) {
            int l = links[i];
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
        route[f] = null;
    }

    /** Whether anything changed since the last solve. */
    public boolean hasChanges() {
        return dirtyCount > 0;
    }

    private void markDirty(int l) {
        if (!linkDirty[l]) {
            linkDirty[l] = true;
            if (dirtyCount == dirtyLinks.length) {
                dirtyLinks = Arrays.copyOf(dirtyLinks, dirtyCount * 2);
            }
            dirtyLinks[dirtyCount++] = l;
        }
    }

    /**
     * Re-rates the flows that the changes since the last solve can reach: first around the changed
     * links alone, growing while the flows just beyond disagree with the new rates, and over the
     * whole connected component when that keeps growing. Tells {@code change} of every flow whose
     * rate moves, in the order the re-rating met them.
     */
    public void solve(RateChange change) {
        int seeds = dirtyCount;
        dirtyCount = 0;
        for (int i = 0; i < seeds; i++) {
            linkDirty[dirtyLinks[i]] = false;
        }
        if (!rateAroundChanges(seeds)) {
            rateComponent(seeds);
        }
        for (int k = 0; k < nFlows; k++) {
            int f = compFlows[k];
            double r = newRate[f];
            if (Math.abs(r - rate[f]) > RELATIVE_EPSILON * r) {
                change.moved(f, rate[f], r);
                rate[f] = r;
            }
        }
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

    /** Adds a flow, and the links of its route not met yet, to those re-rated in this solve. */
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

    private void growFlows(int n) {
        rate = rate == null ? new double[n] : Arrays.copyOf(rate, n);
        rateCap = rateCap == null ? new double[n] : Arrays.copyOf(rateCap, n);
        newRate = newRate == null ? new double[n] : Arrays.copyOf(newRate, n);
        heldBy = heldBy == null ? new int[n] : Arrays.copyOf(heldBy, n);
        route = route == null ? new int[n][] : Arrays.copyOf(route, n);
        posInLink = posInLink == null ? new int[n][] : Arrays.copyOf(posInLink, n);
        members = members == null ? new int[n] : Arrays.copyOf(members, n);
        flowStamp = flowStamp == null ? new int[n] : Arrays.copyOf(flowStamp, n);
        flowScratch = new int[n];
    }
}
