package dev.collsim.core.collective;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.core.units.Rate;
import dev.collsim.core.units.TimeSpan;
import org.junit.jupiter.api.Test;

/** A schedule that cannot progress ends with a diagnosis naming the waiting ranks and the missing transfer, never a hang. */
class StallTest {
    private static final ProtocolCosts SIMPLE = new ProtocolCosts(Rate.gigabytesPerSecond(100), TimeSpan.ofMicros(1),
            TimeSpan.ofMicros(2));

    @Test
    void aDependencyCycleNamesTheWaitingRanksAndTheTransferThatNeverStarts() {
        TestFabrics three = TestFabrics.star(3, 50, 0.25);
        ScheduleBuilder b = new ScheduleBuilder(new CollectiveRequest(CollectiveOp.ALL_GATHER, 3, 3_000, 0, Protocol.SIMPLE, 1), "cyclic");
        int piece = b.piece(0, 1_000, 0);
        int free = b.transfer(0, 0, 2, 0, piece, false);
        int first = b.transfer(0, 1, 0, 1, piece, false);
        int second = b.transfer(0, 2, 1, 2, piece, false);
        b.afterDelivery(first, free);
        b.afterDelivery(first, second);
        b.afterDelivery(second, first);

        CollectiveStalledException e = assertThrows(CollectiveStalledException.class,
                () -> three.run(b.build(), SIMPLE, null, TimeSpan.ofMicros(5)));
        assertArrayEquals(new int[] {1, 2}, e.waitingRanks());
        assertEquals(first, e.missingTransfer());
        // The one transfer that runs arrives at launch 5 + 1,000 B at 50 GB/s 0.02 + send 1 + hops 0.5 + notify 2.
        String m = e.getMessage();
        assertTrue(m.startsWith("all_gather (cyclic, 3 ranks) stalled at 8.520 us: 2 of 3 transfers never arrived; ranks 1, 2 wait for data;"), m);
        assertTrue(m.contains("transfer 1 (rank 0 -> rank 1, channel 0, step 1) never started: it waits for 1 transfer(s) that never arrive,"
                + " e.g. transfer 2 (rank 1 -> rank 2, channel 0, step 2), itself waiting (a dependency cycle)"), m);
    }
}
