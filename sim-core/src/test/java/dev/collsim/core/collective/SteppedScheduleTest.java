package dev.collsim.core.collective;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.collsim.core.input.InputException;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** A stepped schedule is the schedule a builder makes adding each step's transfers, one stream each, as {@link Streams} links them. */
class SteppedScheduleTest {
    private static final CollectiveRequest REQ = new CollectiveRequest(CollectiveOp.ALL_REDUCE, 4, 1 << 20, 0, Protocol.SIMPLE, 3);
    /** Steps of each channel: past Protocol.STEPS, under it, and one. */
    private static final int[] STEPS = {13, 3, 1};

    /** Piece k of step s of channel c: any distinct ranges will do. */
    private static long pieceOffset(int c, int s, int k) {
        return ((c * 100L + s) * 2 + k) * 1000;
    }

    private static long pieceLength(int c, int s, int k) {
        return 100 + 7 * s + 3 * k + c;
    }

    private static long stepBytes(int c, int s) {
        return pieceLength(c, s, 0) + pieceLength(c, s, 1);
    }

    /**
     * The step's transfers, in {@code b}, on pieces p0 and p1: a step-wide copy, a reduction to
     * rank 1, a copy on to rank 2 and a multicast from rank 2; returns which are step-wide.
     */
    private static boolean[] step(ScheduleBuilder b, int c, int s, int p0, int p1, Streams streams) {
        int[] t = new int[4];
        t[0] = b.localCopy(c, s, 0, p0, stepBytes(c, s));
        t[1] = b.transfer(c, s, 0, 1, p0, true);
        t[2] = b.transfer(c, s, 1, 2, p1, false);
        t[3] = b.switchMulticast(c, s, 2, p1);
        for (int o = 0; o < t.length && streams != null; o++) {
            streams.next(Streams.key(o, c, -1, -1), t[o]);
        }
        b.afterDelivery(t[1], t[0]);
        b.afterDelivery(t[2], t[1]);
        b.afterSend(t[2], t[0]);
        b.afterDelivery(t[3], t[2]);
        return new boolean[] {true, false, false, false};
    }

    private static Schedule stepped() {
        SteppedSchedule.Builder b = new SteppedSchedule.Builder(REQ, "test");
        for (int c = 0; c < STEPS.length; c++) {
            ScheduleBuilder one = new ScheduleBuilder(REQ, "test");
            boolean[] wide = step(one, 0, 0, one.piece(0, 0, -1), one.piece(0, 0, -1), null);
            long[] bytes = new long[STEPS[c]];
            int first = b.pieceCount();
            for (int s = 0; s < STEPS[c]; s++) {
                b.piece(pieceOffset(c, s, 0), pieceLength(c, s, 0));
                b.piece(pieceOffset(c, s, 1), pieceLength(c, s, 1));
                bytes[s] = stepBytes(c, s);
            }
            b.channel(c, new SteppedSchedule.Step(one.build(), wide), first, bytes);
        }
        return b.build();
    }

    private static Schedule built() {
        ScheduleBuilder b = new ScheduleBuilder(REQ, "test");
        Streams streams = new Streams(b);
        for (int c = 0; c < STEPS.length; c++) {
            for (int s = 0; s < STEPS[c]; s++) {
                int p0 = b.piece(pieceOffset(c, s, 0), pieceLength(c, s, 0), -1);
                int p1 = b.piece(pieceOffset(c, s, 1), pieceLength(c, s, 1), -1);
                step(b, c, s, p0, p1, streams);
            }
        }
        return b.build();
    }

    @Test
    void numbersAndLinksItsTransfersAsABuilderWould() {
        Schedule stepped = stepped();
        Schedule built = built();
        SameSchedules.assertSameSchedule(built, stepped, "stepped");
        // Each transfer kind, sender and receiver once: the first step of each channel.
        assertEquals(4 * STEPS.length, stepped.representatives().count());
    }

    /** Successors are numbered twice over in an int: a schedule of 2^30 transfers or more is refused as input, with what to change. */
    @Test
    void aScheduleTooLargeToNumberIsRefusedAsInput() {
        SteppedSchedule.Builder b = new SteppedSchedule.Builder(REQ, "test");
        ScheduleBuilder one = new ScheduleBuilder(REQ, "test");
        int piece = one.piece(0, 0, -1);
        for (int i = 0; i < (1 << 16); i++) {
            one.localCopy(0, 0, i % 4, piece);
        }
        int steps = (Schedule.MAX_TRANSFERS >> 16) + 1;
        for (int s = 0; s < steps; s++) {
            b.piece(s, 1);
        }
        SteppedSchedule.Step step = new SteppedSchedule.Step(one.build(), new boolean[1 << 16]);
        InputException x = assertThrows(InputException.class, () -> b.channel(0, step, 0, new long[steps]));
        assertEquals("all_reduce of 1048576 bytes on 4 ranks over 3 channel(s) would take more than 1,073,741,824 transfers,"
                + " more than one schedule can hold: try a smaller size, fewer channels or fewer ranks", x.getMessage());
    }

    @Test
    void aChannelMustRegisterItsPiecesFirst() {
        SteppedSchedule.Builder b = new SteppedSchedule.Builder(REQ, "test");
        ScheduleBuilder one = new ScheduleBuilder(REQ, "test");
        boolean[] wide = step(one, 0, 0, one.piece(0, 0, -1), one.piece(0, 0, -1), null);
        b.piece(0, 10);
        b.piece(10, 10);
        SteppedSchedule.Step step = new SteppedSchedule.Step(one.build(), wide);
        assertThrows(IllegalArgumentException.class, () -> b.channel(0, step, 0, new long[] {20, 20}));
    }
}
