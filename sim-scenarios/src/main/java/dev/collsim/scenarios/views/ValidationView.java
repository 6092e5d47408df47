package dev.collsim.scenarios.views;

import dev.collsim.reports.Column;
import dev.collsim.reports.Table;
import dev.collsim.scenarios.validate.LogError;
import dev.collsim.scenarios.validate.Validation.Point;
import dev.collsim.scenarios.validate.Validation;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.commons.math3.stat.descriptive.DescriptiveStatistics;

/** {@code validate}'s tables: the error per data set and operation, and every measured line. */
public final class ValidationView {
    private static final List<Column> SUMMARY = List.of(
            Column.text("dataset", "dataset", 45),
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
            Column.text("dataset", "dataset", 45),
            Column.text("op", "op", 14),
            Column.number("size_bytes", "size", "(B)", 12, 0),
            Column.number("measured_us", "measured", "(us)", 10, 2),
            Column.number("simulated_us", "simulated", "(us)", 10, 2),
            Column.number("error_pct", "error", "(%)", 7, 1),
            Column.text("proto", "proto", 6),
            Column.number("channels", "channels", "", 8, 0));

    static final long LARGE = 64L << 20;
    /** Where the scores split small sizes from large: issue #22's 20 % and 10 % targets. */
    private static final long MID = 1L << 20;

    private ValidationView() {}

    public static Table summary(Validation v) {
        Table t = new Table("Simulated against measured nccl-tests time", SUMMARY, Map.of("command", "validate"));
        t.note("error = (simulated - measured) / measured, per measured line, out-of-place time; geomean |err| = exp(mean |ln(sim/meas)|) - 1"
                + " and bias = exp(mean ln(sim/meas)) - 1 (negative: the simulation is fast), overall and below / from 1 MiB");
        Map<String, List<Point>> groups = new LinkedHashMap<>();
        for (Point p : v.points()) {
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
        for (String s : v.skipped()) {
            t.footnote("not simulated: " + s);
        }
        for (String s : v.scoredApart()) {
            t.footnote("scored apart, inconsistent with another measurement of the same system: " + s);
        }
        return t;
    }

    public static Table detail(Validation v) {
        Table t = new Table("Every measured line", DETAIL, Map.of("command", "validate"));
        for (Point p : v.points()) {
            t.row(p.dataset(), p.row().op(), p.row().sizeBytes(), p.row().timeMicros(), p.simulated().timeMicros(),
                    p.errorPct(), p.simulated().proto(), p.simulated().channels());
        }
        return t;
    }
}
