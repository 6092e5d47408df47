package dev.collsim.scenarios.compare;

import dev.collsim.core.input.InputException;
import dev.collsim.scenarios.decode.CommModel;
import dev.collsim.scenarios.decode.DecodeResult;
import dev.collsim.scenarios.decode.DecodeSpec;
import dev.collsim.scenarios.decode.DecodeStep;
import dev.collsim.scenarios.decode.DecodeSystem;
import dev.collsim.scenarios.decode.EngineSetup;
import dev.collsim.scenarios.decode.ExpertParallel;
import dev.collsim.scenarios.decode.ModelConfig;
import dev.collsim.scenarios.decode.Overlap;
import dev.collsim.scenarios.decode.Precision;
import dev.collsim.topologies.systems.SystemPreset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

/**
 * Every layout of a model on up to a number of GPUs of one system that fits in memory: tensor and
 * pipeline parallelism (TP dividing the attention heads) with as many data-parallel replicas as the
 * GPUs hold (so tokens/s per GPU counts the GPUs a layout uses), expert
 * parallelism over all attention ranks for MoE models, batches from 1 to 512 sequences per replica,
 * and two-batch overlap where experts are spread; each one simulated as a decode step.
 */
public final class LayoutSearch {
    static final int[] BATCHES = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512};

    private LayoutSearch() {}

    /** One simulated layout. */
    public record Point(DecodeSpec spec, DecodeResult result) {
        String label() {
            return "tp" + spec.tp() + " pp" + spec.pp() + " dp" + spec.dp() + (spec.ep() > 1 ? " ep" + spec.ep() : "")
                    + (spec.overlap() == Overlap.NONE ? "" : " " + spec.overlap().label()) + (spec.expertsAllToAll() ? " " + spec.experts().exchange().deploymentWord() : "");
        }
    }

    /** The layouts to try, in a fixed order. */
    static List<DecodeSpec> candidates(ModelConfig m, SystemPreset preset, int gpus, int context, Precision precision, EngineSetup engine) {
        return candidates(m, new DecodeSystem.Preset(preset, null, OptionalInt.empty()), gpus, context, precision, engine);
    }

    /** As above, on a preset with its network and what-if knobs, or a topology file's system. */
    static List<DecodeSpec> candidates(ModelConfig m, DecodeSystem system, int gpus, int context, Precision precision,
                                       EngineSetup engine) {
        int perNode = system.gpusPerNodeFor(gpus);
        List<DecodeSpec> out = new ArrayList<>();
        for (int tp = 1; tp <= gpus; tp++) {
            if (m.heads() % tp != 0) {
                continue;
            }
            for (int pp = 1; pp <= gpus / tp && pp <= m.layers(); pp = pp < 4 ? pp + 1 : pp * 2) {
                for (int dp : replicas(m, perNode, gpus, tp, pp)) {
                    List<Integer> eps = new ArrayList<>(List.of(1));
                    if (m.experts() > 0 && tp * dp > 1 && tp * dp <= m.experts() && engine.experts().placesOn(m, tp * dp)) {
                        eps.add(tp * dp);
                    }
                    for (int ep : eps) {
                        for (int batch : BATCHES) {
                            for (Overlap overlap : ep > 1 && batch > 1 ? List.of(Overlap.NONE, Overlap.TWO_BATCH) : List.of(Overlap.NONE)) {
                                DecodeSpec spec = engine.layout(m, system, tp, pp, ep, dp, batch, context, precision, overlap);
                                out.add(spec);
                                if (engine.experts().searchesBothExchanges(ep, dp)) {
                                    out.add(spec.withExchange(ExpertParallel.Exchange.wideEp(system)));
                                }
                            }
                        }
                    }
                }
            }
        }
        return out;
    }

    /**
     * The replica counts to try: as many as the GPUs hold, and for an MoE model, whose expert
     * parallelism spans the replicas, also as many as whole NVLink domains hold and as one domain
     * holds, so that a GPU more than a rack (73 on NVL72) does not push the experts across racks;
     * {@code perNode} GPUs of each domain in use.
     */
    private static List<Integer> replicas(ModelConfig m, int perNode, int gpus, int tp, int pp) {
        TreeSet<Integer> dps = new TreeSet<>(Comparator.reverseOrder());
        dps.add(gpus / tp / pp);
        if (m.experts() > 0) {
            dps.add(gpus / perNode * perNode / tp / pp);
            dps.add(Math.min(gpus, perNode) / tp / pp);
        }
        dps.remove(0);
        return List.copyOf(dps);
    }

    /**
     * Simulates every candidate that fits, on {@code threads} threads; the result's order does not
     * depend on them. Every point is first estimated with each collective alone ({@link
     * DecodeStep#estimate}); then what the answer shows (the frontier, and the best within {@code
     * itlSloMs}) is simulated in full, as {@code decode} does, on one clock where its collectives
     * contend, until every point it shows is. Contention lengthens collectives, so an estimate is as
     * a rule no slower than the full step, but not always: a pipeline's slowest stage can shrink when
     * the stage before it ends later. So a point left at its estimate counts as faster by the most
     * that any full step so far beat its own estimate, and is simulated in full if that would show it.
     */
    public static List<Point> run(ModelConfig m, DecodeSystem system, int gpus, int context, Precision precision, int threads,
                                  EngineSetup engine, double itlSloMs) {
        return run(m, system, gpus, context, precision, threads, engine, itlSloMs, (done, total) -> { });
    }

    /** As above, telling {@code progress} how many of the layouts are estimated (done, total). */
    public static List<Point> run(ModelConfig m, DecodeSystem system, int gpus, int context, Precision precision, int threads,
                                  EngineSetup engine, double itlSloMs, BiConsumer<Integer, Integer> progress) {
        List<DecodeSpec> specs = candidates(m, system, gpus, context, precision, engine).stream().filter(DecodeStep::fits).toList();
        CommModel.Cache cache = new CommModel.Cache();
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, threads));
        try {
            List<Point> points = new ArrayList<>(map(pool, specs, s -> new Point(s, DecodeStep.estimate(s, cache)), progress));
            points.removeIf(Objects::isNull);
            Set<Point> full = Collections.newSetFromMap(new IdentityHashMap<>());
            double margin = 1;
            while (true) {
                double boost = margin;
                ToDoubleFunction<Point> speedUp = p -> full.contains(p) ? 1 : boost;
                List<Point> todo = new ArrayList<>(pareto(points, speedUp));
                best(points, itlSloMs, speedUp).filter(b -> !todo.contains(b)).ifPresent(todo::add);
                todo.removeIf(full::contains);
                if (todo.isEmpty()) {
                    return points;
                }
                List<Point> done = all(pool, todo.stream().map(Point::spec).toList(), s -> DecodeStep.run(s, cache));
                for (int k = 0; k < todo.size(); k++) {
                    if (done.get(k) == null) {
                        points.remove(todo.get(k)); // the estimate placed it, the full step cannot: not a layout of this machine
                        continue;
                    }
                    margin = Math.max(margin, todo.get(k).result().itl().ms() / done.get(k).result().itl().ms());
                    points.set(points.indexOf(todo.get(k)), done.get(k));
                    full.add(done.get(k));
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /** The most tokens/s per GPU within the target (then the most per user), if any layout meets it. */
    public static Optional<Point> best(List<Point> points, double itlSloMs) {
        return best(points, itlSloMs, p -> 1);
    }

    /** As above, each point's step taken {@code speedUp} times faster. */
    private static Optional<Point> best(List<Point> points, double itlSloMs, ToDoubleFunction<Point> speedUp) {
        return points.stream().filter(p -> p.result().itl().ms() / speedUp.applyAsDouble(p) <= itlSloMs)
                .max(Comparator.comparingDouble((Point p) -> p.result().tokensPerSPerGpu() * speedUp.applyAsDouble(p))
                        .thenComparingDouble(p -> p.result().tokensPerSPerUser() * speedUp.applyAsDouble(p)));
    }

    /** Each spec's point (null for a layout the machine cannot place or hold), in order, simulated by {@code step} on the pool. */
    private static List<Point> all(ExecutorService pool, List<DecodeSpec> specs, Function<DecodeSpec, DecodeResult> step) {
        return map(pool, specs, s -> new Point(s, step.apply(s)));
    }

    /**
     * {@code f} of every item on the pool, in the items' order; null for an item the machine cannot
     * place or hold ({@code f} threw an {@link InputException}).
     */
    public static <A, R> List<R> map(ExecutorService pool, List<A> items, Function<A, R> f) {
        return map(pool, items, f, (done, total) -> { });
    }

    /** As above, telling {@code progress} how many items are done (done, total) as they end in order. */
    public static <A, R> List<R> map(ExecutorService pool, List<A> items, Function<A, R> f,
                                     BiConsumer<Integer, Integer> progress) {
        try {
            List<Future<R>> futures = new ArrayList<>();
            for (A item : items) {
                futures.add(pool.submit(() -> {
                    try {
                        return f.apply(item);
                    } catch (InputException e) {
                        return null;
                    }
                }));
            }
            List<R> out = new ArrayList<>();
            for (Future<R> future : futures) {
                out.add(future.get());
                progress.accept(out.size(), futures.size());
            }
            return out;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
        }
    }

    /** The points no other point beats on both tokens/s per GPU and tokens/s per user, by tokens/s per user. */
    public static List<Point> pareto(List<Point> points) {
        return pareto(points, p -> 1);
    }

    /** As above, each point's step taken {@code speedUp} times faster. */
    private static List<Point> pareto(List<Point> points, ToDoubleFunction<Point> speedUp) {
        List<Point> sorted = new ArrayList<>(points);
        sorted.sort(Comparator.comparingDouble((Point p) -> -p.result().tokensPerSPerUser() * speedUp.applyAsDouble(p))
                .thenComparingDouble(p -> -p.result().tokensPerSPerGpu() * speedUp.applyAsDouble(p)));
        List<Point> frontier = new ArrayList<>();
        double best = Double.NEGATIVE_INFINITY;
        for (Point p : sorted) {
            double perGpu = p.result().tokensPerSPerGpu() * speedUp.applyAsDouble(p);
            if (perGpu > best) {
                frontier.add(p);
                best = perGpu;
            }
        }
        return frontier;
    }
}
