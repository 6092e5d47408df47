package dev.collsim.core.collective;

import dev.collsim.core.fabric.DeviceKind;
import dev.collsim.core.fabric.Fabric;
import dev.collsim.core.fabric.Route;
import dev.collsim.core.fabric.Router;
import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;

/**
 * Where a run's bytes go: the routes of its transfers by rank pair (direct, or the legs through host
 * memory when staged), and the ranks on each NVLS or SHARP switch with their routes up and down.
 * Each is found once and kept: millions of transfers look up a few thousand routes, and the router's
 * shared cache boxes its keys.
 */
final class RunRoutes {
    private final Fabric fabric;
    private final Router router;
    private final int[] rankDevice;
    private final int[] rankSwitch;
    private final int[] rankSharp;
    /** Where each rank's staged transfers go inside a node (NCCL's SHM) and across nodes (no GPUDirect), or null. */
    private final int[] shmHost;
    private final int[] netHost;
    private final PairRoutes direct;
    private final PairRoutes writes;
    private final PairRoutes reads;
    private final PairRoutes networkLegs;
    private final HubGroup[] switchGroups;
    private final HubGroup[] sharpGroups;
    /** A folded run's orbits of links, or null. */
    private final LinkOrbits orbits;

    /**
     * The ranks that hang off one switch (NVLS) or SHARP switch, with their routes up and down and the
     * slowest round trip.
     */
    record HubGroup(int[] ranks, Route[] up, Route[] down, long latency) {}

    RunRoutes(RankPlacement placement) {
        this(placement, null);
    }

    /** With {@code orbits}, a folded run's: each route's links are its orbits' first links. */
    RunRoutes(RankPlacement placement, LinkOrbits orbits) {
        fabric = placement.fabric();
        router = fabric.router();
        rankDevice = placement.devices().clone();
        rankSwitch = placement.nvlsSwitches().clone();
        rankSharp = placement.sharpSwitches() == null ? null : placement.sharpSwitches().clone();
        HostMemory host = placement.host();
        shmHost = host == null ? null : host.shm();
        netHost = host == null ? null : host.network();
        for (int[] a : new int[][] {shmHost, netHost}) {
            if (a != null && a.length != rankDevice.length) {
                throw new IllegalArgumentException("one host memory entry per rank");
            }
        }
        switchGroups = new HubGroup[fabric.devices().size()];
        sharpGroups = new HubGroup[fabric.devices().size()];
        this.orbits = orbits;
        direct = new PairRoutes((src, dst) -> folded(router.route(rankDevice[src], rankDevice[dst])));
        writes = new PairRoutes((src, dst) -> router.route(rankDevice[src], writeHost(src, dst)));
        reads = new PairRoutes((src, dst) -> router.route(readHost(src, dst), rankDevice[dst]));
        networkLegs = new PairRoutes(this::networkLeg);
    }

    int ranks() {
        return rankDevice.length;
    }

    Fabric fabric() {
        return fabric;
    }

    /** Whether any transfer may be staged through host memory. */
    boolean staging() {
        return shmHost != null || netHost != null;
    }

    /** Whether a point-to-point transfer between these ranks goes through host memory. */
    boolean staged(int src, int dst) {
        return direct(src, dst).viaNic() ? netHost != null : shmHost != null && shmHost[src] >= 0 && shmHost[dst] >= 0;
    }

    /** The route from one rank's GPU to another's. */
    Route direct(int src, int dst) {
        return direct.get(src, dst);
    }

    /** A staged transfer's first leg: the sender's GPU to the host memory it is written to. */
    Route write(int src, int dst) {
        return writes.get(src, dst);
    }

    /** A staged transfer's last leg: the host memory it is read from to the receiver's GPU. */
    Route read(int src, int dst) {
        return reads.get(src, dst);
    }

    /** A staged transfer's leg across nodes, host memory to host memory: see {@link #networkLeg}. */
    Route network(int src, int dst) {
        return networkLegs.get(src, dst);
    }

    /** The NVLS switch group of a rank, or null if it hangs off none. */
    HubGroup switchGroup(int rank) {
        return rankSwitch[rank] < 0 ? null : hubGroup(switchGroups, rankSwitch, rankSwitch[rank]);
    }

    /** The SHARP group of a rank, or null if its network cannot reduce. */
    HubGroup sharpGroup(int rank) {
        int sw = rankSharp == null ? -1 : rankSharp[rank];
        return sw < 0 ? null : hubGroup(sharpGroups, rankSharp, sw);
    }

    /** Every route found so far, each array once: what the flow network is told to expect. */
    Set<int[]> found() {
        Set<int[]> routes = Collections.newSetFromMap(new IdentityHashMap<>());
        for (PairRoutes p : List.of(direct, writes, reads, networkLegs)) {
            for (int i = 0; i < p.count; i++) {
                routes.add(p.found[i].links());
            }
        }
        for (HubGroup[] groups : List.of(switchGroups, sharpGroups)) {
            for (HubGroup g : groups) {
                for (int m = 0; g != null && m < g.ranks.length; m++) {
                    routes.add(g.up[m].links());
                    routes.add(g.down[m].links());
                }
            }
        }
        return routes;
    }

    /** By hub device id. */
    private HubGroup hubGroup(HubGroup[] cache, int[] rankHub, int hub) {
        HubGroup g = cache[hub];
        if (g == null) {
            int[] ranks = IntStream.range(0, rankHub.length).filter(r -> rankHub[r] == hub).toArray();
            Route[] up = new Route[ranks.length];
            Route[] down = new Route[ranks.length];
            long latency = 0;
            for (int m = 0; m < ranks.length; m++) {
                up[m] = folded(router.route(rankDevice[ranks[m]], hub));
                down[m] = folded(router.route(hub, rankDevice[ranks[m]]));
                latency = Math.max(latency, up[m].latencyPicos() + down[m].latencyPicos());
            }
            g = new HubGroup(ranks, up, down, latency);
            cache[hub] = g;
        }
        return g;
    }

    /** In a folded run, the route with each link replaced by its orbit's first; as it is otherwise. */
    private Route folded(Route r) {
        return orbits == null ? r : new Route(r.from(), r.to(), Arrays.stream(r.links()).map(orbits::firstLink).toArray(), r.latencyPicos(),
                r.viaNic());
    }

    /** The host memory a staged transfer is written to: the receiver's inside a node, the sender's across nodes. */
    private int writeHost(int src, int dst) {
        return direct(src, dst).viaNic() ? netHost[src] : shmHost[dst];
    }

    /** The host memory a staged transfer is read from, the receiver's. */
    private int readHost(int src, int dst) {
        return direct(src, dst).viaNic() ? netHost[dst] : shmHost[dst];
    }

    /**
     * Host memory to host memory across nodes: from the sender's host to the NIC its route leaves
     * through, along that route through the network to the receiving NIC, and on to the receiver's
     * host; so each GPU keeps its own NIC (or the peer's its PXN route takes).
     */
    private Route networkLeg(int src, int dst) {
        int[] path = direct(src, dst).links();
        int a = 0;
        while (fabric.device(fabric.link(path[a]).to()).kind() != DeviceKind.NIC) {
            a++;
        }
        int b = path.length - 1;
        while (fabric.device(fabric.link(path[b]).from()).kind() != DeviceKind.NIC) {
            b--;
        }
        int from = netHost[src];
        int to = netHost[dst];
        int[] up = router.route(from, fabric.link(path[a]).to()).links();
        int[] down = router.route(fabric.link(path[b]).from(), to).links();
        int middle = b - a - 1;
        int[] links = new int[up.length + middle + down.length];
        System.arraycopy(up, 0, links, 0, up.length);
        System.arraycopy(path, a + 1, links, up.length, middle);
        System.arraycopy(down, 0, links, up.length + middle, down.length);
        return router.routeOver(from, to, links);
    }

    /** A route found from a pair of ranks. */
    private interface PairRoute {
        Route find(int src, int dst);
    }

    /** Routes by rank pair, each found once. */
    private static final class PairRoutes {
        private final PairRoute find;
        private final LongIntMap index = new LongIntMap();
        private Route[] found = new Route[64];
        private int count;

        PairRoutes(PairRoute find) {
            this.find = find;
        }

        Route get(int src, int dst) {
            long key = ((long) src << 32) | (dst & 0xffffffffL);
            int i = index.get(key);
            if (i >= 0) {
                return found[i];
            }
            if (count == found.length) {
                found = Arrays.copyOf(found, count * 2);
            }
            found[count] = find.find(src, dst);
            index.put(key, count);
            return found[count++];
        }
    }
}
