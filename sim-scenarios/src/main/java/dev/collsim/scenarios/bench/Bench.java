package dev.collsim.scenarios.bench;

import dev.collsim.core.collective.CollectiveOp;
import dev.collsim.core.collective.RunResult;
import dev.collsim.core.nccl.Communicator;
import dev.collsim.core.nccl.NcclPlanner;
import dev.collsim.core.nccl.Plan;
import dev.collsim.topologies.systems.NvSwitchNode;
import dev.collsim.topologies.systems.SystemPreset;
import java.util.ArrayList;
import java.util.List;

/** The nccl-tests workload: one collective over a sweep of sizes, each simulated chunk by chunk. */
public final class Bench {
    private Bench() {}

    public static Communicator communicator(BenchSpec spec) {
        return NvSwitchNode.build(SystemPreset.byName(spec.system()), spec.gpusPerNode());
    }

    public static List<BenchRow> run(BenchSpec spec) {
        Communicator comm = communicator(spec);
        List<BenchRow> rows = new ArrayList<>();
        for (long size : spec.sizes().sizes()) {
            BenchRow row = runOne(spec, comm, size);
            if (row != null) {
                rows.add(row);
            }
        }
        return rows;
    }

    /** One size; null when nccl-tests' rounding leaves no element to move. */
    public static BenchRow runOne(BenchSpec spec, Communicator comm, long requestedSize) {
        CollectiveOp op = spec.op();
        int n = comm.nRanks();
        int elem = spec.type().bytes();
        long count = op.sizeIsTotal() ? requestedSize / elem / n : requestedSize / elem;
        long bytes = op.sizeIsTotal() ? count * elem * n : count * elem;
        if (count == 0) {
            return null;
        }
        int root = op.rooted() ? spec.root() : -1;
        Plan plan = NcclPlanner.plan(comm, op, bytes, Math.max(root, 0), spec.algos(), spec.protocols(), spec.channels());
        RunResult result = comm.simulate(plan, null, false);
        int channels = plan.request().channels();
        long picos = comm.hostLaunch().iterationPicos(result.durationPicos(), spec.gpusPerThread(), channels);
        double micros = picos / 1e6;
        double algBw = bytes / (micros * 1e3);
        String redop = op.reduces() ? spec.redop().ncclName() : "none";
        return new BenchRow(bytes, count, spec.type().ncclName(), redop, root, micros, algBw,
                algBw * op.busBandwidthFactor(n), plan.algo().label(), plan.request().protocol().label(), channels,
                result.durationMicros(), plan.chosen().timeMicros());
    }
}
