package dev.collsim.scenarios.properties;

import dev.collsim.core.collective.CollectiveOp;
import dev.collsim.core.collective.Protocol;
import dev.collsim.core.nccl.AlgorithmId;
import dev.collsim.core.nccl.Communicator;
import dev.collsim.core.nccl.NcclPlanner;
import dev.collsim.topologies.systems.SystemPreset;
import dev.collsim.topologies.systems.WhatIf;
import java.util.EnumSet;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/** The simulator on random sizes and group sizes: never faster than the wires allow, never faster for more bytes. */
class SimulatorPropertiesTest {
    private static double micros(Communicator c, long bytes, int channels) {
        var plan = NcclPlanner.plan(c, CollectiveOp.ALL_REDUCE, bytes, 0, EnumSet.of(AlgorithmId.RING), EnumSet.of(Protocol.SIMPLE), channels);
        return c.simulate(plan, null, false).durationPicos() / 1e6;
    }

    /** A ring all_reduce sends 2 (n-1)/n of the buffer from every GPU: no faster than that over its NVLink bundle. */
    @Property(tries = 25, seed = "20261129")
    void neverBelowTheBandwidthBound(@ForAll @IntRange(min = 2, max = 8) int gpus, @ForAll @LongRange(min = 1 << 10, max = 1L << 30) long bytes) {
        Communicator c = SystemPreset.HGX_H100.build(1, gpus, null, WhatIf.NONE);
        double bundle = c.fabric().link(c.fabric().outLinks(c.rankDevices()[0])[0]).rate().bytesPerSecond();
        double bound = 2.0 * (gpus - 1) / gpus * bytes / bundle * 1e6;
        double t = micros(c, bytes / 16 * 16, 0);
        if (t < bound) {
            throw new AssertionError(gpus + " GPUs, " + bytes + " B: " + t + " us, below the bound " + bound + " us");
        }
    }

    /** With algorithm, protocol and channels fixed, more bytes never take less time. */
    @Property(tries = 25, seed = "20261129")
    void monotoneInSize(@ForAll @IntRange(min = 2, max = 8) int gpus, @ForAll @LongRange(min = 1 << 10, max = 1L << 28) long bytes,
                        @ForAll @LongRange(min = 16, max = 1L << 26) long more) {
        Communicator c = SystemPreset.HGX_H100.build(1, gpus, null, WhatIf.NONE);
        long small = bytes / 16 * 16;
        long large = (bytes + more) / 16 * 16;
        double a = micros(c, small, 8);
        double b = micros(c, large, 8);
        if (b < a) {
            throw new AssertionError(gpus + " GPUs: " + small + " B take " + a + " us, " + large + " B " + b + " us");
        }
    }
}
