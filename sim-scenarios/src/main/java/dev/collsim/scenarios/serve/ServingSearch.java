package dev.collsim.scenarios.serve;

import dev.collsim.core.input.InputException;
import dev.collsim.core.units.Duration;
import dev.collsim.scenarios.compare.LayoutSearch;
import dev.collsim.scenarios.decode.CommModel;
import dev.collsim.scenarios.decode.DecodeResult;
import dev.collsim.scenarios.decode.DecodeSpec;
import dev.collsim.scenarios.decode.DecodeStep;
import dev.collsim.scenarios.decode.DecodeSystem;
import dev.collsim.scenarios.decode.ExpertParallel;
import dev.collsim.scenarios.decode.ModelConfig;
import dev.collsim.scenarios.decode.Overlap;
import dev.collsim.scenarios.decode.Prefill;
import dev.collsim.scenarios.decode.PrefillResult;
import dev.collsim.scenarios.serve.ServingPlan.Shortfall.Reason;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * Plans a model's serving on each system at both targets, from simulated steps.
 *
 * <p><b>Instances.</b> A layout of one engine instance: TP (inside an NVLink domain, dividing the
 * heads) by PP, and for an MoE model attention replicas whose GPUs together hold the experts (EP =
 * TP x DP). Decode instances run 1 to 512 sequences a replica (two-batch overlap where experts are
 * spread); prefill instances run 1 to 16 prompts a replica in one forward.
 *
 * <p><b>Aggregated</b> (vLLM's and SGLang's default, chunked prefill): a decode batch of B
 * sequences finishes B / OSL requests a step, so as many prompts must be prefilled a step; each
 * prompt rides in ceil(ISL / C) steps as a chunk of C tokens. The forward that carries a chunk reads
 * the weights once for both, so a chunk adds its own GPU time less the weight reads the decode step
 * already paid. The mean time per output token is the decode step plus B / OSL prompts' chunks; the
 * first token waits for the step in flight (half a step), for the prompts ahead (an M/D/1 queue of
 * the chunked prefills) and for its own chunks' steps.
 *
 * <p><b>Disaggregated</b> (xPyD): prefill instances at the load the TTFT target allows (queue, prefill,
 * the KV cache's move to the decode instance, which the first token waits for, and one decode step),
 * decode instances at the batch the ITL target allows, and as many of each that neither waits on the
 * other, within the GPU budget.
 *
 * <p>Every step is first estimated with its collectives alone ({@link DecodeStep#estimate}); the
 * decode steps of the chosen deployments are then simulated in full, as {@code decode} would, and the
 * choice made again until it stands on full steps.
 */
public final class ServingSearch {
    static final int[] BATCHES = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512};
    static final int[] PROMPTS = {1, 2, 4, 8, 16};
    /**
     * The most prompt tokens a prefill replica takes in one forward: DeepSeek's prefill runs 16K
     * tokens a GPU; beyond that the GEMMs gain nothing and the first token only waits longer.
     */
    static final int PREFILL_TOKENS = 16_384;
    static final int[] CHUNKS = {1024, 2048, 4096, 8192, 16384};
    static final int[] STAGES = {1, 2, 4};
    /** The decode points (most requests/s per GPU first) each prefill point is paired with. */
    static final int PAIRED = 16;

    private ServingSearch() {}

    /** A layout of one engine instance; {@code exchange}: how its MoE tokens reach their experts where the search chose it, else null. */
    record Instance(int tp, int pp, int ep, int dp, ExpertParallel.Exchange exchange) {
        Instance(int tp, int pp, int ep, int dp) {
            this(tp, pp, ep, dp, null);
        }

        int gpus() {
            return tp * pp * dp;
        }

        String label() {
            return "tp" + tp + (pp > 1 ? " pp" + pp : "") + (dp > 1 ? " dp" + dp : "") + (ep > 1 ? " ep" + ep : "");
        }

        /** The label with the exchange the deployment names (after the batch and the overlap, as --deployment reads it). */
        String exchangeLabel() {
            return exchange == null ? "" : " " + exchange.deploymentWord();
        }

        DecodeSpec spec(ServingSpec s, DecodeSystem system, int batch, int context, Overlap overlap) {
            DecodeSpec spec = s.engine().layout(s.model(), system, tp, pp, ep, dp, batch, context, s.precision(), overlap);
            return exchange == null ? spec : spec.withExchange(exchange);
        }
    }

    /**
     * A decode instance at a batch: its step's time and the part of it the weights' reads take (what
     * a prefill chunk in the same forward does not pay again). Only these are kept: a search holds
     * thousands.
     */
    record DecodePoint(Instance at, DecodeSpec spec, double stepMs, double weightsReadMs) {
        DecodePoint(Instance at, DecodeSpec spec, DecodeResult step) {
            this(at, spec, step.step().ms(), step.timing().weightsRead().ms());
        }

        /** The time per output token: the step over the tokens a sequence keeps a step (one without speculative decoding). */
        double itlMs() {
            return stepMs / spec.speculation().acceptance();
        }

        /** Steps a sequence of {@code osl} output tokens decodes for. */
        double steps(int osl) {
            return osl / spec.speculation().acceptance();
        }

        /** Requests/s the instance finishes: every replica's batch, each sequence OSL tokens long. */
        double requestsPerS(int osl) {
            return spec.batch() * (double) at.dp() * 1000 / (osl * itlMs());
        }
    }

    /** A prefill instance at a number of prompts per forward: its time, and the KV move the first token waits for (null: none possible). */
    record PrefillPoint(Instance at, int prompts, double serviceMs, Double kvMs, String kvOver) {}

    public static ServingPlan run(ServingSpec spec, int threads) {
        return run(spec, threads, KvRoom.WHOLE_MEMORY, (done, total) -> { });
    }

    /** As above, within the KV cache {@code room} leaves, telling {@code progress} how many of each system's decode steps are estimated. */
    public static ServingPlan run(ServingSpec spec, int threads, KvRoom room, BiConsumer<Integer, Integer> progress) {
        return ServingPlan.of(spec, search(spec, threads, room, progress).stream().map(Searched::plan).toList(), null);
    }

    /**
     * One system's search: every deployment of each mode within the targets (at the estimate's mean
     * times), most output tokens/s per GPU first, or why none is; {@code fitting} the decode points
     * that fit in memory.
     */
    public record Searched(String system, int fitting, Ranked aggregated, Ranked disaggregated) {
        public ServingPlan.SystemPlan plan() {
            return new ServingPlan.SystemPlan(system, fitting, aggregated.best(), aggregated.why(), disaggregated.best(), disaggregated.why());
        }
    }

    /** A mode's deployments within the targets, best first (one per decode point: its best chunk size or prefill pairing). */
    public record Ranked(List<ServingPlan.Deployment> deployments, ServingPlan.Shortfall why) {
        public ServingPlan.Deployment best() {
            return deployments.isEmpty() ? null : deployments.get(0);
        }
    }

    /** The estimate's search on each system; what a plan at mean targets reports and a plan at percentiles simulates. */
    public static List<Searched> search(ServingSpec spec, int threads, KvRoom room, BiConsumer<Integer, Integer> progress) {
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, threads));
        CommModel.Cache cache = new CommModel.Cache();
        try {
            List<Searched> systems = new ArrayList<>();
            for (DecodeSystem system : spec.systems()) {
                systems.add(plan(spec, system, room, pool, cache, progress));
            }
            if (systems.stream().allMatch(s -> s.fitting() == 0)) {
                throw new InputException(String.format(Locale.ROOT, "no instance of %s fits in memory on up to %d GPUs of %s at context %d in %s:"
                        + " give more --gpus, a smaller --dtype or shorter --isl/--osl", spec.model().name(), spec.gpus(),
                        String.join(" or ", spec.systems().stream().map(DecodeSystem::name).toList()), spec.decodeContext(),
                        spec.precision().label()));
            }
            return systems;
        } finally {
            pool.shutdownNow();
        }
    }

    /** The layouts of one instance on up to {@code gpus} GPUs, NVLink domains of {@code perNode}. */
    static List<Instance> instances(ModelConfig m, int perNode, int gpus) {
        List<Instance> out = new ArrayList<>();
        for (int tp = 1; tp <= Math.min(perNode, gpus); tp++) {
            if (m.heads() % tp != 0) {
                continue;
            }
            for (int pp : STAGES) {
                if (tp * pp > gpus || pp > m.layers()) {
                    continue;
                }
                out.add(new Instance(tp, pp, 1, 1));
                if (m.experts() == 0) {
                    continue;
                }
                TreeSet<Integer> dps = new TreeSet<>();
                for (int dp = 1; tp * pp * dp <= gpus; dp *= 2) {
                    dps.add(dp);
                }
                // As many replicas as one NVLink domain holds, so the experts fill it (EP 72 on NVL72).
                dps.add(Math.min(gpus, perNode) / (tp * pp));
                for (int dp : dps) {
                    if (dp >= 1 && tp * dp > 1 && tp * dp <= m.experts() && tp * pp * dp <= gpus) {
                        out.add(new Instance(tp, pp, tp * dp, dp));
                    }
                }
            }
        }
        return out;
    }

    private static Searched plan(ServingSpec spec, DecodeSystem system, KvRoom room, ExecutorService pool, CommModel.Cache cache,
                                 BiConsumer<Integer, Integer> progress) {
        int perNode = system.gpusPerNodeFor(spec.gpus());
        List<Instance> instances = new ArrayList<>();
        for (Instance i : instances(spec.model(), perNode, spec.gpus())) {
            if (spec.engine().experts().placesOn(spec.model(), i.ep())) {
                instances.add(i);
                if (spec.engine().experts().searchesBothExchanges(i.ep(), i.dp())) {
                    instances.add(new Instance(i.tp(), i.pp(), i.ep(), i.dp(), ExpertParallel.Exchange.wideEp(system)));
                }
            }
        }
        int context = spec.decodeContext();
        // Asked only of layouts whose weights fit: the room does not depend on the batch or the context.
        Map<Instance, Long> rooms = new HashMap<>();
        Function<Instance, Long> kvTokens = at -> rooms.computeIfAbsent(at, a -> room.tokens(a.spec(spec, system, 1, context, Overlap.NONE)));
        List<DecodeSpec> decodeSpecs = new ArrayList<>();
        for (Instance at : instances) {
            for (int batch : BATCHES) {
                for (Overlap o : at.ep() > 1 && batch > 1 ? List.of(Overlap.NONE, Overlap.TWO_BATCH) : List.of(Overlap.NONE)) {
                    DecodeSpec s = at.spec(spec, system, batch, context, o);
                    if (DecodeStep.fits(s) && (long) batch * context <= kvTokens.apply(at)) {
                        decodeSpecs.add(s);
                    }
                }
            }
        }
        // An instance names a2a only where the search chose it; a --all2all set for every layout is the setup's.
        boolean searched = spec.engine().experts().exchange() == ExpertParallel.Exchange.AUTO;
        List<DecodePoint> decode = new ArrayList<>(LayoutSearch.map(pool, decodeSpecs, s -> new DecodePoint(
                new Instance(s.tp(), s.pp(), s.ep(), s.dp(), searched && s.expertsAllToAll() ? s.experts().exchange() : null), s,
                DecodeStep.estimate(s, cache)), progress));
        decode.removeIf(Objects::isNull);

        List<PrefillPoint> prefill = prefillPoints(spec, system, instances, kvTokens, pool, cache);
        Map<Instance, Map<Integer, double[]>> chunks = chunkForwards(spec, system, decode, pool, cache);

        Map<DecodeSpec, DecodePoint> full = new IdentityHashMap<>();
        while (true) {
            Choice agg = aggregated(spec, decode, chunks);
            Choice dis = disaggregated(spec, decode, prefill);
            List<DecodePoint> todo = new ArrayList<>();
            for (Choice c : List.of(agg, dis)) {
                if (c.decode() != null && !full.containsKey(c.decode().spec())) {
                    todo.add(c.decode());
                }
            }
            if (todo.isEmpty()) {
                return new Searched(system.name(), decode.size(), agg.ranked(), dis.ranked());
            }
            List<DecodePoint> done = LayoutSearch.map(pool, todo, p -> new DecodePoint(p.at(), p.spec(), DecodeStep.run(p.spec(), cache)));
            for (int k = 0; k < todo.size(); k++) {
                DecodePoint before = todo.get(k);
                DecodePoint after = done.get(k);
                int at = decode.indexOf(before);
                if (after == null) {
                    decode.remove(at);
                } else {
                    decode.set(at, after);
                    full.put(after.spec(), after);
                }
            }
        }
    }

    private static List<PrefillPoint> prefillPoints(ServingSpec spec, DecodeSystem system, List<Instance> instances, Function<Instance, Long> kvTokens,
                                                    ExecutorService pool, CommModel.Cache cache) {
        record Ask(Instance at, int prompts) {}
        List<Ask> asks = new ArrayList<>();
        for (Instance at : instances) {
            for (int prompts : PROMPTS) {
                if ((prompts == 1 || prompts * spec.isl() <= PREFILL_TOKENS) && DecodeStep.fits(at.spec(spec, system, prompts, spec.isl(), Overlap.NONE))
                        && (long) prompts * spec.isl() <= kvTokens.apply(at)) {
                    asks.add(new Ask(at, prompts));
                }
            }
        }
        List<PrefillPoint> out = new ArrayList<>(LayoutSearch.map(pool, asks, a -> {
            PrefillResult r = Prefill.run(a.at().spec(spec, system, 1, spec.isl(), Overlap.NONE), spec.isl(), a.prompts(), 0, cache, true);
            // Inside an NVLink domain that holds both instances the cache moves over NVLink, else over the network.
            PrefillResult.KvTransfer move = r.kv().transfers().stream().filter(PrefillResult.KvTransfer::simulated)
                    .min(Comparator.comparing(PrefillResult.KvTransfer::after)).orElse(null);
            Double kv = move == null ? null : spec.kvTransfer() == KvTransfer.AFTER_PREFILL ? move.after().ms() : move.exposed().ms();
            return new PrefillPoint(a.at(), a.prompts(), r.ttft().ms(), kv, move == null ? "" : move.over());
        }));
        out.removeIf(Objects::isNull);
        return out;
    }

    /** The chunk sizes an aggregated instance may use: up to the prompt, and the whole prompt (no chunking). */
    static List<Integer> chunkSizes(int isl) {
        List<Integer> out = new ArrayList<>();
        for (int c : CHUNKS) {
            if (c < isl) {
                out.add(c);
            }
        }
        out.add(isl);
        return out;
    }

    /** Per decode instance and chunk size, each chunk's forward GPU time, for the instances whose steps could meet the ITL target. */
    private static Map<Instance, Map<Integer, double[]>> chunkForwards(ServingSpec spec, DecodeSystem system, List<DecodePoint> decode,
                                                                        ExecutorService pool, CommModel.Cache cache) {
        record Ask(Instance at, int chunk) {}
        List<Ask> asks = new ArrayList<>();
        decode.stream().filter(d -> d.itlMs() <= spec.itlSloMs()).map(DecodePoint::at).distinct()
                .forEach(at -> chunkSizes(spec.isl()).forEach(c -> asks.add(new Ask(at, c))));
        List<double[]> forwards = LayoutSearch.map(pool, asks,
                a -> Prefill.chunkGpuMs(a.at().spec(spec, system, 1, spec.isl(), Overlap.NONE), spec.isl(), a.chunk(), cache));
        Map<Instance, Map<Integer, double[]>> out = new HashMap<>();
        for (int k = 0; k < asks.size(); k++) {
            if (forwards.get(k) != null) {
                out.computeIfAbsent(asks.get(k).at(), x -> new HashMap<>()).put(asks.get(k).chunk(), forwards.get(k));
            }
        }
        return out;
    }

    /**
     * A mode's deployments within the targets, best first, with the decode point of the best (whose
     * step is then simulated in full), or why none is.
     */
    record Choice(Ranked ranked, DecodePoint decode) {}

    /** Most output tokens/s per GPU first, then the shorter TTFT. */
    static final Comparator<ServingPlan.Deployment> BEST_FIRST = Comparator.comparingDouble((ServingPlan.Deployment d) -> -d.tokensPerSPerGpu())
            .thenComparingDouble(d -> d.ttft().ms());

    /** The deployments found, each with its decode point, ranked; the best's point kept. */
    private static Choice choice(Map<ServingPlan.Deployment, DecodePoint> found, ServingPlan.Shortfall why) {
        List<ServingPlan.Deployment> ranked = found.keySet().stream().sorted(BEST_FIRST).toList();
        return new Choice(new Ranked(ranked, ranked.isEmpty() ? why : null), ranked.isEmpty() ? null : found.get(ranked.get(0)));
    }

    /** An aggregated instance at a decode batch and chunk size, or null where its prefills cannot keep up. */
    static ServingPlan.Deployment aggregatedAt(ServingSpec spec, DecodePoint d, int chunk, double[] chunkMs) {
        int batch = d.spec().batch();
        double step = d.stepMs();
        double shared = d.weightsReadMs();
        double prompt = 0;
        double worst = step;
        for (double c : chunkMs) {
            double withChunk = step + Math.max(0, c - shared);
            prompt += withChunk;
            worst = Math.max(worst, withChunk);
        }
        // Each step starts batch / steps prompts; each of their chunk steps is longer than a plain step by what the chunk adds.
        double steps = d.steps(spec.osl());
        double stepWithChunks = step + batch / steps * (prompt - chunkMs.length * step);
        double tpot = stepWithChunks / d.spec().speculation().acceptance();
        double perReplica = batch * 1000.0 / (steps * stepWithChunks);
        double utilization = perReplica * prompt / 1000;
        if (utilization >= 1) {
            return null;
        }
        double queue = PrefillQueue.waitMs(utilization, prompt);
        double ttft = spec.engine().requestMs() + stepWithChunks / 2 + queue + prompt;
        double requests = perReplica * d.at().dp();
        String prefills = chunk >= spec.isl() ? "whole prompts" : "chunks of " + chunk;
        return new ServingPlan.Deployment(ServingPlan.Mode.AGGREGATED, d.at().label() + " b" + batch + overlap(d) + d.at().exchangeLabel()
                + ", " + prefills,
                d.at().gpus(), new ServingPlan.Load(Duration.ofMillis(ttft), Duration.ofMillis(tpot), requests * spec.osl() / d.at().gpus(),
                        requests),
                new ServingPlan.Parts(Duration.ofMillis(prompt), Duration.ofMillis(queue), Duration.ZERO, "", Duration.ofMillis(step),
                        Duration.ofMillis(worst)),
                spec.rate() == null ? null : (int) Math.ceil(spec.rate() / requests) * d.at().gpus());
    }

    private static String overlap(DecodePoint d) {
        return d.spec().overlap() == Overlap.NONE ? "" : " " + d.spec().overlap().label();
    }

    private static Choice aggregated(ServingSpec spec, List<DecodePoint> decode, Map<Instance, Map<Integer, double[]>> chunks) {
        Map<ServingPlan.Deployment, DecodePoint> found = new LinkedHashMap<>(); // decode order: ties keep the first, as before
        double bestTtft = Double.POSITIVE_INFINITY;
        double bestItl = Double.POSITIVE_INFINITY;
        for (DecodePoint d : decode) {
            Map<Integer, double[]> sizes = chunks.getOrDefault(d.at(), Map.of());
            ServingPlan.Deployment best = null;
            for (int chunk : chunkSizes(spec.isl())) {
                double[] forwards = sizes.get(chunk);
                ServingPlan.Deployment a = forwards == null ? null : aggregatedAt(spec, d, chunk, forwards);
                if (a == null) {
                    continue;
                }
                bestItl = Math.min(bestItl, a.itl().ms());
                if (a.itl().ms() <= spec.itlSloMs()) {
                    bestTtft = Math.min(bestTtft, a.ttft().ms());
                }
                if (a.itl().ms() <= spec.itlSloMs() && a.ttft().ms() <= spec.ttftSloMs() && better(a, best)) {
                    best = a;
                }
            }
            if (best != null) {
                found.put(best, d);
            }
        }
        return choice(found, why(spec, bestItl, bestTtft));
    }

    private static boolean better(ServingPlan.Deployment a, ServingPlan.Deployment best) {
        return best == null || BEST_FIRST.compare(a, best) < 0;
    }

    private static ServingPlan.Shortfall why(ServingSpec spec, double bestItl, double bestTtft) {
        if (bestItl > spec.itlSloMs()) {
            return bestItl == Double.POSITIVE_INFINITY ? new ServingPlan.Shortfall(Reason.NOTHING_FITS, null)
                    : new ServingPlan.Shortfall(Reason.ITL, Duration.ofMillis(bestItl));
        }
        return new ServingPlan.Shortfall(Reason.TTFT_WITHIN_ITL, Duration.ofMillis(bestTtft));
    }

    private static Choice disaggregated(ServingSpec spec, List<DecodePoint> decode, List<PrefillPoint> prefill) {
        List<DecodePoint> fast = decode.stream().filter(d -> d.itlMs() <= spec.itlSloMs())
                .sorted(Comparator.comparingDouble((DecodePoint d) -> -d.requestsPerS(spec.osl()) / d.at().gpus())).limit(PAIRED).toList();
        if (fast.isEmpty()) {
            double bestItl = decode.stream().mapToDouble(d -> d.itlMs()).min().orElse(Double.POSITIVE_INFINITY);
            return new Choice(new Ranked(List.of(), why(spec, bestItl, 0)), null);
        }
        Map<ServingPlan.Deployment, DecodePoint> found = new LinkedHashMap<>(); // decode order: ties keep the first, as before
        double bestTtft = Double.POSITIVE_INFINITY;
        for (DecodePoint d : fast) {
            ServingPlan.Deployment best = null;
            for (PrefillPoint p : prefill) {
                if (p.kvMs() == null) {
                    continue;
                }
                ServingPlan.Deployment x = pair(spec, p, d);
                double unloaded = spec.engine().requestMs() + p.serviceMs() + p.kvMs() + d.stepMs();
                bestTtft = Math.min(bestTtft, unloaded);
                if (x != null && better(x, best)) {
                    best = x;
                }
            }
            if (best != null) {
                found.put(best, d);
            }
        }
        ServingPlan.Shortfall why = prefill.stream().allMatch(p -> p.kvMs() == null)
                ? new ServingPlan.Shortfall(Reason.NO_KV_PATH, null)
                : new ServingPlan.Shortfall(Reason.TTFT_UNLOADED, Duration.ofMillis(bestTtft));
        return choice(found, why);
    }

    /**
     * x prefill and y decode instances within the GPU budget, the most output tokens/s per GPU: the
     * prefills at most at the load the TTFT target allows, the decodes at their batch; null if the
     * target leaves the prefill no slack or the pair does not fit.
     */
    static ServingPlan.Deployment pair(ServingSpec spec, PrefillPoint p, DecodePoint d) {
        double fixed = spec.engine().requestMs() + p.serviceMs() + p.kvMs() + d.stepMs();
        // A pipeline takes the next forward once its first stage is free: its queue turns over at a stage's share of the prefill.
        double turn = p.serviceMs() / p.at().pp();
        double rho = PrefillQueue.maxUtilization(turn, spec.ttftSloMs() - fixed);
        int gp = p.at().gpus();
        int gd = d.at().gpus();
        if (rho <= 0 || gp + gd > spec.gpus()) {
            return null;
        }
        double full = p.prompts() * (double) p.at().dp() * 1000 / turn;
        double cp = rho * full;
        double cd = d.requestsPerS(spec.osl());
        int bestX = 0;
        int bestY = 0;
        double bestPerGpu = -1;
        for (int x = 1; x * gp + gd <= spec.gpus(); x++) {
            int room = (spec.gpus() - x * gp) / gd;
            int need = (int) Math.ceil(x * cp / cd - 1e-9);
            for (int y : new int[] {Math.min(need, room), Math.min(need, room) - 1}) {
                if (y < 1) {
                    continue;
                }
                double perGpu = Math.min(x * cp, y * cd) / (x * gp + y * gd);
                if (perGpu > bestPerGpu + 1e-12) {
                    bestPerGpu = perGpu;
                    bestX = x;
                    bestY = y;
                }
            }
        }
        double rate = Math.min(bestX * cp, bestY * cd);
        double load = rate / (bestX * full);
        double queue = PrefillQueue.waitMs(load, turn);
        int gpus = bestX * gp + bestY * gd;
        String what = String.format(Locale.ROOT, "%dP %s x%d%s + %dD %s b%d%s%s", bestX, p.at().label(), p.prompts(), p.at().exchangeLabel(),
                bestY, d.at().label(), d.spec().batch(), overlap(d), d.at().exchangeLabel());
        Integer forRate = spec.rate() == null ? null
                : (int) Math.ceil(spec.rate() / cp - 1e-9) * gp + (int) Math.ceil(spec.rate() / cd - 1e-9) * gd;
        return new ServingPlan.Deployment(ServingPlan.Mode.DISAGGREGATED, what, gpus,
                new ServingPlan.Load(Duration.ofMillis(queue + fixed), Duration.ofMillis(d.itlMs()), rate * spec.osl() / gpus, rate),
                new ServingPlan.Parts(Duration.ofMillis(p.serviceMs()), Duration.ofMillis(queue), Duration.ofMillis(p.kvMs()), p.kvOver(),
                        Duration.ofMillis(d.stepMs()), Duration.ofMillis(d.stepMs())), forRate);
    }

}
