package dev.collsim.core.nccl;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.collsim.core.collective.Protocol;
import dev.collsim.core.collective.ProtocolCosts;
import dev.collsim.core.units.Rate;
import dev.collsim.core.units.TimeSpan;
import org.junit.jupiter.api.Test;

/** A tree's costs from a ring's, worked by hand from NCCL's tables (tuning.cc). */
class TreeCostsTest {
    private static final ProtocolCosts RING = new ProtocolCosts(Rate.gigabytesPerSecond(36.7), TimeSpan.ZERO,
            TimeSpan.ofMicros(1.4), TimeSpan.ofMicros(2.1), TimeSpan.ofMicros(1), TimeSpan.ZERO);

    /**
     * LL128 on 4 Hopper nodes: NVLink step 1.25 against the ring's 1.9 us (notify 1.4 -> 0.75), network
     * step 8.5 against 4.0 less the NVLink part's 0.65 (2.1 -> 7.25), channel rate x 29 / 36.7.
     */
    @Test
    void ll128OnFourHopperNodes() {
        ProtocolCosts tree = TreeCosts.of(RING, Protocol.LL128, NcclArch.HOPPER, 4);
        assertEquals(0.75, tree.notifyLatency().micros(), 1e-9);
        assertEquals(2.1 + (8.5 - 4.0) - (1.25 - 1.9), tree.netLatency().micros(), 1e-9);
        assertEquals(29.0, tree.channelRate().gigabytesPerSecond(), 1e-9);
        assertEquals(RING.proxyPost(), tree.proxyPost());
    }

    /** LL keeps the ring's NVLink step (0.6 us both) and rate; its network step is 5.0 against 2.7 us. */
    @Test
    void llOnTwoNodes() {
        ProtocolCosts tree = TreeCosts.of(RING, Protocol.LL, NcclArch.HOPPER, 2);
        assertEquals(1.4, tree.notifyLatency().micros(), 1e-9);
        assertEquals(2.1 + 2.3, tree.netLatency().micros(), 1e-9);
        assertEquals(36.7, tree.channelRate().gigabytesPerSecond(), 1e-9);
    }
}
