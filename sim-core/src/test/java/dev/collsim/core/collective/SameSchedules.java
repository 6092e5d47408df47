package dev.collsim.core.collective;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;

/** Asserts that a schedule held another way is the one a builder built, transfer for transfer. */
final class SameSchedules {
    private SameSchedules() {}

    /**
     * Counts, pieces, each transfer's fields (its thread share and post too), its successors in
     * order, every transfer's predecessor count, and the rank pairs its representatives cover.
     */
    static void assertSameSchedule(Schedule want, Schedule got, String what) {
        assertEquals(want.transferCount(), got.transferCount(), what);
        assertEquals(want.dependencyCount(), got.dependencyCount(), what);
        assertEquals(want.pieceCount(), got.pieceCount(), what);
        assertTrue(want.maxSuccessors() <= got.maxSuccessors(), what);
        for (int p = 0; p < want.pieceCount(); p++) {
            assertEquals(want.pieceOffset(p), got.pieceOffset(p), what);
            assertEquals(want.pieceLength(p), got.pieceLength(p), what);
            assertEquals(want.pieceSegment(p), got.pieceSegment(p), what);
        }
        int[] wantCounts = new int[want.transferCount()];
        int[] gotCounts = new int[got.transferCount()];
        want.countPredecessors(wantCounts);
        got.countPredecessors(gotCounts);
        assertTrue(Arrays.equals(wantCounts, gotCounts), what);
        int[] a = new int[Math.max(want.maxSuccessors(), got.maxSuccessors())];
        int[] b = new int[a.length];
        for (int t = 0; t < want.transferCount(); t++) {
            String at = what + " transfer " + t;
            assertEquals(want.src(t), got.src(t), at);
            assertEquals(want.dst(t), got.dst(t), at);
            assertEquals(want.channel(t), got.channel(t), at);
            assertEquals(want.step(t), got.step(t), at);
            assertEquals(want.piece(t), got.piece(t), at);
            assertEquals(want.bytes(t), got.bytes(t), at);
            assertEquals(want.reduces(t), got.reduces(t), at);
            assertEquals(want.kind(t), got.kind(t), at);
            assertEquals(want.threadShare(t), got.threadShare(t), at);
            assertEquals(want.postedWithPrevious(t), got.postedWithPrevious(t), at);
            int count = want.successors(t, a);
            assertEquals(count, got.successors(t, b), at);
            assertTrue(Arrays.equals(a, 0, count, b, 0, count), at + ": " + Arrays.toString(Arrays.copyOf(a, count)) + " against "
                    + Arrays.toString(Arrays.copyOf(b, count)));
        }
        assertEquals(pairs(want), pairs(got), what);
    }

    private static java.util.List<String> pairs(Schedule s) {
        return s.representatives().mapToObj(t -> s.kind(t) + " " + s.src(t) + ">" + s.dst(t)).distinct().sorted().toList();
    }
}
