package dev.collsim.core.collective;

import dev.collsim.core.engine.Engine;
import dev.collsim.core.fabric.Fabric;
import dev.collsim.core.flow.FlowNetwork;

/** Runs one schedule on a fresh engine and flow network over a fabric. */
public final class CollectiveSimulator {
    private CollectiveSimulator() {}

    public static RunResult run(CollectiveRun run) {
        Engine engine = new Engine(1024);
        Fabric fabric = run.placement().fabric();
        double[] rates = new double[fabric.links().size()];
        for (int l = 0; l < rates.length; l++) {
            rates[l] = fabric.link(l).rate().bytesPerSecond();
        }
        FlowNetwork network = new FlowNetwork(engine, rates);
        network.setCheckCapacity(run.checkCapacity());
        ScheduleRunner runner = new ScheduleRunner(engine, network, run.placement());
        runner.setObserver(run.observer());
        runner.setStepJitter(run.stepJitter());
        Outage outage = run.outage();
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
        return runner.run(run.schedule(), run.costs());
    }
}
