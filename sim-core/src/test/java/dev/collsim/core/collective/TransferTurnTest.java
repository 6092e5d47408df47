package dev.collsim.core.collective;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** A held schedule folds under a turn of its ranks only where the turn maps it onto itself. */
class TransferTurnTest {
    private static final CollectiveRequest REQ = new CollectiveRequest(CollectiveOp.ALL_GATHER, 4, 4096, 0, Protocol.SIMPLE, 1);
    private static final int[] TURN = {1, 2, 3, 0};

    /** Two rounds of each rank sending to the next; the second round waits on what the first delivered, and breaks symmetry if told. */
    private static Schedule twoRounds(boolean oneExtraDependency) {
        ScheduleBuilder b = new ScheduleBuilder(REQ, "test");
        int[] first = new int[4];
        for (int r = 0; r < 4; r++) {
            first[r] = b.transfer(0, 0, r, (r + 1) % 4, b.piece(r * 1024L, 1024, r), false);
        }
        for (int r = 0; r < 4; r++) {
            int t = b.transfer(0, 1, r, (r + 1) % 4, b.piece(((r + 3) % 4) * 1024L, 1024, (r + 3) % 4), false);
            b.afterDelivery(t, first[(r + 3) % 4]);
            b.afterSend(t, first[r]);
            if (oneExtraDependency && r == 0) {
                b.afterDelivery(t, first[2]);
            }
        }
        return b.build();
    }

    @Test
    void aSymmetricScheduleFoldsToOneRanksTransfers() {
        Schedule s = twoRounds(false);
        TransferTurn turn = TransferTurn.of(s, TURN).orElseThrow();
        Schedule orbit = turn.foldStep(s, 4, new boolean[s.transferCount()]).orElseThrow().transfers();
        assertEquals(2, orbit.transferCount());
        assertEquals(0, orbit.src(0));
        assertEquals(1, orbit.dst(1));
        // The second round waits on the first twice: its own send and the delivery that rank 3's turned round made.
        int[] into = new int[orbit.maxSuccessors()];
        assertEquals(2, orbit.successors(0, into));
        assertEquals(1 << 1, into[0] & ~1);
        assertEquals(1 << 1, into[1] & ~1);
        assertEquals(1, (into[0] ^ into[1]) & 1, "one delivery and one send dependency");
    }

    @Test
    void oneRankWaitingOnMoreBreaksTheTurn() {
        assertTrue(TransferTurn.of(twoRounds(true), TURN).isEmpty());
    }

    @Test
    void aTurnOfTheWrongOrderDoesNotFold() {
        Schedule s = twoRounds(false);
        TransferTurn turn = TransferTurn.of(s, TURN).orElseThrow();
        assertTrue(turn.foldStep(s, 2, new boolean[s.transferCount()]).isEmpty());
    }
}
