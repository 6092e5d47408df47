package dev.collsim.scenarios.validate;

import dev.collsim.core.input.InputException;
import dev.collsim.core.input.TextFile;
import dev.collsim.core.nccl.Communicator;
import dev.collsim.scenarios.bench.Bench;
import dev.collsim.scenarios.bench.BenchRow;
import dev.collsim.scenarios.bench.BenchSpec;
import dev.collsim.topologies.file.Doc;
import dev.collsim.topologies.systems.WhatIf;
import java.io.StringReader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.commons.math3.exception.TooManyEvaluationsException;
import org.apache.commons.math3.optim.InitialGuess;
import org.apache.commons.math3.optim.MaxEval;
import org.apache.commons.math3.optim.PointValuePair;
import org.apache.commons.math3.optim.SimpleValueChecker;
import org.apache.commons.math3.optim.nonlinear.scalar.GoalType;
import org.apache.commons.math3.optim.nonlinear.scalar.ObjectiveFunction;
import org.apache.commons.math3.optim.nonlinear.scalar.noderiv.NelderMeadSimplex;
import org.apache.commons.math3.optim.nonlinear.scalar.noderiv.SimplexOptimizer;

/**
 * Fits the two physical constants a set of measurements constrains, the rate and the latency of one
 * link class (NVLink inside a node, the network across nodes), as factors on the model's own, by
 * least squares on the relative error of every measured size (commons-math3's Nelder-Mead). Each
 * factor stays within a physical range, a quarter to four times the model's constant: a measurement
 * that barely constrains one leaves it near that range's edge, which the fit's table shows. The fit is
 * what {@code --overrides} loads.
 */
public final class Calibration {
    /** The widest a fitted factor may stray from the model's constant, either way. */
    public static final double RANGE = 4;
    private Calibration() {}

    /** One size: measured, simulated before and after the fit, in us. */
    public record Point(long sizeBytes, double measuredUs, double beforeUs, double afterUs) {}

    public record Fit(WhatIf.LinkClass linkClass, double rateFactor, double latencyFactor, double rmsBeforePct, double rmsAfterPct,
                      int evaluations, List<Point> points) {

        /** Whether the class's rate or latency changed no simulated time: its links carry none of these runs. */
        public boolean classUnused() {
            return points.stream().allMatch(p -> p.afterUs() == p.beforeUs());
        }

        /** Whether a factor ended at the edge of its range: the class alone cannot explain the measurements. */
        public boolean atBound() {
            return Stream.of(rateFactor, latencyFactor).anyMatch(f -> f > RANGE * 0.99 || f < 1 / (RANGE * 0.99));
        }

        /** The override file: the fitted factors in the command line's syntax, which {@code --overrides} reads. */
        public String overrides(String source) {
            String c = linkClass.name().toLowerCase(Locale.ROOT);
            return String.format(Locale.ROOT, "# Fitted by collsim calibrate from %s: rms error %.1f %% before, %.1f %% after.%n"
                    + "version: 1%nscale: \"%s=%.4f\"%nscale-latency: \"%s=%.4f\"%n", source, rmsBeforePct, rmsAfterPct, c, rateFactor, c,
                    latencyFactor);
        }
    }

    /** An override file's factors, as {@link Fit#overrides} writes them. */
    public record Overrides(Map<WhatIf.LinkClass, Double> rates, Map<WhatIf.LinkClass, Double> latencies) {}

    /** Reads an override file: version 1, {@code scale} and {@code scale-latency} as CLASS=F,...; errors name the file and line. */
    public static Overrides readOverrides(Path file) {
        Doc top = Doc.parse(new StringReader(TextFile.read(file)), file.toString(), "an override file from collsim calibrate");
        Map<String, Doc> f = top.fields(Set.of("version", "scale", "scale-latency"));
        if (Doc.required(f, "version", top).integer() != 1) {
            throw f.get("version").error("expected 1");
        }
        return new Overrides(scales(f, "scale"), scales(f, "scale-latency"));
    }

    private static Map<WhatIf.LinkClass, Double> scales(Map<String, Doc> f, String field) {
        return f.containsKey(field) ? f.get(field).parse(text -> WhatIf.parseScales(field, text)) : Map.of();
    }

    private static final int FIT_EVALUATIONS = 120;

    public static Fit fit(BenchSpec base, TreeMap<Long, Double> measured, WhatIf.LinkClass linkClass) {
        double[] before = simulate(base, measured, linkClass, 1, 1);
        int[] evals = {0};
        SimplexOptimizer optimizer = new SimplexOptimizer(new SimpleValueChecker(1e-6, 1e-9));
        PointValuePair best;
        try {
            best = optimizer.optimize(new MaxEval(FIT_EVALUATIONS), GoalType.MINIMIZE, new InitialGuess(new double[] {0, 0}),
                    new NelderMeadSimplex(new double[] {0.2, 0.5}), new ObjectiveFunction(x -> {
                        evals[0]++;
                        return squaredError(simulate(base, measured, linkClass, factor(x[0]), factor(x[1])), measured);
                    }));
        } catch (TooManyEvaluationsException e) {
            throw new InputException("the fit did not settle within " + FIT_EVALUATIONS + " simulations; are the measured times of this system?");
        }
        double rate = factor(best.getPoint()[0]);
        double latency = factor(best.getPoint()[1]);
        double[] after = simulate(base, measured, linkClass, rate, latency);
        List<Point> points = new ArrayList<>();
        int i = 0;
        for (Map.Entry<Long, Double> m : measured.entrySet()) {
            points.add(new Point(m.getKey(), m.getValue(), before[i], after[i]));
            i++;
        }
        return new Fit(linkClass, rate, latency, rms(before, measured), rms(after, measured), evals[0], points);
    }

    /** Simulated times at the measured sizes with the class's rate and latency scaled, on top of the run's own knobs. */
    private static double[] simulate(BenchSpec base, TreeMap<Long, Double> measured, WhatIf.LinkClass c, double rate, double latency) {
        BenchSpec spec = base.withWhatIf(base.whatIf().scaledBy(Map.of(c, rate), Map.of(c, latency)));
        Communicator comm = Bench.communicator(spec);
        double[] out = new double[measured.size()];
        int i = 0;
        for (long size : measured.keySet()) {
            BenchRow row = Bench.runOne(spec, comm, size);
            if (row == null) {
                throw new InputException("measured size " + size + " B holds no whole element of " + spec.type().ncclName());
            }
            out[i++] = row.timeMicros();
        }
        return out;
    }

    /** An unbounded search coordinate to a factor within [1/RANGE, RANGE]. */
    private static double factor(double x) {
        return Math.exp(Math.log(RANGE) * Math.tanh(x));
    }

    private static double squaredError(double[] sim, TreeMap<Long, Double> measured) {
        double sum = 0;
        int i = 0;
        for (double m : measured.values()) {
            double e = (sim[i++] - m) / m;
            sum += e * e;
        }
        return sum;
    }

    private static double rms(double[] sim, TreeMap<Long, Double> measured) {
        return 100 * Math.sqrt(squaredError(sim, measured) / measured.size());
    }
}
