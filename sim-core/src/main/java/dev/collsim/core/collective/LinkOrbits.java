package dev.collsim.core.collective;

import dev.collsim.core.fabric.Fabric;
import dev.collsim.core.fabric.Route;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.IntStream;

/**
 * The links and ranks of a fabric grouped by a {@link FoldedSchedule}'s turn, where the fabric is the
 * same under it: the route between the turned ranks is the turned route, link for link, at the same
 * rates and latency. Then every link of an orbit carries at every moment what its first link
 * carries, turned, and every rank's proxy does what its orbit's first rank's does: the folded run
 * puts each orbit's flows on the orbit's first link and each orbit's proxy work on its first rank,
 * and reads every link's bytes off its orbit's first.
 *
 * <p>Checked, not assumed: {@link #of} is empty (run the whole schedule) unless every route of the
 * whole schedule is a turned route of the orbit's, the turn maps used links one to one, every used
 * link and every rank comes back after exactly {@code order} turns and not before (so each orbit of
 * links carries the turned copies of its flows once each), no route crosses one orbit twice, and
 * every transfer is direct or on an NVLS switch whose ranks the turn maps onto the turned switch's
 * (nothing staged through host memory, no in-network reduction).
 */
final class LinkOrbits {
    /** Per link, the first link of its orbit; -1 for a link no transfer crosses. */
    private final int[] firstLink;
    /** Per rank, the first rank of its orbit. */
    private final int[] firstRank;

    private LinkOrbits(int[] firstLink, int[] firstRank) {
        this.firstLink = firstLink;
        this.firstRank = firstRank;
    }

    static Optional<LinkOrbits> of(RankPlacement placement, FoldedSchedule fold) {
        Schedule orbit = fold.orbit();
        if (placement.host() != null || orbit.request().nRanks() != placement.nRanks()) {
            return Optional.empty();
        }
        int[] turn = fold.turn();
        int order = fold.order();
        int[] firstRank = FoldedSchedule.firstOfCycles(turn, order);
        if (firstRank == null) {
            return Optional.empty();
        }
        Fabric fabric = placement.fabric();
        int[] image = new int[fabric.links().size()];
        Arrays.fill(image, -1);
        // Each route as its two ends: rank r's GPU is 2r, the NVLS switch rank r hangs off is 2r + 1.
        Set<Long> ends = new LinkedHashSet<>();
        Map<Integer, int[]> members = new HashMap<>();
        for (int t : orbit.representatives().toArray()) {
            switch (orbit.kind(t)) {
                case P2P -> ends.add(pair(2 * orbit.src(t), 2 * orbit.dst(t)));
                case SWITCH_ALLREDUCE, SWITCH_REDUCE, SWITCH_MULTICAST -> {
                    int anchor = orbit.anchor(t);
                    int[] group = switchMembers(placement, anchor, members);
                    if (group == null || !Arrays.equals(turned(group, turn), switchMembers(placement, turn[anchor], members))) {
                        return Optional.empty();
                    }
                    for (int m : group) {
                        ends.add(pair(2 * m, 2 * anchor + 1));
                        ends.add(pair(2 * anchor + 1, 2 * m));
                    }
                }
                case LOCAL_COPY -> { }
                case NETWORK_ALLREDUCE -> {
                    return Optional.empty();
                }
            }
        }
        for (long pair : ends) {
            int a = (int) (pair >>> 32);
            int b = (int) pair;
            Route from = route(placement, a, b);
            for (int j = 0; j < order; j++) {
                a = 2 * turn[a >> 1] + (a & 1);
                b = 2 * turn[b >> 1] + (b & 1);
                Route to = route(placement, a, b);
                if (!sameShape(fabric, from, to, image)) {
                    return Optional.empty();
                }
                from = to;
            }
        }
        int[] firstLink = FoldedSchedule.firstOfCycles(image, order);
        if (firstLink == null) {
            return Optional.empty();
        }
        for (long pair : ends) {
            int[] links = route(placement, (int) (pair >>> 32), (int) pair).links();
            if (Arrays.stream(links).map(l -> firstLink[l]).distinct().count() != links.length) {
                return Optional.empty();
            }
        }
        return Optional.of(new LinkOrbits(firstLink, firstRank));
    }

    private static long pair(int a, int b) {
        return (long) a << 32 | b;
    }

    /** The route between two ends: {@code 2r} rank r's GPU, {@code 2r + 1} the NVLS switch it hangs off. */
    private static Route route(RankPlacement placement, int a, int b) {
        return placement.fabric().router().route(device(placement, a), device(placement, b));
    }

    private static int device(RankPlacement placement, int end) {
        return (end & 1) == 0 ? placement.devices()[end >> 1] : placement.nvlsSwitches()[end >> 1];
    }

    /** The ranks on the NVLS switch {@code rank} hangs off, in rank order; null if it hangs off none. */
    private static int[] switchMembers(RankPlacement placement, int rank, Map<Integer, int[]> byHub) {
        int hub = placement.nvlsSwitches()[rank];
        return hub < 0 ? null : byHub.computeIfAbsent(hub, h -> IntStream.range(0, placement.nRanks())
                .filter(r -> placement.nvlsSwitches()[r] == h).toArray());
    }

    private static int[] turned(int[] ranks, int[] turn) {
        return Arrays.stream(ranks).map(r -> turn[r]).sorted().toArray();
    }

    /** Whether {@code to} is {@code from} turned, link for link, recording each link's image. */
    private static boolean sameShape(Fabric fabric, Route from, Route to, int[] image) {
        int[] a = from.links();
        int[] b = to.links();
        if (a.length != b.length || from.viaNic() != to.viaNic() || from.latencyPicos() != to.latencyPicos()) {
            return false;
        }
        for (int i = 0; i < a.length; i++) {
            if (image[a[i]] < 0) {
                image[a[i]] = b[i];
            } else if (image[a[i]] != b[i]) {
                return false;
            }
            if (fabric.link(a[i]).rate().bytesPerSecond() != fabric.link(b[i]).rate().bytesPerSecond()) {
                return false;
            }
        }
        return true;
    }

    /** The link that carries {@code link}'s orbit's flows in the folded run. */
    int firstLink(int link) {
        return firstLink[link];
    }

    /** The rank whose proxy does {@code rank}'s orbit's work in the folded run. */
    int firstRank(int rank) {
        return firstRank[rank];
    }

    /** Whether a link is crossed by some transfer of the whole schedule. */
    boolean crossed(int link) {
        return firstLink[link] >= 0;
    }
}
