package dev.collsim.scenarios.validate;

import dev.collsim.core.collective.CollectiveOp;
import dev.collsim.core.collective.Protocol;
import dev.collsim.core.nccl.AlgorithmId;
import dev.collsim.core.nccl.Communicator;
import dev.collsim.core.nccl.Selection;
import dev.collsim.reports.Column;
import dev.collsim.reports.Table;
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
import org.apache.commons.math3.stat.descriptive.DescriptiveStatistics;

/**
 * Simulates every measured line of the calibration set that the model covers, on the system and
 * in the launch mode it was measured, and reports the error of the simulated time.
 */
public final class Validation {
    private static final List<Column> SUMMARY = List.of(
            Column.text("dataset", "dataset", 32),
            Column.text("op", "op", 14),
            Column.number("rows", "rows", "", 4, 0),
            Column.number("geomean_abs_err_pct", "geomean |err|", "(%)", 13, 1),
            Column.number("bias_pct", "bias", "(%)", 6, 1),
            Column.number("geomean_abs_err_pct_below_1MiB", "geomean |err| <1MiB", "(%)", 19, 1),
            Column.number("geomean_abs_err_pct_from_1MiB", "geomean |err| >=1MiB", "(%)", 20, 1),
            Column.number("worst_size_bytes", "worst size", "(B)", 12, 0),
            Column.number("worst_error_pct", "worst err", "(%)", 9, 1),
            Column.number("mean_abs_err_pct", "mean |err|", "(%)", 10, 1),
            Column.number("median_abs_err_pct", "median |err|", "(%)", 12, 1),
            Column.number("max_abs_err_pct", "max |err|", "(%)", 9, 1),
            Column.number("max_abs_err_pct_from_64MiB", "max |err| >=64MiB", "(%)", 17, 1));

    private static final List<Column> DETAIL = List.of(
            Column.text("dataset", "dataset", 32),
            Column.text("op", "op", 14),
            Column.number("size_bytes", "size", "(B)", 12, 0),
            Column.number("measured_us", "measured", "(us)", 10, 2),
            Column.number("simulated_us", "simulated", "(us)", 10, 2),
            Column.number("error_pct", "error", "(%)", 7, 1),
            Column.text("proto", "proto", 6),
            Column.number("channels", "channels", "", 8, 0));

    private static final long LARGE = 64L << 20;
    /** Where the scores split small sizes from large: issue #22's 20 % and 10 % targets. */
    private static final long MID = 1L << 20;

    /** The error of one measured line; {@code dataset} its data set's label (with the node count where it spans several). */
    public record Point(String dataset, CalibrationRow row, BenchRow simulated) {
        public double errorPct() {
            return 100.0 * (simulated.timeMicros() - row.timeMicros()) / row.timeMicros();
        }

        double ratio() {
            return simulated.timeMicros() / row.timeMicros();
        }
    }

    private final List<Point> points = new ArrayList<>();
    private final List<String> skipped = new ArrayList<>();

    private Validation() {}

    /** Every measured line of the spec simulated on its data set's system. */
    public static Validation run(ValidationSpec spec) {
        List<CalibrationRow> rows = spec.rows();
        Map<String, DatasetSetup> setups = spec.setups();
        Validation v = new Validation();
        Map<String, List<CalibrationRow>> byDataset = new LinkedHashMap<>();
        for (CalibrationRow r : rows) {
            byDataset.computeIfAbsent(r.dataset(), k -> new ArrayList<>()).add(r);
        }
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
                    String label = byNodes.size() == 1 ? e.getKey() : e.getKey() + " (" + n.getKey() + " nodes)";
                    v.simulate(label, setup.onNodes(n.getKey()), n.getValue());
                }
            }
        }
        return v;
    }

    private void simulate(String label, DatasetSetup setup, List<CalibrationRow> rows) {
        WhatIf whatIf = setup.gdr() ? WhatIf.NONE : new WhatIf(null, 0, 1, 1, false, Map.of(), Map.of(), List.of());
        Map<String, Communicator> comms = new LinkedHashMap<>();
        for (CalibrationRow r : rows) {
            if (Double.isNaN(r.timeMicros()) || r.sizeBytes() < 0) {
                continue;
            }
            BenchSpec spec = new BenchSpec(CollectiveOp.fromName(r.op()), setup.system(), null, setup.nodes(),
                    setup.gpusPerNode(), setup.network(), whatIf, setup.gpusPerThread(), DataType.fromName(r.dtype()), ReduceOp.SUM, 0,
                    new SizeSweep(r.sizeBytes(), r.sizeBytes(), 2, 1),
                    Selection.parse(setup.algo(), AlgorithmId.class, AlgorithmId::label, "algorithm"),
                    EnumSet.allOf(Protocol.class), 0, true, false);
            Communicator comm = comms.computeIfAbsent(setup.system(), k -> Bench.communicator(spec));
            BenchRow sim = Bench.runOne(spec, comm, r.sizeBytes());
            if (sim != null) {
                points.add(new Point(label, r, sim));
            }
        }
    }

    public List<Point> points() {
        return List.copyOf(points);
    }

    public List<String> skipped() {
        return List.copyOf(skipped);
    }

    public Table summary() {
        Table t = new Table("Simulated against measured nccl-tests time", SUMMARY, Map.of("command", "validate"));
        t.note("error = (simulated - measured) / measured, per measured line, out-of-place time; geomean |err| = exp(mean |ln(sim/meas)|) - 1"
                + " and bias = exp(mean ln(sim/meas)) - 1 (negative: the simulation is fast), overall and below / from 1 MiB");
        Map<String, List<Point>> groups = new LinkedHashMap<>();
        for (Point p : points) {
            groups.computeIfAbsent(p.dataset() + "\u0000" + p.row().op(), k -> new ArrayList<>()).add(p);
        }
        for (List<Point> g : groups.values()) {
            DescriptiveStatistics all = new DescriptiveStatistics();
            DescriptiveStatistics large = new DescriptiveStatistics();
            for (Point p : g) {
                all.addValue(Math.abs(p.errorPct()));
                if (p.row().sizeBytes() >= LARGE) {
                    large.addValue(Math.abs(p.errorPct()));
                }
            }
            List<Double> ratios = g.stream().map(Point::ratio).toList();
            List<Double> small = g.stream().filter(p -> p.row().sizeBytes() < MID).map(Point::ratio).toList();
            List<Double> big = g.stream().filter(p -> p.row().sizeBytes() >= MID).map(Point::ratio).toList();
            Point worst = g.stream().max(Comparator.comparingDouble(p -> Math.abs(Math.log(p.ratio())))).orElseThrow();
            t.row(g.get(0).dataset(), g.get(0).row().op(), g.size(), 100 * LogError.geomeanAbs(ratios), 100 * LogError.bias(ratios),
                    small.isEmpty() ? Double.NaN : 100 * LogError.geomeanAbs(small), big.isEmpty() ? Double.NaN : 100 * LogError.geomeanAbs(big),
                    worst.row().sizeBytes(), worst.errorPct(), all.getMean(), all.getPercentile(50), all.getMax(),
                    large.getN() == 0 ? Double.NaN : large.getMax());
        }
        for (String s : skipped) {
            t.footnote("not simulated: " + s);
        }
        return t;
    }

    public Table detail() {
        Table t = new Table("Every measured line", DETAIL, Map.of("command", "validate"));
        for (Point p : points) {
            t.row(p.dataset(), p.row().op(), p.row().sizeBytes(), p.row().timeMicros(), p.simulated().timeMicros(),
                    p.errorPct(), p.simulated().proto(), p.simulated().channels());
        }
        return t;
    }
}
