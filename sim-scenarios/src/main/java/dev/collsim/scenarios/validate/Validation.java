package dev.collsim.scenarios.validate;

import dev.collsim.core.collective.CollectiveOp;
import dev.collsim.core.collective.Protocol;
import dev.collsim.core.nccl.AlgorithmId;
import dev.collsim.core.nccl.Communicator;
import dev.collsim.core.nccl.Selection;
import dev.collsim.scenarios.bench.Bench;
import dev.collsim.scenarios.bench.BenchRow;
import dev.collsim.scenarios.bench.BenchSpec;
import dev.collsim.scenarios.bench.DataType;
import dev.collsim.scenarios.bench.ReduceOp;
import dev.collsim.scenarios.bench.SizeSweep;
import dev.collsim.topologies.systems.WhatIf;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Simulates every measured line of the calibration set that the model covers, on the system and
 * in the launch mode it was measured, and reports the error of the simulated time.
 */
public final class Validation {

    /**
     * The error of one measured line; {@code dataset} its data set's label (with the node count where it spans several),
     * {@code system} the preset it was simulated on.
     */
    public record Point(String dataset, String system, CalibrationRow row, BenchRow simulated) {
        public double errorPct() {
            return 100.0 * (simulated.timeMicros() - row.timeMicros()) / row.timeMicros();
        }

        public double ratio() {
            return simulated.timeMicros() / row.timeMicros();
        }

        /** The measured line's bus bandwidth (GB/s): nccl-tests' for its size and time, the factor the simulated line's. */
        public double measuredBusBwGBps() {
            return simulated.busBwGBps() * simulated.timeMicros() / row.timeMicros();
        }
    }

    private final List<Point> points = new ArrayList<>();
    private final List<String> skipped = new ArrayList<>();
    private final List<String> apart = new ArrayList<>();

    private Validation() {}

    /** Every measured line of the spec simulated on its data set's system. */
    public static Validation run(ValidationSpec spec) {
        Map<String, DatasetSetup> setups = spec.setups();
        Validation v = new Validation();
        Map<String, List<CalibrationRow>> byDataset = new LinkedHashMap<>();
        for (CalibrationRow r : spec.rows()) {
            byDataset.computeIfAbsent(r.dataset(), k -> new ArrayList<>()).add(r);
        }
        List<Series> series = new ArrayList<>();
        for (Map.Entry<String, List<CalibrationRow>> e : byDataset.entrySet()) {
            DatasetSetup setup = setups.get(e.getKey());
            if (setup == null) {
                v.skipped.add(e.getKey() + ": no set-up known for this data set");
            } else if (!setup.simulated()) {
                v.skipped.add(e.getKey() + ": " + setup.notYet());
            } else {
                // A data set measured on several node counts is one data set a node count, labelled with it.
                Map<Integer, List<CalibrationRow>> byNodes = new TreeMap<>();
                e.getValue().forEach(r -> byNodes.computeIfAbsent(r.nodes(), k -> new ArrayList<>()).add(r));
                for (Map.Entry<Integer, List<CalibrationRow>> n : byNodes.entrySet()) {
                    boolean apart = setup.inconsistentOn(n.getKey());
                    List<String> tags = new ArrayList<>();
                    if (byNodes.size() > 1) {
                        tags.add(n.getKey() + " nodes");
                    }
                    if (apart) {
                        tags.add("inconsistent");
                    }
                    String label = tags.isEmpty() ? e.getKey() : e.getKey() + " (" + String.join(", ", tags) + ")";
                    series.add(new Series(label, setup.onNodes(n.getKey()), n.getValue(), apart));
                }
                if (setup.inconsistent() != null) {
                    String which = setup.inconsistentNodes().isEmpty() ? ""
                            : " (" + setup.inconsistentNodes().stream().map(String::valueOf).collect(Collectors.joining(" and ")) + " nodes)";
                    v.apart.add(e.getKey() + which + ": " + setup.inconsistent());
                }
            }
        }
        // The series that contradict another measurement of their system come last, labelled so.
        series.sort(Comparator.comparing(Series::apart));
        series.forEach(s -> v.simulate(s.label(), s.setup(), s.rows()));
        return v;
    }

    /** One data set's rows on one node count, and whether they are scored apart. */
    private record Series(String label, DatasetSetup setup, List<CalibrationRow> rows, boolean apart) {}

    private void simulate(String label, DatasetSetup setup, List<CalibrationRow> rows) {
        WhatIf whatIf = setup.whatIf();
        Map<String, Communicator> comms = new LinkedHashMap<>();
        for (CalibrationRow r : rows) {
            if (Double.isNaN(r.timeMicros()) || r.sizeBytes() < 0) {
                continue;
            }
            BenchSpec spec = new BenchSpec(CollectiveOp.fromName(r.op()), setup.system(), null, setup.nodes(),
                    setup.gpusPerNode(), setup.network(), whatIf, setup.gpusPerThread(), DataType.fromName(r.dtype()), ReduceOp.SUM, 0,
                    new SizeSweep(r.sizeBytes(), r.sizeBytes(), 2, 1),
                    Selection.parse(setup.algo(), AlgorithmId.class, AlgorithmId::label, "algorithm"),
                    EnumSet.allOf(Protocol.class), 0, true, false, setup.nccl());
            Communicator comm = comms.computeIfAbsent(setup.system(), k -> Bench.communicator(spec));
            BenchRow sim = Bench.runOne(spec, comm, r.sizeBytes());
            if (sim != null) {
                points.add(new Point(label, setup.system(), r, sim));
            }
        }
    }

    public List<Point> points() {
        return List.copyOf(points);
    }

    public List<String> skipped() {
        return List.copyOf(skipped);
    }

    /** The data sets scored apart, each with the evidence that it contradicts another measurement of its system. */
    public List<String> scoredApart() {
        return List.copyOf(apart);
    }

}
