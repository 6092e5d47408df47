package dev.collsim.scenarios.properties;

import dev.collsim.core.collective.CollectiveOp;
import dev.collsim.core.collective.Protocol;
import dev.collsim.core.nccl.AlgorithmId;
import dev.collsim.core.nccl.Communicator;
import dev.collsim.core.nccl.NcclPlanner;
import dev.collsim.topologies.systems.SystemPreset;
import dev.collsim.topologies.systems.WhatIf;
import java.util.EnumSet;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The simulator on random sizes and group sizes (a fixed seed): never faster than the wires allow, never faster for more bytes. */
class SimulatorPropertiesTest {
    private static final int CASES = 25;

    private static double micros(Communicator c, long bytes, int channels) {
        var plan = NcclPlanner.plan(c, CollectiveOp.ALL_REDUCE, bytes, 0, EnumSet.of(AlgorithmId.RING), EnumSet.of(Protocol.SIMPLE), channels);
        return c.simulate(plan, null, false).durationPicos() / 1e6;
    }

    /**
     * On random NVLink rates and latencies: a ring all_reduce sends 2 (n-1)/n of the buffer from every
     * GPU, no faster than its NVLink bundle carries it, and takes 2 (n-1) steps, each crossing the route.
     */
    @Test
    void neverBelowTheBandwidthAndLatencyBounds() {
        Random r = new Random(20261129);
        for (int i = 0; i < CASES; i++) {
            int gpus = 2 + r.nextInt(7);
            long bytes = (16 + (long) (Math.pow(r.nextDouble(), 3) * (1L << 30))) / 16 * 16;
            WhatIf fabric = WhatIf.NONE.scaledBy(Map.of(WhatIf.LinkClass.NVLINK, 0.05 + 4 * r.nextDouble()),
                    Map.of(WhatIf.LinkClass.NVLINK, 0.05 + 20 * r.nextDouble()));
            Communicator c = SystemPreset.HGX_H100.build(1, gpus, null, fabric);
            int gpu0 = c.placement().devices()[0];
            double bundle = c.fabric().link(c.fabric().outLinks(gpu0)[0]).rate().bytesPerSecond();
            double bandwidth = 2.0 * (gpus - 1) / gpus * bytes / bundle * 1e6;
            double latency = 2.0 * (gpus - 1) * c.fabric().router().route(gpu0, c.placement().devices()[1]).latencyPicos() / 1e6;
            double t = micros(c, bytes, 0);
            if (t < Math.max(bandwidth, latency)) {
                throw new AssertionError(gpus + " GPUs, " + bytes + " B: " + t + " us, below the bounds " + bandwidth + " / " + latency + " us");
            }
        }
    }

    /** With algorithm, protocol and channels fixed, more bytes never take less time. */
    @Test
    void monotoneInSize() {
        Random r = new Random(20261130);
        for (int i = 0; i < CASES; i++) {
            int gpus = 2 + r.nextInt(7);
            long small = (1024 + (long) (r.nextDouble() * (1L << 28))) / 16 * 16;
            long large = small + (16 + (long) (r.nextDouble() * (1L << 26))) / 16 * 16;
            Communicator c = SystemPreset.HGX_H100.build(1, gpus, null, WhatIf.NONE);
            double a = micros(c, small, 8);
            double b = micros(c, large, 8);
            if (b < a) {
                throw new AssertionError(gpus + " GPUs: " + small + " B take " + a + " us, " + large + " B " + b + " us");
            }
        }
    }
}
