package dev.collsim.core.collective;

import dev.collsim.core.engine.Engine;
import dev.collsim.core.fabric.Fabric;
import dev.collsim.core.flow.FlowNetwork;
import dev.collsim.core.units.TimeSpan;

/** Runs one schedule on a fresh engine and flow network over a fabric. */
public final class CollectiveSimulator {
    private CollectiveSimulator() {}

    /**
     * @param rankDevices   fabric device of each rank
     * @param rankSwitches  NVLS switch of each rank, or -1
     * @param rankSharp     SHARP switch of each rank's NIC, or null
     * @param host          where transfers without peer-to-peer or GPUDirect RDMA are staged, or null
     * @param nvls          costs of NVLS steps, or null if the fabric has no NVLS switch
     * @param sharp         costs of SHARP all-reduces, or null
     * @param observer      told of every transfer, or null
     * @param checkCapacity verify after every rate change that no link exceeds its rate (slower; for tests)
     */
    public static RunResult run(Fabric fabric, int[] rankDevices, int[] rankSwitches, int[] rankSharp, HostMemory host, Schedule schedule,
                                ProtocolCosts costs, NvlsCosts nvls, NvlsCosts sharp, TimeSpan launchLatency,
                                TransferObserver observer, boolean checkCapacity) {
        return run(fabric, rankDevices, rankSwitches, rankSharp, host, schedule, costs, nvls, sharp, launchLatency, observer,
                checkCapacity, null, null);
    }

    /**
     * As above, each point-to-point step's latency scaled by a factor drawn per transfer (null: none),
     * and some links down for a while (null: none).
     */
    public static RunResult run(Fabric fabric, int[] rankDevices, int[] rankSwitches, int[] rankSharp, HostMemory host, Schedule schedule,
                                ProtocolCosts costs, NvlsCosts nvls, NvlsCosts sharp, TimeSpan launchLatency,
                                TransferObserver observer, boolean checkCapacity, java.util.function.DoubleSupplier stepJitter,
                                Outage outage) {
        Engine engine = new Engine(1024);
        double[] rates = new double[fabric.links().size()];
        for (int l = 0; l < rates.length; l++) {
            rates[l] = fabric.link(l).rate().bytesPerSecond();
        }
        FlowNetwork network = new FlowNetwork(engine, rates);
        network.setCheckCapacity(checkCapacity);
        ScheduleRunner runner = new ScheduleRunner(engine, network, fabric, rankDevices, rankSwitches, rankSharp);
        runner.setObserver(observer);
        runner.setHostStaging(host);
        runner.setStepJitter(stepJitter);
        if (outage != null) {
            long start = engine.now() + outage.startPicos();
            engine.schedule(start, () -> {
                for (int l : outage.links()) {
                    network.setCapacity(l, rates[l] * Outage.DOWN_FRACTION);
                }
            });
            engine.schedule(start + outage.durationPicos(), () -> {
                for (int l : outage.links()) {
                    network.setCapacity(l, rates[l]);
                }
            });
        }
        return runner.run(schedule, costs, nvls, sharp, launchLatency);
    }
}
