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
     * @param observer      told of every transfer, or null
     * @param checkCapacity verify after every rate change that no link exceeds its rate (slower; for tests)
     */
    public static RunResult run(Fabric fabric, int[] rankDevices, Schedule schedule, ProtocolCosts costs,
                                TimeSpan launchLatency, TransferObserver observer, boolean checkCapacity) {
        Engine engine = new Engine(1024);
        double[] rates = new double[fabric.links().size()];
        for (int l = 0; l < rates.length; l++) {
            rates[l] = fabric.link(l).rate().bytesPerSecond();
        }
        FlowNetwork network = new FlowNetwork(engine, rates);
        network.setCheckCapacity(checkCapacity);
        ScheduleRunner runner = new ScheduleRunner(engine, network, fabric, rankDevices);
        runner.setObserver(observer);
        return runner.run(schedule, costs, launchLatency);
    }
}
