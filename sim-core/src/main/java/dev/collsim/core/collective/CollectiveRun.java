package dev.collsim.core.collective;

import java.util.function.DoubleSupplier;

/**
 * One collective to simulate: its schedule on placed ranks at given costs, and how to run it.
 *
 * @param observer      told of every transfer, or null
 * @param checkCapacity verify after every rate change that no link exceeds its rate (slower; for tests)
 * @param stepJitter    a factor drawn per transfer that scales each point-to-point step's latency, or null
 * @param outage        links down for a while, or null
 */
public record CollectiveRun(RankPlacement placement, Schedule schedule, StepCosts costs, TransferObserver observer,
                            boolean checkCapacity, DoubleSupplier stepJitter, Outage outage) {
    public static CollectiveRun of(RankPlacement placement, Schedule schedule, StepCosts costs) {
        return new CollectiveRun(placement, schedule, costs, null, false, null, null);
    }

    public CollectiveRun observedBy(TransferObserver o) {
        return new CollectiveRun(placement, schedule, costs, o, checkCapacity, stepJitter, outage);
    }

    public CollectiveRun checkingCapacity() {
        return new CollectiveRun(placement, schedule, costs, observer, true, stepJitter, outage);
    }
}
