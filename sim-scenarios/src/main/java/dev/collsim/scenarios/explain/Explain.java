package dev.collsim.scenarios.explain;

import dev.collsim.core.collective.ContributionTracker;
import dev.collsim.core.collective.RunResult;
import dev.collsim.core.collective.Schedule;
import dev.collsim.core.collective.TransferObserver;
import dev.collsim.core.collective.TransferTimes;
import dev.collsim.core.nccl.Communicator;
import dev.collsim.core.nccl.NcclPlanner;
import dev.collsim.core.nccl.Plan;
import java.util.List;

/**
 * The teaching view: one collective's schedule transfer by transfer, then the textbook alpha-beta
 * time beside the simulated one and where they part.
 */
public final class Explain {
    private Explain() {}

    /** Everything the view needs: the plan, the run, what each transfer carried, and the textbook's time. */
    public record Run(Communicator comm, Plan plan, RunResult result, ContributionTracker tracker, TransferTimes times, Textbook textbook) {}

    public static Run run(ExplainSpec spec) {
        Communicator comm = spec.comm();
        Plan plan = NcclPlanner.plan(comm, spec.op(), spec.bytes(), 0, spec.algorithms(), spec.protocols(), spec.channels());
        Schedule schedule = comm.schedule(plan);
        // In-switch reductions sum the ranks of one switch: each node's NVSwitch, and the SHARP network for CollNet.
        int n = comm.nRanks();
        int[] nvls = comm.placement().nvlsSwitches();
        int[] sharp = comm.placement().sharpSwitches();
        ContributionTracker tracker = new ContributionTracker(schedule, nvls == null ? new int[n] : nvls, sharp == null ? new int[n] : sharp);
        TransferTimes times = new TransferTimes(schedule.transferCount());
        RunResult result = comm.simulate(plan, schedule, TransferObserver.both(tracker, times), true);
        List<String> wrong = tracker.verify();
        if (!wrong.isEmpty()) {
            throw new IllegalStateException("the schedule is not correct: " + wrong.get(0));
        }
        return new Run(comm, plan, result, tracker, times, Textbook.of(comm, plan.algo(), schedule.request()));
    }
}
