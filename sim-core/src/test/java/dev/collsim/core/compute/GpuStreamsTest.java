package dev.collsim.core.compute;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.collsim.core.engine.Engine;
import org.junit.jupiter.api.Test;

/** Kernels on a GPU's streams, on the engine, with times worked by hand. */
class GpuStreamsTest {
    private static final long US = 1_000_000;

    /**
     * A 10 us compute kernel beside a 4 us collective holding half of 100 SMs: at half speed for
     * 4 us (2 us of its work), then alone for the 8 us it has left: it ends at 12 us. The next compute
     * kernel waits for its stream; a kernel that waits on the collective starts at 4 us.
     */
    @Test
    void aCollectiveSlowsTheComputeBesideIt() {
        Engine engine = new Engine();
        GpuStreams g = new GpuStreams(engine, 100, 2);
        int gemm = g.kernel(0, 10 * US, true, 0);
        int allReduce = g.kernel(1, 4 * US, false, 50);
        int next = g.kernel(0, 1 * US, true, 0);
        int after = g.kernel(1, 3 * US, false, 10, allReduce);
        g.run();
        assertEquals(0, g.startPicos(gemm));
        assertEquals(4 * US, g.endPicos(allReduce));
        // 4 us at 0.5, then 6 us of work less what the second collective (10 of 100 SMs) takes away:
        // from 4 to 7 us at 0.9 (2.7 us of work), the last 5.3 us alone: 4 + 3 + 5.3 = 12.3 us.
        assertEquals(12_300_000, g.endPicos(gemm));
        assertEquals(4 * US, g.startPicos(after));
        assertEquals(7 * US, g.endPicos(after));
        assertEquals(12_300_000, g.startPicos(next));
        assertEquals(13_300_000, g.endPicos(next));
    }

    /** The same kernels with the collectives open, ended by events 4 and 3 us after they start: the same times. */
    @Test
    void anOpenKernelEndsWhenItsRunnerSays() {
        Engine engine = new Engine();
        GpuStreams g = new GpuStreams(engine, 100, 2);
        long[] takes = new long[4];
        GpuStreams.OpenKernels runner = k -> engine.schedule(engine.now() + takes[k], () -> g.finish(k));
        int gemm = g.kernel(0, 10 * US, true, 0);
        int allReduce = g.openKernel(1, 50, runner);
        int next = g.kernel(0, 1 * US, true, 0);
        int after = g.openKernel(1, 10, runner, allReduce);
        takes[allReduce] = 4 * US;
        takes[after] = 3 * US;
        g.run();
        assertEquals(4 * US, g.endPicos(allReduce));
        assertEquals(12_300_000, g.endPicos(gemm));
        assertEquals(4 * US, g.startPicos(after));
        assertEquals(7 * US, g.endPicos(after));
        assertEquals(13_300_000, g.endPicos(next));
    }

    @Test
    void onlyARunningOpenKernelCanBeFinished() {
        Engine engine = new Engine();
        GpuStreams g = new GpuStreams(engine, 10, 2);
        int fixed = g.kernel(0, US, true, 0);
        int open = g.openKernel(1, 1, k -> { }, fixed);
        engine.schedule(0, () -> assertThrows(IllegalStateException.class, () -> g.finish(open)));
        engine.schedule(0, () -> assertThrows(IllegalStateException.class, () -> g.finish(fixed)));
        assertThrows(IllegalStateException.class, g::run);
    }

    @Test
    void aKernelWaitsOnWhatItDependsOnAcrossStreams() {
        Engine engine = new Engine();
        GpuStreams g = new GpuStreams(engine, 10, 2);
        int a = g.kernel(0, 5 * US, true, 0);
        int b = g.kernel(1, 2 * US, false, 0, a);
        int c = g.kernel(0, 1 * US, true, 0, b);
        g.run();
        assertEquals(5 * US, g.startPicos(b));
        assertEquals(7 * US, g.startPicos(c));
        assertEquals(8 * US, g.endPicos(c));
    }

    @Test
    void aCollectiveHoldingEverySmLeavesComputeItsLeastShare() {
        Engine engine = new Engine();
        GpuStreams g = new GpuStreams(engine, 10, 2);
        int gemm = g.kernel(0, 1 * US, true, 0);
        g.kernel(1, 100 * US, false, 20);
        g.run();
        assertEquals(Math.round(US / GpuStreams.LEAST_SHARE), g.endPicos(gemm));
    }

    @Test
    void aKernelMayOnlyWaitOnOnesAddedBeforeIt() {
        GpuStreams g = new GpuStreams(new Engine(), 10, 1);
        assertThrows(IllegalArgumentException.class, () -> g.kernel(0, US, true, 0, 0));
    }
}
