package dev.collsim.core.fabric;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The routes between the devices of one fabric, under a {@link RoutingPolicy}.
 *
 * <p>Routes are the fewest-hop paths that pass only through forwarding devices (switches, CPUs,
 * NICs); among those the widest, further ties left to the policy's {@linkplain
 * RoutingPolicy.EqualCost equal-cost choice} and otherwise broken by the lowest link ids, so that
 * routing is deterministic. Only where no such path exists may a GPU relay, and only as the policy's
 * {@linkplain RoutingPolicy.GpuRelay relay} allows (NCCL's PXN: between its NVSwitch and its PCIe
 * switch or NIC, so a GPU whose NIC is gone reaches the network through a peer's). Routes are
 * computed on first use and cached; the cache is safe to share between threads, so a fabric's
 * {@linkplain Fabric#router() router} is shared by every run on it.
 */
public final class Router {
    private final Fabric fabric;
    private final RoutingPolicy policy;
    private final List<Link> links;
    private final int[][] outLinks;
    private final int[][] inLinks;
    // The searches' view of devices and links, unboxed: a large fabric is searched many thousand times.
    private final DeviceKind[] kind;
    private final int[] linkFrom;
    private final int[] linkTo;
    private final double[] linkRate;
    private final Map<Long, Route> routeCache = new ConcurrentHashMap<>();
    /** Each thread's search state, kept between searches: a large fabric is searched tens of thousands of times. */
    private final ThreadLocal<SearchState> searchState;

    Router(Fabric fabric, RoutingPolicy policy) {
        this.fabric = fabric;
        this.policy = policy;
        links = fabric.links();
        outLinks = fabric.linksLeaving();
        inLinks = fabric.linksEntering();
        kind = fabric.devices().stream().map(Device::kind).toArray(DeviceKind[]::new);
        linkFrom = links.stream().mapToInt(Link::from).toArray();
        linkTo = links.stream().mapToInt(Link::to).toArray();
        linkRate = links.stream().mapToDouble(l -> l.rate().bytesPerSecond()).toArray();
        int n = kind.length;
        searchState = ThreadLocal.withInitial(() -> new SearchState(n));
    }

    public Fabric fabric() {
        return fabric;
    }

    public RoutingPolicy policy() {
        return policy;
    }

    /**
     * The route from one device to another.
     *
     * @throws IllegalStateException if no route exists (a validated fabric has one between any two GPUs)
     */
    public Route route(int from, int to) {
        if (from == to) {
            throw new IllegalArgumentException("no route from a device to itself: " + fabric.device(from).name());
        }
        return routeCache.computeIfAbsent(routeKey(from, to), key -> computeRoute(from, to));
    }

    /** A cache key whose hash differs for every pair (a {@code from << 32 | to} Long hashes to {@code from ^ to}). */
    private long routeKey(int from, int to) {
        return (long) from * kind.length + to;
    }

    private Route computeRoute(int from, int to) {
        Route r = searchRoute(from, to);
        if (r == null) {
            throw new IllegalStateException("no route from " + fabric.device(from).name() + " to " + fabric.device(to).name());
        }
        return r;
    }

    private boolean relays() {
        return policy.relay() != RoutingPolicy.GpuRelay.NONE;
    }

    private Route searchRoute(int from, int to) {
        SearchState s = searchState.get();
        if (s.between.find(from, to) && search(from, to, false, s.between, s) || relays() && search(from, to, true, null, s)) {
            return buildRoute(from, to, s.viaLink);
        }
        return null;
    }

    /** The route found by searching from {@code from} alone, as before {@link Between}: for tests to compare with. */
    Route routeByWholeSearch(int from, int to) {
        SearchState s = new SearchState(kind.length);
        return search(from, to, false, null, s) || relays() && search(from, to, true, null, s) ? buildRoute(from, to, s.viaLink) : null;
    }

    /**
     * Whether one strongly connected group of forwarding devices (switches, CPUs, NICs) has a link
     * from every GPU and a link to every GPU: then every GPU reaches every other through it, and the
     * search per GPU (which finds every route through forwarding devices, and more) is not needed.
     * A cluster's network, or one node's NVSwitch, is such a group.
     */
    boolean oneGroupJoinsAllGpus() {
        int[] group = forwardingGroups();
        int groups = Arrays.stream(group).max().orElse(-1) + 1;
        int[] fromGpus = new int[groups];
        int[] toGpus = new int[groups];
        int[] lastFrom = new int[groups];
        int[] lastTo = new int[groups];
        Arrays.fill(lastFrom, -1);
        Arrays.fill(lastTo, -1);
        int gpus = 0;
        for (int d = 0; d < kind.length; d++) {
            if (kind[d] != DeviceKind.GPU) {
                continue;
            }
            gpus++;
            for (int l : outLinks[d]) {
                int g = group[linkTo[l]];
                if (g >= 0 && lastFrom[g] != d) {
                    lastFrom[g] = d;
                    fromGpus[g]++;
                }
            }
            for (int l : inLinks[d]) {
                int g = group[linkFrom[l]];
                if (g >= 0 && lastTo[g] != d) {
                    lastTo[g] = d;
                    toGpus[g]++;
                }
            }
        }
        for (int g = 0; g < groups; g++) {
            if (fromGpus[g] == gpus && toGpus[g] == gpus) {
                return true;
            }
        }
        return false;
    }

    /**
     * Strongly connected groups of forwarding devices, over the links between them (Kosaraju's two
     * depth-first passes); -1 for the devices that do not forward.
     */
    private int[] forwardingGroups() {
        int n = kind.length;
        boolean[] forwards = new boolean[n];
        for (int d = 0; d < n; d++) {
            forwards[d] = kind[d].forwards();
        }
        // First pass: forwarding devices in the order their searches finish.
        int[] finished = new int[n];
        int finishedCount = 0;
        boolean[] seen = new boolean[n];
        int[] stack = new int[n];
        int[] nextLink = new int[n];
        for (int start = 0; start < n; start++) {
            if (!forwards[start] || seen[start]) {
                continue;
            }
            int depth = 0;
            stack[0] = start;
            nextLink[0] = 0;
            seen[start] = true;
            while (depth >= 0) {
                int d = stack[depth];
                if (nextLink[depth] < outLinks[d].length) {
                    int next = linkTo[outLinks[d][nextLink[depth]++]];
                    if (forwards[next] && !seen[next]) {
                        seen[next] = true;
                        stack[++depth] = next;
                        nextLink[depth] = 0;
                    }
                } else {
                    finished[finishedCount++] = d;
                    depth--;
                }
            }
        }
        // Second pass, against the links, latest finished first: what each search reaches is one group.
        int[] group = new int[n];
        Arrays.fill(group, -1);
        int groups = 0;
        for (int i = finishedCount - 1; i >= 0; i--) {
            int root = finished[i];
            if (group[root] >= 0) {
                continue;
            }
            int top = 0;
            stack[0] = root;
            group[root] = groups;
            while (top >= 0) {
                int d = stack[top--];
                for (int l : inLinks[d]) {
                    int prev = linkFrom[l];
                    if (forwards[prev] && group[prev] < 0) {
                        group[prev] = groups;
                        stack[++top] = prev;
                    }
                }
            }
            groups++;
        }
        return group;
    }

    /** The devices a route from {@code from} can end at. */
    public boolean[] reachableFrom(int from) {
        SearchState s = searchState.get();
        search(from, -1, relays(), null, s);
        boolean[] reached = new boolean[kind.length];
        for (int i = 0; i < s.reached; i++) {
            reached[s.queue[i]] = true;
        }
        return reached;
    }

    /**
     * What a search leaves: hops to each device (-1 where none is reached), the link each reached
     * device is entered by, and the reached devices in the order found. Only the entries of reached
     * devices are set, and the next search resets just those.
     */
    private final class SearchState {
        final int[] hops;
        final int[] viaLink;
        final double[] width;
        final int[] queue;
        int reached;
        final Between between;

        SearchState(int devices) {
            between = new Between(devices);
            hops = new int[devices];
            viaLink = new int[devices];
            width = new double[devices];
            queue = new int[devices];
            Arrays.fill(hops, -1);
            Arrays.fill(viaLink, -1);
        }

        void clear() {
            for (int i = 0; i < reached; i++) {
                hops[queue[i]] = -1;
                viaLink[queue[i]] = -1;
            }
            reached = 0;
        }
    }

    /**
     * Breadth-first, a layer of hops at a time, so that among the fewest-hop routes the widest (the
     * highest slowest-link rate) wins, as NCCL's path search prefers NVLink to PCIe; a tie keeps the
     * route found first, through the lowest link ids. Stops after the layer that reaches {@code to}
     * (with {@code to} -1, explores everything).
     *
     * @param relay whether a GPU may pass data on, as the policy's relay allows
     * @param only  the devices on a fewest-hop route to {@code to}, found without relays; null: all
     * @param s     where the search leaves its hops, links and reached devices
     * @return whether {@code to} was reached
     */
    private boolean search(int from, int to, boolean relay, Between only, SearchState s) {
        s.clear();
        int[] hops = s.hops;
        int[] viaLink = s.viaLink;
        double[] width = s.width;
        int[] queue = s.queue;
        hops[from] = 0;
        width[from] = Double.POSITIVE_INFINITY;
        queue[0] = from;
        int head = 0;
        int tail = 1;
        try {
            while (head < tail && (to < 0 || hops[to] < 0)) {
                for (int layerEnd = tail; head < layerEnd; head++) {
                    int d = queue[head];
                    // PXN: a GPU passes data between its NVSwitch and its PCIe side, either way.
                    boolean pxn = relay && d != from && kind[d] == DeviceKind.GPU;
                    DeviceKind entered = pxn ? kind[linkFrom[viaLink[d]]] : null;
                    if (d != from && !kind[d].forwards() && !pxn) {
                        continue;
                    }
                    int[] candidates = only == null ? null : only.linksToward(d, hops[d] + 1, outLinks[d].length);
                    for (int l : candidates != null ? candidates : outLinks[d]) {
                        int reached = linkTo[l];
                        if (pxn && !policy.relay().passes(entered, kind[reached]) || only != null && !only.onRoute(reached, hops[d] + 1)) {
                            continue;
                        }
                        double w = Math.min(width[d], linkRate[l]);
                        if (hops[reached] < 0) {
                            hops[reached] = hops[d] + 1;
                            queue[tail++] = reached;
                        } else if (hops[reached] != hops[d] + 1 || w < width[reached]
                                || (w == width[reached] && !(to >= 0 && policy.equalCost().replaces(from, to, l, kind[linkFrom[l]], viaLink[reached], kind[linkFrom[viaLink[reached]]])))) {
                            continue;
                        }
                        width[reached] = w;
                        viaLink[reached] = l;
                    }
                }
            }
        } finally {
            s.reached = tail; // so that the next search resets what this one touched, even after an error
        }
        return to >= 0 && hops[to] >= 0;
    }

    /**
     * The devices on the fewest-hop routes between two devices without relays, found by searching
     * from both ends at once, a layer of hops at a time on the side whose layer is smaller, until
     * the two meet. Between two GPUs of a large cluster the search from one end alone reaches most
     * of the fabric before the other; from both ends each side stops at the spines.
     *
     * <p>The search from {@code from} restricted to these devices finds the same route as the whole
     * search: every device a fewest-hop route passes, and every fewest-hop route to it, lie on a
     * fewest-hop route between the ends, so its hops, width and the order in which the search meets
     * its candidate links are unchanged.
     */
    private final class Between {
        /** Hops from {@code from} and to {@code to}, -1 where not reached. */
        final int[] ahead;
        final int[] behind;
        /** Devices reached from each end, a layer after another. */
        final int[] aheadQueue;
        final int[] behindQueue;
        int aheadCount;
        int behindCount;
        /** Where each layer of {@code behindQueue} starts, by hops to {@code to}; the layer past the last ends at the count. */
        final int[] behindLayerStart;
        /** Devices nearer {@code from} than the other side reached that lie on a fewest-hop route. */
        final boolean[] onNearRoute;
        int from;
        int to;
        int hops;
        /** The fewest hops from {@code from} at which devices are judged by their hops to {@code to}. */
        int farFrom;
        int behindRadius;

        Between(int devices) {
            ahead = new int[devices];
            behind = new int[devices];
            aheadQueue = new int[devices];
            behindQueue = new int[devices];
            behindLayerStart = new int[devices + 2];
            onNearRoute = new boolean[devices];
            Arrays.fill(ahead, -1);
            Arrays.fill(behind, -1);
        }

        /** Finds the fewest hops between the ends and the devices on such routes; false if there is no route. */
        boolean find(int from, int to) {
            clear();
            this.from = from;
            this.to = to;
            ahead[from] = 0;
            aheadQueue[aheadCount++] = from;
            behind[to] = 0;
            behindQueue[behindCount++] = to;
            int aheadLayer = 0;
            int behindLayer = 0;
            int aheadRadius = 0;
            int behindRadius = 0;
            hops = -1;
            while (hops < 0) {
                int aheadSize = aheadCount - aheadLayer;
                int behindSize = behindCount - behindLayer;
                if (aheadSize == 0 || behindSize == 0) {
                    return false;
                }
                // Expand the side whose layer has fewer links to follow: a switch of n ports costs n,
                // so on a flat switch the search meets at it from both ends instead of fanning out
                // to every port (n^2 work for the n routes of a ring).
                if (aheadSize < behindSize || aheadSize == behindSize
                        && links(aheadLayer, aheadCount, aheadQueue, outLinks, from) <= links(behindLayer, behindCount, behindQueue, inLinks, to)) {
                    int start = aheadCount;
                    aheadCount = expand(aheadLayer, start, outLinks, linkTo, ahead, aheadQueue, aheadRadius, from);
                    aheadLayer = start;
                    aheadRadius++;
                    hops = meet(aheadQueue, aheadLayer, aheadCount);
                } else {
                    int start = behindCount;
                    behindCount = expand(behindLayer, start, inLinks, linkFrom, behind, behindQueue, behindRadius, to);
                    behindLayer = start;
                    behindRadius++;
                    behindLayerStart[behindRadius] = start;
                    hops = meet(behindQueue, behindLayer, behindCount);
                }
            }
            this.behindRadius = behindRadius;
            farFrom = hops - behindRadius;
            for (int i = aheadCount - 1; i >= 0; i--) {
                int d = aheadQueue[i];
                int k = ahead[d];
                if (k >= farFrom || !through(d)) {
                    continue;
                }
                for (int l : outLinks[d]) {
                    if (onRoute(linkTo[l], k + 1)) {
                        onNearRoute[d] = true;
                        break;
                    }
                }
            }
            return true;
        }

        /**
         * Adds the next layer of hops on one side, across the links from (ahead) or into (behind) the
         * devices of layer {@code queue[layer..end)} that routes may pass; returns the side's new count.
         */
        private int expand(int layer, int end, int[][] linksOf, int[] otherEnd, int[] hopsTo, int[] queue, int radius,
                           int origin) {
            int count = end;
            for (int i = layer; i < end; i++) {
                int d = queue[i];
                if (d != origin && !kind[d].forwards()) {
                    continue;
                }
                for (int l : linksOf[d]) {
                    int next = otherEnd[l];
                    if (hopsTo[next] < 0) {
                        hopsTo[next] = radius + 1;
                        queue[count++] = next;
                    }
                }
            }
            return count;
        }

        /** How many links expanding the layer {@code queue[layer..end)} would follow. */
        private int links(int layer, int end, int[] queue, int[][] linksOf, int origin) {
            int count = 0;
            for (int i = layer; i < end; i++) {
                int d = queue[i];
                if (d == origin || kind[d].forwards()) {
                    count += linksOf[d].length;
                }
            }
            return count;
        }

        /** The fewest hops of a route through a device of the new layer that both sides reached, or -1. */
        private int meet(int[] queue, int layer, int end) {
            int best = -1;
            for (int i = layer; i < end; i++) {
                int d = queue[i];
                if (ahead[d] >= 0 && behind[d] >= 0 && through(d)) {
                    int h = ahead[d] + behind[d];
                    best = best < 0 ? h : Math.min(best, h);
                }
            }
            return best;
        }

        /** Whether a route may pass the device: an end, or a device that forwards. */
        private boolean through(int d) {
            return d == from || d == to || kind[d].forwards();
        }

        /**
         * The links from {@code d} into the devices that a fewest-hop route reaches after {@code k}
         * hops, in id order as {@code d}'s own list has them, where the far side already knows those
         * devices and finding the links from them is cheaper than following all {@code budget} of
         * {@code d}'s; null otherwise. A switch's links are then not followed one by one: on a flat
         * switch of n GPUs its n ports would cost each of a ring's n routes n steps.
         */
        int[] linksToward(int d, int k, int budget) {
            int layer = hops - k;
            if (k < farFrom || layer < 0 || layer > behindRadius) {
                return null;
            }
            int start = behindLayerStart[layer];
            int end = layer == behindRadius ? behindCount : behindLayerStart[layer + 1];
            int cost = 0;
            for (int i = start; i < end && cost <= budget; i++) {
                cost += inLinks[behindQueue[i]].length;
            }
            if (cost > budget) {
                return null;
            }
            int[] found = new int[cost];
            int n = 0;
            for (int i = start; i < end; i++) {
                for (int l : inLinks[behindQueue[i]]) {
                    if (linkFrom[l] == d) {
                        found[n++] = l;
                    }
                }
            }
            int[] links = Arrays.copyOf(found, n);
            Arrays.sort(links);
            return links;
        }

        /** Whether the device, reached after {@code k} hops, lies on a fewest-hop route. */
        boolean onRoute(int d, int k) {
            return k >= farFrom ? behind[d] == hops - k && through(d) : onNearRoute[d] && ahead[d] == k;
        }

        private void clear() {
            for (int i = 0; i < aheadCount; i++) {
                ahead[aheadQueue[i]] = -1;
                onNearRoute[aheadQueue[i]] = false;
            }
            for (int i = 0; i < behindCount; i++) {
                behind[behindQueue[i]] = -1;
            }
            aheadCount = 0;
            behindCount = 0;
        }
    }

    private Route buildRoute(int from, int to, int[] viaLink) {
        int hops = 0;
        for (int d = to; d != from; d = links.get(viaLink[d]).from()) {
            hops++;
        }
        int[] path = new int[hops];
        for (int d = to, i = hops - 1; d != from; d = links.get(viaLink[d]).from(), i--) {
            path[i] = viaLink[d];
        }
        return routeOver(from, to, path);
    }

    /** The route along {@code path} (link ids, in order, from {@code from} to {@code to}): its latency, and whether it enters a NIC. */
    public Route routeOver(int from, int to, int[] path) {
        long latency = 0;
        boolean viaNic = false;
        for (int l : path) {
            latency += links.get(l).latency().picos();
            viaNic |= kind[linkTo[l]] == DeviceKind.NIC;
        }
        return new Route(from, to, path, latency, viaNic);
    }
}
