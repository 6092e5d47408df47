package dev.collsim.core.collective;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.collsim.core.units.Rate;
import dev.collsim.core.units.TimeSpan;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Where nothing contends the simulator is the alpha-beta model exactly, on random fabrics (a fixed
 * seed): one message of B bytes from rank 0 to rank 1 through a switch takes launch + max(wire bytes /
 * link rate, B / channel rate) + send overhead + notification + two hops, as ExactTimeTest works out by hand.
 */
class AlphaBetaPropertiesTest {
    private static final int CASES = 200;

    @Test
    void anUncontendedMessageTakesTheAlphaBetaTime() {
        Random r = new Random(20261129);
        for (int i = 0; i < CASES; i++) {
            double linkGbps = 1 + r.nextDouble() * 900;
            double hopMicros = r.nextDouble() * 5;
            double channelGbps = 1 + r.nextDouble() * 900;
            long sendOverheadPs = r.nextInt(3_000_000);
            long notifyPs = r.nextInt(5_000_000);
            long launchPs = r.nextInt(10_000_000);
            Protocol protocol = Protocol.values()[r.nextInt(Protocol.values().length)];
            long bytes = 8 + r.nextLong(protocol.stepDataBytes() - 8) / 8 * 8; // one buffer step: one message
            TestFabrics two = TestFabrics.star(2, linkGbps, hopMicros);
            ProtocolCosts costs = new ProtocolCosts(Rate.gigabytesPerSecond(channelGbps), new TimeSpan(sendOverheadPs),
                    new TimeSpan(notifyPs));
            Schedule s = RingAlgorithm.inRankOrder(2).schedule(new CollectiveRequest(CollectiveOp.BROADCAST, 2, bytes, 0, protocol, 1));
            assertEquals(1, s.transferCount(), "one message");
            long t = CollectiveSimulator.run(CollectiveRun.of(RankPlacement.of(two.fabric, two.ranks), s,
                    StepCosts.of(costs, new TimeSpan(launchPs))).checkingCapacity()).durationPicos();

            // The link carries the protocol's wire bytes; the channel's rate caps the data.
            double wireSeconds = Math.max(bytes / protocol.wireEfficiency() / (linkGbps * 1e9), bytes / (channelGbps * 1e9));
            double expected = launchPs + wireSeconds * 1e12 + sendOverheadPs + notifyPs + 2 * Math.round(hopMicros * 1e6);
            assertEquals(expected, t, 2 + expected * 1e-9, "case " + i + ": " + bytes + " B " + protocol + " over " + linkGbps
                    + " GB/s links, channel " + channelGbps + " GB/s, hop " + hopMicros + " us");
        }
    }
}
