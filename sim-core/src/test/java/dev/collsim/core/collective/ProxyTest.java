package dev.collsim.core.collective;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.collsim.core.fabric.DeviceKind;
import dev.collsim.core.fabric.Fabric;
import dev.collsim.core.fabric.FabricBuilder;
import dev.collsim.core.units.Rate;
import dev.collsim.core.units.TimeSpan;
import org.junit.jupiter.api.Test;

/**
 * One proxy thread serves all of a GPU's network steps, worked by hand on three nodes of one GPU
 * (GPU to NIC 0.5 us, NIC to the network switch 0.3 us: 1.6 us a route) with 16-byte steps, no
 * notify latency and no launch time.
 */
class ProxyTest {
    private final int[] ranks = new int[3];
    private final Fabric fabric = threeNodes();

    private Fabric threeNodes() {
        FabricBuilder b = new FabricBuilder();
        int net = b.addDevice("net", DeviceKind.NETWORK_SWITCH);
        for (int r = 0; r < 3; r++) {
            ranks[r] = b.addDevice("gpu" + r, DeviceKind.GPU);
            int nic = b.addDevice("nic" + r, DeviceKind.NIC);
            b.addDuplex(ranks[r], nic, Rate.gigabytesPerSecond(50), TimeSpan.ofMicros(0.5), "pcie");
            b.addDuplex(nic, net, Rate.gigabytesPerSecond(48.5), TimeSpan.ofMicros(0.3), "ib");
        }
        return b.build();
    }

    /** Two steps at once, each from its sender to its receiver. */
    private long run(int[][] pairs, TimeSpan post, TimeSpan receive) {
        CollectiveRequest req = new CollectiveRequest(CollectiveOp.SEND_RECV, 3, 16, 0, Protocol.LL, 1);
        ScheduleBuilder b = new ScheduleBuilder(req, "test");
        for (int[] p : pairs) {
            b.transfer(0, 0, p[0], p[1], b.piece(0, 16, p[0], p[1]), false);
        }
        return run(b.build(), post, receive);
    }

    private long run(Schedule schedule, TimeSpan post, TimeSpan receive) {
        ProtocolCosts costs = new ProtocolCosts(Rate.gigabytesPerSecond(20), TimeSpan.ZERO, TimeSpan.ZERO, TimeSpan.ZERO,
                post, receive);
        return TestFabrics.run(fabric, ranks, new int[] {-1, -1, -1}, null, schedule, costs, null, null, TimeSpan.ZERO)
                .result().durationPicos();
    }

    /** Without proxy costs both steps take their route's 1.6 us (and 16 B of LL wire: about a nanosecond). */
    @Test
    void freeProxiesCostNothing() {
        assertEquals(1.6, run(new int[][] {{0, 1}, {0, 2}}, TimeSpan.ZERO, TimeSpan.ZERO) / 1e6, 0.01);
    }

    /** Rank 0's proxy posts its two steps one after the other, 1 us each: the second arrives at 2 + 1.6 = 3.6 us. */
    @Test
    void postsOfOneSenderQueue() {
        assertEquals(3.6, run(new int[][] {{0, 1}, {0, 2}}, TimeSpan.ofMicros(1), TimeSpan.ZERO) / 1e6, 0.01);
    }

    /**
     * Both steps land on rank 0 at 1.6 us; its proxy takes 2 us for each (a flush) in turn: the second is
     * visible at 1.6 + 2 + 2 = 5.6 us.
     */
    @Test
    void arrivalsAtOneReceiverQueue() {
        assertEquals(5.6, run(new int[][] {{1, 0}, {2, 0}}, TimeSpan.ZERO, TimeSpan.ofMicros(2)) / 1e6, 0.01);
    }

    /**
     * One buffer step of 32 B sent from rank 0 to rank 1 as two 16-byte transfers, the second after the
     * first on the connection: posted separately they arrive at 1 + 1 + 1.6 = 3.6 us; as one step
     * ({@link ScheduleBuilder#postedWithPrevious}) the proxy posts once and both are there at 2.6 us.
     */
    @Test
    void aStepIsPostedOnceHoweverManyTransfersCarryIt() {
        assertEquals(3.6, run(twoTransfersOfOneStep(false), TimeSpan.ofMicros(1), TimeSpan.ZERO) / 1e6, 0.01);
        assertEquals(2.6, run(twoTransfersOfOneStep(true), TimeSpan.ofMicros(1), TimeSpan.ZERO) / 1e6, 0.01);
    }

    private static Schedule twoTransfersOfOneStep(boolean onePost) {
        CollectiveRequest req = new CollectiveRequest(CollectiveOp.SEND_RECV, 3, 32, 0, Protocol.LL, 1);
        ScheduleBuilder b = new ScheduleBuilder(req, "test");
        int first = b.transfer(0, 0, 0, 1, b.piece(0, 16, 0, 1), false);
        int second = b.transfer(0, 0, 0, 1, b.piece(16, 16, 0, 1), false);
        b.afterSend(second, first);
        if (onePost) {
            b.postedWithPrevious(second);
        }
        return b.build();
    }
}
