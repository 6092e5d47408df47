package dev.collsim.scenarios.views;

import dev.collsim.core.nccl.AlgorithmId;
import dev.collsim.core.nccl.Communicator;
import dev.collsim.core.nccl.NcclTuner;
import dev.collsim.core.nccl.Plan;
import dev.collsim.reports.Column;
import dev.collsim.reports.Table;
import dev.collsim.scenarios.bench.Bench;
import dev.collsim.scenarios.bench.BenchSpec;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** {@code --explain-choice}: NCCL's cost model for every candidate of every size, and which one ran. */
public final class ChoiceTable {
    private static final List<Column> COLUMNS = List.of(
            Column.number("size_bytes", "size", "(B)", 12, 0),
            Column.text("algo", "algo", 6),
            Column.text("proto", "proto", 6),
            Column.number("latency_us", "latency", "(us)", 8, 2),
            Column.number("algbw_GBps", "algbw", "(GB/s)", 7, 1),
            Column.number("predicted_us", "predicted", "(us)", 10, 2),
            Column.text("status", "status", 22),
            Column.number("simulated_us", "simulated", "(us)", 10, 2));

    private ChoiceTable() {}

    public static Table of(BenchSpec spec) {
        Communicator comm = Bench.communicator(spec);
        Map<String, Object> meta = new LinkedHashMap<>();
        meta.put("command", "bench --explain-choice");
        meta.put("op", spec.op().ncclName());
        meta.put("system", spec.system());
        Table t = new Table("NCCL's cost model for " + spec.op().ncclName() + " on " + spec.system(), COLUMNS, meta);
        t.note("predicted = latency + size / algbw, NCCL's cost model (src/graph/tuning.cc, NCCL 2.30.7); the cheapest allowed candidate runs");
        t.note("simulated = the chunk-by-chunk simulation of the chosen candidate, on the device (no host launch floor)");
        for (long size : spec.sizes().sizes()) {
            long bytes = Bench.roundedSize(spec, comm.nRanks(), size);
            if (bytes == 0) {
                continue;
            }
            Plan plan = Bench.plan(spec, comm, bytes);
            double simulated = comm.simulate(plan, null, false).durationMicros();
            boolean msccl = plan.algo() == AlgorithmId.ALL_PAIRS;
            if (msccl) {
                // RCCL's MSCCL scheduler takes the message before the tuner prices anything: no prediction of its own.
                t.row(bytes, plan.algo().label(), plan.request().protocol().label(), Double.NaN, Double.NaN, Double.NaN,
                        "chosen (MSCCL)", simulated);
            }
            for (NcclTuner.Estimate e : plan.candidates()) {
                boolean chosen = e.equals(plan.chosen());
                String status = chosen ? "chosen" : !e.enabled() ? "not enabled by default" : msccl ? "MSCCL runs instead"
                        : !spec.algos().contains(AlgorithmId.of(e.algo())) || !spec.protocols().contains(e.protocol()) ? "excluded" : "slower";
                t.row(bytes, e.algo().label(), e.protocol().label(), e.latencyMicros(), e.algBwGBps(), e.timeMicros(), status,
                        chosen ? simulated : Double.NaN);
            }
        }
        return t;
    }
}
