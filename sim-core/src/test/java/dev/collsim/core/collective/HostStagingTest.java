package dev.collsim.core.collective;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.core.engine.Engine;
import dev.collsim.core.fabric.DeviceKind;
import dev.collsim.core.fabric.Fabric;
import dev.collsim.core.fabric.FabricBuilder;
import dev.collsim.core.flow.FlowNetwork;
import dev.collsim.core.units.Rate;
import dev.collsim.core.units.TimeSpan;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Transfers staged through host memory (no peer-to-peer): two legs, one primitive per channel at a time. */
class HostStagingTest {
    private static final ProtocolCosts SIMPLE = new ProtocolCosts(Rate.gigabytesPerSecond(100), TimeSpan.ofMicros(1),
            TimeSpan.ofMicros(2));
    private static final double EFF = ScheduleRunner.HOST_ACCESS_EFFICIENCY;

    /** Two GPUs under one PCIe switch, its uplink to a CPU; every link 50 GB/s and 0.25 us. */
    private final Fabric fabric;
    private final int[] ranks;
    private final int cpu;

    HostStagingTest() {
        FabricBuilder b = new FabricBuilder();
        cpu = b.addDevice("cpu0", DeviceKind.CPU);
        int sw = b.addDevice("pcie0", DeviceKind.PCIE_SWITCH);
        b.addDuplex(sw, cpu, Rate.gigabytesPerSecond(50), TimeSpan.ofMicros(0.25), "uplink");
        ranks = new int[2];
        for (int g = 0; g < 2; g++) {
            ranks[g] = b.addDevice("gpu" + g, DeviceKind.GPU);
            b.addDuplex(ranks[g], sw, Rate.gigabytesPerSecond(50), TimeSpan.ofMicros(0.25), "pcie");
        }
        fabric = b.build();
    }

    private record Run(RunResult result, List<String> violations, TransferTimes times) {}

    private Run run(CollectiveRequest req, boolean staged) {
        Engine engine = new Engine();
        FlowNetwork net = new FlowNetwork(engine, fabric.links().stream().mapToDouble(l -> l.rate().bytesPerSecond()).toArray());
        net.setCheckCapacity(true);
        ScheduleRunner runner = new ScheduleRunner(engine, net,
                new RankPlacement(fabric, ranks, new int[] {-1, -1}, null, staged ? new HostMemory(new int[] {cpu, cpu}, null) : null));
        Schedule s = RingAlgorithm.inRankOrder(2).schedule(req);
        ContributionTracker tracker = new ContributionTracker(s);
        TransferTimes times = new TransferTimes(s.transferCount());
        runner.setObserver(TransferObserver.both(tracker, times));
        RunResult r = runner.run(s, StepCosts.of(SIMPLE, TimeSpan.ofMicros(5)));
        return new Run(r, tracker.verify(), times);
    }

    /**
     * One 500,000 B message: launch 5; written up to host memory in 10 us / efficiency; send overhead
     * 1, two hops 0.5 and the notify 2 until the receiver sees it; read back down in 10 us / efficiency
     * and two hops 0.5. The transfer is received (in the receiver's own memory) when the read ends.
     */
    @Test
    void aMessageIsWrittenToHostMemoryThenRead() {
        Run r = run(new CollectiveRequest(CollectiveOp.BROADCAST, 2, 500_000, 0, Protocol.SIMPLE, 1), true);
        double expectedMicros = 5 + 10 / EFF + 1 + 0.5 + 2 + 10 / EFF + 0.5;
        assertEquals(expectedMicros, r.result().durationPicos() / 1e6, 1e-5);
        assertEquals(List.of(), r.violations());
        assertEquals(5_000_000L, r.times().startedPicos(0));
        assertEquals(r.result().durationPicos(), r.times().receivedPicos(0));
    }

    /**
     * A large broadcast streams: the root writes while the other GPU reads, each direction of the
     * uplink carries the data once, so the bandwidth is the link's at the kernels' access efficiency,
     * less the send overhead between chunks (1 us in every 12).
     */
    @Test
    void aBroadcastStreamsAtTheUplinkRate() {
        long bytes = 256L << 20;
        Run r = run(new CollectiveRequest(CollectiveOp.BROADCAST, 2, bytes, 0, Protocol.SIMPLE, 2), true);
        double gbps = bytes / (r.result().durationPicos() / 1e3);
        assertEquals(50 * EFF, gbps, 50 * EFF * 0.06);
        assertEquals(List.of(), r.violations());
    }

    /**
     * An all_reduce of two GPUs: each writes and reads as much as it sends, and a channel does one
     * primitive at a time (send, receive-reduce-send, receive), while both GPUs share the uplink: three
     * phases each moving the data at half the uplink, so a third of the uplink rate, where the direct
     * path through the switch gives each GPU its whole link (less, on both paths, the local copy of the
     * reduced half each rank keeps: hence well over 2.5 times, not 3).
     */
    @Test
    void anAllReduceTakesThreePhasesOfTheSharedUplink() {
        long bytes = 256L << 20;
        CollectiveRequest req = new CollectiveRequest(CollectiveOp.ALL_REDUCE, 2, bytes, 0, Protocol.SIMPLE, 2);
        Run staged = run(req, true);
        double gbps = bytes / (staged.result().durationPicos() / 1e3);
        assertEquals(50 * EFF / 3, gbps, 50 * EFF / 3 * 0.05);
        assertEquals(List.of(), staged.violations());
        Run direct = run(req, false);
        assertTrue(staged.result().durationPicos() > 2.5 * direct.result().durationPicos(),
                staged.result().durationPicos() + " ps staged against " + direct.result().durationPicos() + " ps direct");
    }
}
