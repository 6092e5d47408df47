package dev.collsim.topologies.systems;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.core.fabric.Route;
import dev.collsim.core.input.InputException;
import dev.collsim.core.nccl.Communicator;
import dev.collsim.core.units.Rate;
import dev.collsim.core.units.TimeSpan;
import org.junit.jupiter.api.Test;

class FlatSwitchTest {
    private static final FlatSwitch SIXTEEN = new FlatSwitch(16, Rate.gigabytesPerSecond(50), TimeSpan.ofMicros(1));

    /** GPU, its NIC, the switch, the other NIC, the other GPU: two links of 1 us, each GPU a node of its own. */
    @Test
    void everyPairCrossesTwoLinksOfTheSwitch() {
        FabricSystem s = SIXTEEN.system();
        assertEquals(16, s.nodes());
        assertEquals(1 + 2 * 16, s.fabric().devices().size());
        Route r = s.fabric().router().route(s.ranks()[3], s.ranks()[11]);
        assertEquals(4, r.links().length);
        assertEquals(2_000_000L, r.latencyPicos());
        assertTrue(r.viaNic());
        Communicator c = s.communicator();
        assertEquals(16, c.nNodes());
        assertThrows(InputException.class, () -> new FlatSwitch(1, Rate.gigabytesPerSecond(50), TimeSpan.ofMicros(1)));
    }

    /**
     * A 64 MiB ring all_reduce on 16 GPUs ends with every sum in place, and no faster than the links
     * allow: each GPU sends and receives 2 (n-1)/n of the buffer over its one 50 GB/s link.
     */
    @Test
    void aRingAllReduceIsCorrectAndBoundByTheLink() {
        Communicator c = SIXTEEN.system().communicator();
        long bytes = 64L << 20;
        double micros = CheckedRuns.ringAllReduceMicros(c, bytes);
        double bound = 2.0 * 15 / 16 * bytes / 50e9 * 1e6;
        assertTrue(micros >= bound && micros < 1.5 * bound, micros + " us against the link's " + bound + " us");
    }
}
