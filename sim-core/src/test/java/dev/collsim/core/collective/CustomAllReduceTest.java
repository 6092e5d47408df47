package dev.collsim.core.collective;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.collsim.core.fabric.DeviceKind;
import dev.collsim.core.fabric.Fabric;
import dev.collsim.core.fabric.Link;
import dev.collsim.core.flow.FlowNetwork;
import dev.collsim.core.units.Rate;
import dev.collsim.core.units.TimeSpan;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The inference engines' all-reduce kernels: correct sums, and the traffic each is known for. */
class CustomAllReduceTest {
    private static final CustomKernelCosts COSTS = new CustomKernelCosts(Rate.gigabytesPerSecond(4), TimeSpan.ofMicros(1.5), TimeSpan.ofMicros(2.5),
            TimeSpan.ofMicros(4));
    private static final NvlsCosts NVLS = new NvlsCosts(0.85, Rate.gigabytesPerSecond(30), TimeSpan.ofNanos(500),
            TimeSpan.ofMicros(1), TimeSpan.ofMicros(2), Rate.gigabytesPerSecond(25));

    @ParameterizedTest(name = "{0} n={1} {2}B")
    @CsvSource({"ONE_SHOT, 8, 16384", "ONE_SHOT, 2, 1000", "TWO_SHOT, 8, 1048576", "TWO_SHOT, 6, 100000",
        "MULTIMEM, 8, 262144", "MULTIMEM, 4, 48"})
    void kernelsSumEverythingAndMoveTheirKnownTraffic(CustomAllReduceAlgorithm.Variant variant, int n, long bytes) {
        TestFabrics f = TestFabrics.nvlsStar(n);
        Fabric fabric = f.fabric;
        int blocks = CustomAllReduceAlgorithm.blocksFor(bytes);
        CollectiveRequest req = new CollectiveRequest(CollectiveOp.ALL_REDUCE, n, bytes, 0, Protocol.SIMPLE, blocks);
        Schedule s = new CustomAllReduceAlgorithm(variant).schedule(req);
        TestFabrics.Tracked run = f.run(s, COSTS.perBlock(variant), COSTS.multimem(NVLS), COSTS.launchLatency());
        FlowNetwork net = run.network();
        assertEquals(List.of(), run.tracker().verify());
        // Bytes leaving all GPUs: one-shot (n-1) D each, two-shot 2 (n-1)/n D each, multimem D (1 + 1/n) / efficiency each.
        double expected = switch (variant) {
            case ONE_SHOT -> n * (n - 1) * (double) bytes;
            case TWO_SHOT -> 2.0 * (n - 1) * bytes;
            case MULTIMEM -> n * bytes * (1 + 1.0 / n) / 0.85;
        };
        double up = 0;
        for (Link l : fabric.links()) {
            if (fabric.device(l.from()).kind() == DeviceKind.GPU) {
                up += net.bytesCarried(l.id());
            }
        }
        assertEquals(expected, up, 2.0 * n * s.transferCount() + 1, variant + " bytes leaving the GPUs (each flow rounds to a byte)");
    }
}
