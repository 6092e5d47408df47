package dev.collsim.core.collective;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * A held schedule's transfers matched to themselves under a turn of the ranks, and folded to one
 * orbit where the match is exact. The {@code i}-th transfer of a kind from one rank to another is
 * matched to the {@code i}-th of that kind between the turned ranks; the match is kept only if it
 * maps the schedule onto itself: every transfer to one of the same channel, step, bytes and reduction,
 * its pieces to pieces one to one, and its dependencies to the turned transfer's, kind for kind.
 * Transfers whose channel's threads are split, or posted with the one before, are not folded.
 */
final class TransferTurn {
    /** Per transfer, the transfer it is turned into. */
    private final int[] image;
    /** Per piece of the schedule, the piece it is turned into (-1: moved by no transfer). */
    private final int[] pieceImage;

    private TransferTurn(int[] image, int[] pieceImage) {
        this.image = image;
        this.pieceImage = pieceImage;
    }

    private record Key(TransferKind kind, int src, int dst) {}

    /** The turn of {@code s}'s transfers that {@code turn} of its ranks makes, if the schedule is the same under it. */
    static Optional<TransferTurn> of(Schedule s, int[] turn) {
        int n = s.transferCount();
        Map<Key, IntList> byKey = new HashMap<>();
        int[] occurrence = new int[n];
        for (int t = 0; t < n; t++) {
            if (s.threadShare(t) != 1 || s.postedWithPrevious(t)) {
                return Optional.empty();
            }
            IntList same = byKey.computeIfAbsent(new Key(s.kind(t), s.src(t), s.dst(t)), k -> new IntList());
            occurrence[t] = same.size();
            same.add(t);
        }
        int[] image = new int[n];
        int[] pieceImage = new int[s.pieceCount()];
        Arrays.fill(pieceImage, -1);
        for (int t = 0; t < n; t++) {
            IntList turned = byKey.get(new Key(s.kind(t), turned(turn, s.src(t)), turned(turn, s.dst(t))));
            if (turned == null || turned.size() <= occurrence[t]) {
                return Optional.empty();
            }
            int u = turned.get(occurrence[t]);
            if (s.channel(u) != s.channel(t) || s.step(u) != s.step(t) || s.bytes(u) != s.bytes(t) || s.reduces(u) != s.reduces(t)) {
                return Optional.empty();
            }
            int p = s.piece(t);
            if (pieceImage[p] >= 0 ? pieceImage[p] != s.piece(u) : s.pieceLength(p) != s.pieceLength(s.piece(u))) {
                return Optional.empty();
            }
            pieceImage[p] = s.piece(u);
            image[t] = u;
        }
        int[] into = new int[s.maxSuccessors()];
        int[] turnedInto = new int[s.maxSuccessors()];
        for (int t = 0; t < n; t++) {
            int count = s.successors(t, into);
            if (s.successors(image[t], turnedInto) != count) {
                return Optional.empty();
            }
            for (int i = 0; i < count; i++) {
                into[i] = image[into[i] >>> 1] << 1 | (into[i] & 1);
            }
            Arrays.sort(into, 0, count);
            Arrays.sort(turnedInto, 0, count);
            if (!Arrays.equals(into, 0, count, turnedInto, 0, count)) {
                return Optional.empty();
            }
        }
        return Optional.of(new TransferTurn(image, pieceImage));
    }

    private static int turned(int[] turn, int rank) {
        return rank == Schedule.ALL ? Schedule.ALL : turn[rank];
    }

    /** The piece that {@code piece} is turned into, or -1 if no transfer moves it. */
    int pieceImage(int piece) {
        return pieceImage[piece];
    }

    /**
     * One orbit of {@code s}, which this turns, if every transfer comes back after exactly {@code
     * order} turns: the first transfer of each orbit, waiting on the first transfers of the orbits
     * it waited on; with which of them move their step's whole bytes, as {@code stepWide} says of
     * {@code s}'s.
     */
    Optional<SteppedSchedule.Step> foldStep(Schedule s, int order, boolean[] stepWide) {
        int[] first = FoldedSchedule.firstOfCycles(image, order);
        if (first == null) {
            return Optional.empty();
        }
        for (int t = 0; t < image.length; t++) {
            if (stepWide[t] != stepWide[image[t]]) {
                return Optional.empty();
            }
        }
        ScheduleBuilder b = new ScheduleBuilder(s.request(), s.algorithm());
        for (int p = 0; p < s.pieceCount(); p++) {
            b.piece(s.pieceOffset(p), s.pieceLength(p), s.pieceSegment(p), s.pieceDest(p));
        }
        int[] folded = new int[image.length];
        boolean[] wide = new boolean[image.length / order];
        for (int t = 0; t < image.length; t++) {
            if (first[t] == t) {
                folded[t] = add(b, s, t);
                wide[folded[t]] = stepWide[t];
            }
        }
        int[] into = new int[s.maxSuccessors()];
        for (int t = 0; t < image.length; t++) {
            for (int i = 0, count = s.successors(t, into); i < count; i++) {
                int u = into[i] >>> 1;
                if (first[u] != u) {
                    continue;
                }
                if ((into[i] & 1) != 0) {
                    b.afterDelivery(folded[u], folded[first[t]]);
                } else {
                    b.afterSend(folded[u], folded[first[t]]);
                }
            }
        }
        return Optional.of(new SteppedSchedule.Step(b.build(), wide));
    }

    private static int add(ScheduleBuilder b, Schedule s, int t) {
        int c = s.channel(t);
        int step = s.step(t);
        int piece = s.piece(t);
        return switch (s.kind(t)) {
            case P2P -> b.transfer(c, step, s.src(t), s.dst(t), piece, s.reduces(t));
            case SWITCH_ALLREDUCE -> b.switchAllReduce(c, step, s.src(t), piece);
            case NETWORK_ALLREDUCE -> b.networkAllReduce(c, step, s.src(t), piece);
            case SWITCH_REDUCE -> b.switchReduce(c, step, s.dst(t), piece);
            case SWITCH_MULTICAST -> b.switchMulticast(c, step, s.src(t), piece);
            case LOCAL_COPY -> b.localCopy(c, step, s.src(t), piece, s.bytes(t));
        };
    }
}
