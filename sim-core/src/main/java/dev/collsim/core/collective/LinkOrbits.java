package dev.collsim.core.collective;

import dev.collsim.core.fabric.Fabric;
import dev.collsim.core.fabric.Route;
import dev.collsim.core.fabric.Router;
import java.util.Arrays;
import java.util.Optional;

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
 * every transfer is point to point and direct (nothing staged through host memory, no switch
 * operation).
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
        int[] firstRank = firstOfCycles(turn, order);
        if (firstRank == null) {
            return Optional.empty();
        }
        Fabric fabric = placement.fabric();
        Router router = fabric.router();
        int[] devices = placement.devices();
        int[] image = new int[fabric.links().size()];
        Arrays.fill(image, -1);
        java.util.Set<Long> pairs = new java.util.HashSet<>();
        for (int t = 0; t < orbit.transferCount(); t++) {
            if (orbit.kind(t) != TransferKind.P2P) {
                return Optional.empty();
            }
            int a = orbit.src(t);
            int b = orbit.dst(t);
            if (!pairs.add((long) a << 32 | b)) {
                continue;
            }
            Route from = router.route(devices[a], devices[b]);
            for (int j = 0; j < order; j++) {
                a = turn[a];
                b = turn[b];
                Route to = router.route(devices[a], devices[b]);
                if (!sameShape(fabric, from, to, image)) {
                    return Optional.empty();
                }
                from = to;
            }
        }
        int[] firstLink = firstOfCycles(image, order);
        if (firstLink == null) {
            return Optional.empty();
        }
        for (long pair : pairs) {
            int[] links = router.route(devices[(int) (pair >>> 32)], devices[(int) pair]).links();
            if (Arrays.stream(links).map(l -> firstLink[l]).distinct().count() != links.length) {
                return Optional.empty();
            }
        }
        return Optional.of(new LinkOrbits(firstLink, firstRank));
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

    /**
     * For a map whose defined entries ({@code >= 0}) are one to one and come back to where they
     * started after exactly {@code order} steps and not before, the smallest entry of each cycle, by
     * entry (-1 where undefined); null for any other map.
     */
    private static int[] firstOfCycles(int[] map, int order) {
        int[] first = new int[map.length];
        Arrays.fill(first, -1);
        for (int start = 0; start < map.length; start++) {
            if (map[start] < 0 || first[start] >= 0) {
                continue;
            }
            int x = start;
            for (int j = 0; j < order; j++) {
                if (x < 0 || first[x] >= 0 || (j > 0 && x == start)) {
                    return null;
                }
                first[x] = start;
                x = map[x];
            }
            if (x != start) {
                return null;
            }
        }
        return first;
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
