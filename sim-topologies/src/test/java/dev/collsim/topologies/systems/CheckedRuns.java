package dev.collsim.topologies.systems;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.core.collective.CollectiveOp;
import dev.collsim.core.collective.ContributionTracker;
import dev.collsim.core.collective.Protocol;
import dev.collsim.core.collective.Schedule;
import dev.collsim.core.nccl.AlgorithmId;
import dev.collsim.core.nccl.Communicator;
import dev.collsim.core.nccl.NcclPlanner;
import dev.collsim.core.nccl.Plan;
import java.util.EnumSet;

/** Collectives run on a built system with every rank's result checked and link capacities verified. */
final class CheckedRuns {
    private CheckedRuns() {}

    /** A ring all_reduce under Simple, channels as NCCL chooses: its time in us, after asserting every rank ends with the sum. */
    static double ringAllReduceMicros(Communicator comm, long bytes) {
        Plan plan = NcclPlanner.plan(comm, CollectiveOp.ALL_REDUCE, bytes, 0, EnumSet.of(AlgorithmId.RING), EnumSet.of(Protocol.SIMPLE), 0);
        Schedule s = comm.schedule(plan);
        ContributionTracker tracker = new ContributionTracker(s);
        double micros = comm.simulate(plan, s, tracker, true).durationMicros();
        assertTrue(tracker.verify().isEmpty(), tracker.verify().toString());
        return micros;
    }
}
