package dev.collsim.scenarios.sweep;

import dev.collsim.scenarios.bench.BenchRow;
import dev.collsim.scenarios.decode.DecodeResult;
import dev.collsim.scenarios.replications.Replications;
import java.util.List;

/** What one point of a sweep gave, typed: a bench run's rows, a decode step, or the replications of either. */
public sealed interface PointResult {
    record Bench(List<BenchRow> rows) implements PointResult {}

    record Decode(DecodeResult result) implements PointResult {}

    record Replicated(Replications.Result result) implements PointResult {}
}
