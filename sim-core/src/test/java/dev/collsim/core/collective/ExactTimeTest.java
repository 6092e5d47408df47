package dev.collsim.core.collective;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.collsim.core.units.Rate;
import dev.collsim.core.units.TimeSpan;
import org.junit.jupiter.api.Test;

/** Times worked out by hand on a 2-GPU fabric: each GPU has a 50 GB/s link to a switch, 0.25 us per hop. */
class ExactTimeTest {
    private static final ProtocolCosts SIMPLE = new ProtocolCosts(Rate.gigabytesPerSecond(100), TimeSpan.ofMicros(1),
            TimeSpan.ofMicros(2));
    private final TestFabrics two = TestFabrics.star(2, 50, 0.25);

    private RunResult run(CollectiveRequest req, ProtocolCosts costs) {
        Schedule s = RingAlgorithm.inRankOrder(req.nRanks()).schedule(req);
        return CollectiveSimulator.run(CollectiveRun.of(RankPlacement.of(two.fabric, two.ranks), s,
                StepCosts.of(costs, TimeSpan.ofMicros(5))).checkingCapacity());
    }

    /**
     * One Simple message of 500,000 B from rank 0 to rank 1 (a 2-rank broadcast, one chunk):
     * launch 5 + 500,000 B / 50 GB/s = 10 + send overhead 1 + notify 2 + two hops 0.5 = 18.5 us.
     */
    @Test
    void twoGpuSimpleTransferIsAlphaPlusSizeOverBandwidth() {
        RunResult r = run(new CollectiveRequest(CollectiveOp.BROADCAST, 2, 500_000, 0, Protocol.SIMPLE, 1), SIMPLE);
        assertEquals(1, r.schedule().transferCount());
        assertEquals(18_500_000L, r.durationPicos());
    }

    /**
     * The same message watched by a {@link TransferTimes} beside a second observer: it starts when
     * the kernel does (5 us) and is received at 18.5 us, and both observers hear of it.
     */
    @Test
    void transferTimesRecordWhenTheTransferStartedAndWasReceived() {
        CollectiveRequest req = new CollectiveRequest(CollectiveOp.BROADCAST, 2, 500_000, 0, Protocol.SIMPLE, 1);
        Schedule s = RingAlgorithm.inRankOrder(2).schedule(req);
        TransferTimes times = new TransferTimes(s.transferCount());
        long[] delivered = {-1};
        TransferObserver other = new TransferObserver() {
            @Override
            public void started(int t, long time) {
            }

            @Override
            public void delivered(int t, long time) {
                delivered[0] = time;
            }
        };
        CollectiveSimulator.run(CollectiveRun.of(RankPlacement.of(two.fabric, two.ranks), s, StepCosts.of(SIMPLE, TimeSpan.ofMicros(5)))
                .observedBy(TransferObserver.both(times, other)).checkingCapacity());
        assertEquals(5_000_000L, times.startedPicos(0));
        assertEquals(18_500_000L, times.receivedPicos(0));
        assertEquals(18_500_000L, delivered[0]);
    }

    /**
     * The channel's own cap binds when it is below the link: at 20 GB/s the same message takes 25 us
     * of transfer: 5 + 25 + 1 + 2 + 0.5 = 33.5 us.
     */
    @Test
    void channelRateCapsATransfer() {
        ProtocolCosts slow = new ProtocolCosts(Rate.gigabytesPerSecond(20), TimeSpan.ofMicros(1), TimeSpan.ofMicros(2));
        RunResult r = run(new CollectiveRequest(CollectiveOp.BROADCAST, 2, 500_000, 0, Protocol.SIMPLE, 1), slow);
        assertEquals(33_500_000L, r.durationPicos());
    }

    /**
     * LL puts 8 data bytes in every 16-byte line: 20,000 B of data are 40,000 B on the wire, 0.8 us
     * at 50 GB/s; no send overhead: 5 + 0.8 + 2 + 0.5 = 8.3 us.
     */
    @Test
    void llDoublesTheWireBytes() {
        ProtocolCosts ll = new ProtocolCosts(Rate.gigabytesPerSecond(100), TimeSpan.ZERO, TimeSpan.ofMicros(2));
        RunResult r = run(new CollectiveRequest(CollectiveOp.BROADCAST, 2, 20_000, 0, Protocol.LL, 1), ll);
        assertEquals(8_300_000L, r.durationPicos());
    }

    /**
     * A 2-rank Simple all_reduce of 2 MiB on one channel: one loop of 2 blocks of 1 MiB, each sent as
     * 2 slices of 512 KiB (10.48576 us each at 50 GB/s). Both ranks send at once on their own links.
     * Step 0: slice 0 leaves at 5 + 10.48576, the channel is free 1 us later, slice 1 then takes the
     * link: ends at 5 + 2 x 10.48576 + 1. Step 1 (copy of the reduced block) for slice 0 needs slice 0
     * of step 0 delivered (5 + 10.48576 + 3.5) and the channel free (after slice 1 + 1): the latter is
     * later, so slices follow back to back: 4 slices + 3 send overheads, then the last one is delivered
     * 1 + 2 + 0.5 later. Each step-1 slice is also copied into the rank's own output (the reduced block
     * it keeps), at the channel's 100 GB/s before it moves on: 5.24288 us each.
     * 5 + 4 x 10.48576 + 4 x 1 + 2 x 5.24288 + 2.5 = 63.9288 us.
     */
    @Test
    void simpleSlicesPipelineOnAChannel() {
        RunResult r = run(new CollectiveRequest(CollectiveOp.ALL_REDUCE, 2, 2 << 20, 0, Protocol.SIMPLE, 1), SIMPLE);
        assertEquals(4, r.schedule().transferCount() / 2);
        assertEquals(63_928_800L, r.durationPicos());
    }
}
