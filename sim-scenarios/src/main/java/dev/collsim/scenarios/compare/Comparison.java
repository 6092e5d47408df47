package dev.collsim.scenarios.compare;

import dev.collsim.core.units.Duration;
import dev.collsim.scenarios.decode.DecodeResult;
import dev.collsim.scenarios.decode.DecodeSystem;
import dev.collsim.scenarios.decode.KernelCosts;
import dev.collsim.scenarios.decode.ModelConfig;
import dev.collsim.scenarios.decode.Precision;
import dev.collsim.scenarios.decode.ServingEngine;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;

/**
 * Systems compared for one model on the same number of GPUs: each one's Pareto frontier of tokens/s
 * per GPU against tokens/s per user, and the layout that gives the most tokens/s per GPU within the
 * inter-token latency target, with where its time goes.
 *
 * @param kvDtype the KV cache's element type, as the engine keeps it for these weights
 * @param itlSlo  the inter-token latency target
 * @param whatIfs the what-if knobs in force, in words; empty for none
 */
public record Comparison(String model, int gpus, int context, Precision dtype, String kvDtype, Duration itlSlo, ServingEngine engine,
                         String efficiencySet, String whatIfs, List<SystemResult> systems) {

    /** One system's search: how many layouts fit and ran, the frontier, and the best within the SLO (null if none meets it). */
    public record SystemResult(String system, int layouts, List<Row> frontier, Row best) {}

    /** A layout, as a search labels it, and its decode step. */
    public record Row(String layout, DecodeResult step) {
        static Row of(LayoutSearch.Point p) {
            return new Row(p.label(), p.result());
        }
    }

    /** Every system's search, {@code threads} layouts simulated at once. */
    public static Comparison run(CompareSpec spec, int threads) {
        return run(spec, threads, (done, total) -> { });
    }

    /** As above, telling {@code progress} how many of each system's layouts are estimated. */
    public static Comparison run(CompareSpec spec, int threads, BiConsumer<Integer, Integer> progress) {
        ModelConfig m = spec.model();
        double sloMs = spec.itlSloMs();
        List<SystemResult> out = new ArrayList<>();
        for (DecodeSystem system : spec.decodeSystems()) {
            List<LayoutSearch.Point> points = LayoutSearch.run(m, system, spec.gpus(), spec.context(), spec.precision(), threads, spec.engine(),
                    sloMs, progress);
            List<Row> frontier = LayoutSearch.pareto(points).stream().map(Row::of).toList();
            Row best = LayoutSearch.best(points, sloMs).map(Row::of).orElse(null);
            out.add(new SystemResult(system.name(), points.size(), frontier, best));
        }
        return new Comparison(m.name(), spec.gpus(), spec.context(), spec.precision(), spec.engine().kvLabel(spec.precision()),
                Duration.ofMillis(sloMs), spec.engine().engine(), KernelCosts.EFFICIENCY_SET, spec.changes(), out);
    }
}
