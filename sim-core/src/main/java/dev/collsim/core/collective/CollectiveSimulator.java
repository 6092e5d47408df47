package dev.collsim.core.collective;

import dev.collsim.core.engine.Engine;
import dev.collsim.core.fabric.Fabric;
import dev.collsim.core.flow.FlowNetwork;
import java.util.BitSet;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;

/** Runs schedules on a fresh engine and flow network over a fabric: one, one orbit of a folded one, or several at once. */
public final class CollectiveSimulator {
    private CollectiveSimulator() {}

    /**
     * Runs one orbit of a folded schedule where the fabric has the fold's symmetry ({@link
     * LinkOrbits}): the whole schedule's duration and bytes per link, to the picosecond and the byte,
     * at the cost of one orbit's transfers. Empty where the fabric lacks the symmetry.
     */
    public static Optional<RunResult> runFolded(RankPlacement placement, FoldedSchedule fold, StepCosts costs) {
        return LinkOrbits.of(placement, fold).map(orbits -> {
            Engine engine = new Engine(1024);
            FlowNetwork network = new FlowNetwork(engine, rates(placement.fabric()));
            return new ScheduleRunner(engine, network, placement, orbits).run(fold.orbit(), costs);
        });
    }

    /** Whether {@link #runFolded} would run {@code fold}: the fabric has its symmetry. */
    public static boolean folds(RankPlacement placement, FoldedSchedule fold) {
        return LinkOrbits.of(placement, fold).isPresent();
    }

    /**
     * Runs several collectives at the same time, from the same instant, on one engine and flow
     * network over their common fabric: where they share links they contend for them, max-min fair
     * flow by flow; where they share none each takes what it takes alone. Each result's bytes per link
     * are what all of them put there.
     */
    public static List<RunResult> runTogether(List<CollectiveRun> runs) {
        if (runs.stream().anyMatch(r -> r.outage() != null)) {
            throw new IllegalArgumentException("collectives run together take no outage");
        }
        return together(runs, null);
    }

    /** Every link the run's flows can cross (its routes), found without running it. */
    public static BitSet linksOf(CollectiveRun run) {
        Engine engine = new Engine();
        ScheduleRunner runner = new ScheduleRunner(engine, new FlowNetwork(engine, rates(run.placement().fabric())), run.placement());
        BitSet links = new BitSet();
        for (int[] route : runner.prepare(run.schedule(), run.costs())) {
            for (int l : route) {
                links.set(l);
            }
        }
        return links;
    }

    public static RunResult run(CollectiveRun run) {
        return together(List.of(run), run.outage()).get(0);
    }

    /** The runs on one engine and flow network, with the links of {@code outage} (or null) down for a while. */
    private static List<RunResult> together(List<CollectiveRun> runs, Outage outage) {
        Fabric fabric = runs.get(0).placement().fabric();
        if (runs.stream().anyMatch(r -> r.placement().fabric() != fabric)) {
            throw new IllegalArgumentException("collectives run together share one fabric");
        }
        Engine engine = new Engine(1024);
        SharedFabric shared = new SharedFabric(engine, fabric);
        runs.forEach(shared::add);
        if (outage != null) {
            shared.scheduleOutage(outage);
        }
        for (int k = 0; k < runs.size(); k++) {
            shared.start(k, null);
        }
        engine.run();
        return IntStream.range(0, runs.size()).mapToObj(shared::result).toList();
    }

    private static double[] rates(Fabric fabric) {
        double[] rates = new double[fabric.links().size()];
        for (int l = 0; l < rates.length; l++) {
            rates[l] = fabric.link(l).rate().bytesPerSecond();
        }
        return rates;
    }
}
