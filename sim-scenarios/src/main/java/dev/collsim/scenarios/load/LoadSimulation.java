package dev.collsim.scenarios.load;

import dev.collsim.core.input.InputException;
import dev.collsim.scenarios.decode.CommModel;
import dev.collsim.scenarios.decode.DecodeSpec;
import dev.collsim.scenarios.decode.DecodeStep;
import dev.collsim.scenarios.decode.ModelConfig;
import dev.collsim.scenarios.decode.Prefill;
import dev.collsim.scenarios.decode.PrefillResult;
import dev.collsim.scenarios.decode.Speculation;
import dev.collsim.scenarios.load.workload.RequestSpec;
import dev.collsim.scenarios.serve.KvTransfer;
import dev.collsim.scenarios.stochastic.Mrg32k3aStreams;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.PriorityQueue;
import java.util.function.BiConsumer;
import umontreal.ssj.rng.MRG32k3a;

/**
 * Runs a load: every request through the deployment's router, its instances' schedulers and steps,
 * on one event clock. An instance runs one step at a time; its next step is built when the last
 * ends (or when work reaches an idle one), from the state its scheduler holds then. Under DP
 * attention an instance's replicas step together, each step as long as its slowest replica's. A
 * disaggregated request's KV cache leaves its prefill instance when its prompt is done, one
 * request after another over the instance's links, and joins a decode instance's queue on arrival.
 */
public final class LoadSimulation {
    private LoadSimulation() {}

    /** Prompt tokens of the move a KV sender is timed on (its time per token is linear above a few thousand). */
    private static final int KV_REFERENCE_TOKENS = 4096;
    /** The seed's stream the drafts' acceptance is drawn from: after the step noise's (0-3) and the workload's (4-6). */
    private static final int ACCEPTANCE_STREAM = 7;

    /**
     * Simulates {@code spec}, telling {@code progress} (done, total) as requests end. One event after another on one
     * thread: each step is built from the state the last left.
     */
    public static LoadOutcome run(LoadSpec spec, BiConsumer<Integer, Integer> progress) {
        return new Run(spec, progress).run();
    }

    /**
     * A prefill instance's KV sender: a prompt token's move alone, ms, and how its moves and the instance's forwards slow
     * each other where they share links.
     */
    private record KvSender(double msPerToken, Prefill.KvContention contention) {
        static final KvSender NONE = new KvSender(0, Prefill.KvContention.NONE);
    }

    /** One instance: its replicas (several only under DP attention), the step costs of its layout, and its KV sender. */
    private static final class Instance {
        final int id;
        final Deployment.Kind kind;
        final Replica[] replicas;
        final StepCosts costs;
        final KvSender kv;
        /**
         * Forwards in flight at once: a prefill instance's pipeline stages (the next forward enters when the first stage is
         * free, as vLLM's and SGLang's pipeline-parallel prefill run micro-batches); 1 otherwise, each step after the last.
         */
        final int stages;
        boolean busy;
        double senderFreeMs;

        Instance(int id, Deployment.Kind kind, Replica[] replicas, StepCosts costs, KvSender kv, int stages) {
            this.id = id;
            this.kind = kind;
            this.replicas = replicas;
            this.costs = costs;
            this.kv = kv;
            this.stages = stages;
        }
    }

    private record Event(double timeMs, long order, Runnable action) {}

    private static final class Run {
        private final LoadSpec spec;
        private final BiConsumer<Integer, Integer> progress;
        private final PriorityQueue<Event> events = new PriorityQueue<>(Comparator.comparingDouble(Event::timeMs).thenComparingLong(Event::order));
        private long order;
        private final List<Instance> front = new ArrayList<>();
        private final List<Instance> back = new ArrayList<>();
        private final List<Live> live = new ArrayList<>();
        private final List<Integer> kvBlocks = new ArrayList<>();
        private final Gaps gaps = new Gaps();
        private final Series series = new Series();
        private final List<LoadOutcome.StepRecord> stepRecords = new ArrayList<>();
        private int nextToSend;
        private int ended;
        private int warmupEnded;
        private int roundRobin;
        private String schedulerWords = "";
        private int blockTokens;
        /** Requests in the deployment (queued, running, or their KV cache in flight), integrated over time from its queues. */
        private final InSystem inSystem = new InSystem();
        private int inTransfer;
        private final Speculation speculation;
        /** Under speculative decoding, the chance that a draft is accepted after the one before it was, and its stream. */
        private final double perDraft;
        private final MRG32k3a acceptance;

        Run(LoadSpec spec, BiConsumer<Integer, Integer> progress) {
            this.spec = spec;
            this.progress = progress;
            this.speculation = spec.engine().speculation();
            this.perDraft = speculation.perTokenAcceptance();
            this.acceptance = Mrg32k3aStreams.fromSeed(spec.seed(), ACCEPTANCE_STREAM + 1)[ACCEPTANCE_STREAM];
        }

        /**
         * Tokens a sequence keeps from a step: 1 without speculation; under it the verified token and the drafts accepted
         * before the first rejected one, each accepted with {@link Speculation#perTokenAcceptance}, so that their mean is the
         * acceptance given.
         */
        private int kept() {
            int kept = 1;
            while (kept <= speculation.drafts() && acceptance.nextDouble() < perDraft) {
                kept++;
            }
            return kept;
        }

        LoadOutcome run() {
            CommModel.Cache cache = new CommModel.Cache();
            List<RequestSpec> requests = spec.workload().requests();
            for (int i = 0; i < requests.size(); i++) {
                live.add(new Live(requests.get(i), i >= spec.workload().warmup()));
            }
            checkContext();
            for (Deployment.Role role : spec.deployment().roles()) {
                build(role, cache);
            }
            if (spec.workload().closedLoop()) {
                // The first requests are sent at 0 and reach the scheduler the server's time per request later.
                double requestMs = spec.engine().requestMs();
                at(requestMs, () -> sendPhase(requestMs));
            } else {
                // An open loop's request reaches the scheduler the server's time per request after the client sent it.
                double requestMs = spec.engine().requestMs();
                for (Live r : live) {
                    at(r.spec.arrivalMs() + requestMs, () -> {
                        r.arrivalMs = r.spec.arrivalMs();
                        arrive(r, r.spec.arrivalMs() + requestMs);
                    });
                }
                nextToSend = live.size();
            }
            inSystem.at(0, held());
            while (!events.isEmpty()) {
                Event e = events.poll();
                e.action().run();
                inSystem.at(e.timeMs(), held());
            }
            return outcome();
        }

        private void checkContext() {
            ModelConfig m = spec.model();
            for (Live r : live) {
                if (m.maxContext() > 0 && r.spec.isl() + r.spec.osl() > m.maxContext()) {
                    throw new InputException(String.format(Locale.ROOT, "request %d: %d prompt and %d output tokens exceed %s's context of %,d tokens"
                            + " (max_position_embeddings); give shorter --isl/--osl", r.spec.id(), r.spec.isl(), r.spec.osl(), m.name(), m.maxContext()));
                }
            }
        }

        private void build(Deployment.Role role, CommModel.Cache cache) {
            ModelConfig m = spec.model();
            boolean lockstep = role.ep() > 1;
            int engines = role.instances() * (lockstep ? 1 : role.dp());
            int perEngine = lockstep ? role.dp() : 1;
            DecodeSpec layout;
            try {
                layout = spec.engine().layout(m, spec.system(), role.tp(), role.pp(), role.ep(), perEngine, 1, 1, spec.precision(), role.overlap());
                layout = role.exchange() != null ? layout.withExchange(role.exchange()) : layout;
            } catch (InputException e) {
                throw new InputException("--deployment '" + role.label() + "': " + e.getMessage());
            }
            EngineScheduler config = EngineScheduler.of(spec.engine().engine(), spec.scheduler(), role, DecodeStep.gpuMemoryBytes(layout));
            long tokens = DecodeStep.kvTokenCapacity(layout, config.memoryFraction(), config.ofFreeMemory());
            if (tokens < config.blockTokens()) {
                throw new InputException(String.format(Locale.ROOT, "--deployment '%s': %s in %s leaves no room for a KV cache on %s at"
                                + " %.0f%% of its memory; give more GPUs (tp, pp, ep) or a smaller --dtype", role.label(), m.name(),
                        spec.precision().label(), spec.system().name(), config.memoryFraction() * 100));
            }
            long stateTokens = DecodeStep.stateTokensPerSequence(layout);
            StepCosts costs = new StepCosts(layout, layout.cudaGraphs() ? config.graphSizes() : new int[0], config.padsToGraph(), cache);
            KvSender kv = role.kind() == Deployment.Kind.PREFILL ? kvSender(layout, cache) : KvSender.NONE;
            schedulerWords += (schedulerWords.isEmpty() ? "" : "; ") + role.kind().label() + ": " + config.describe()
                    + (speculation.speculates() && role.kind() != Deployment.Kind.PREFILL ? ", speculative decoding " + speculation.describe() : "");
            blockTokens = config.blockTokens();
            for (int e = 0; e < engines; e++) {
                Replica[] replicas = new Replica[perEngine];
                for (int k = 0; k < perEngine; k++) {
                    replicas[k] = new Replica(k, config, tokens, stateTokens);
                }
                List<Instance> pool = role.kind() == Deployment.Kind.DECODE ? back : front;
                pool.add(new Instance(front.size() + back.size(), role.kind(), replicas, costs, kv,
                        role.kind() == Deployment.Kind.PREFILL ? role.pp() : 1));
            }
            kvBlocks.add(new Replica(0, config, tokens, stateTokens).totalBlocks);
        }

        /** A prefill instance's KV sender, from a simulated move of {@value #KV_REFERENCE_TOKENS} prompt tokens and its contention. */
        private KvSender kvSender(DecodeSpec prefill, CommModel.Cache cache) {
            int reference = KV_REFERENCE_TOKENS;
            PrefillResult r = Prefill.run(prefill, reference, 1, 0, cache, true);
            PrefillResult.KvTransfer move = r.kv().transfers().stream().filter(PrefillResult.KvTransfer::simulated)
                    .min(Comparator.comparing(PrefillResult.KvTransfer::after)).orElse(null);
            if (move == null) {
                throw new InputException("--deployment '" + spec.deployment().label() + "': no path for the KV cache from a prefill instance to a"
                        + " decode instance on " + spec.system().name());
            }
            double ms = spec.kvTransfer() == KvTransfer.AFTER_PREFILL ? move.after().ms() : move.exposed().ms();
            return new KvSender(ms / reference, Prefill.kvContention(prefill, r, move.insideNode()));
        }

        private void at(double timeMs, Runnable action) {
            events.add(new Event(timeMs, order++, action));
        }

        /**
         * A closed loop's first requests of a phase, as many as are in flight at once. The warm-up is a phase of its own: its
         * last request ends before the measured ones are sent, all at once, as AIPerf's, genai-perf's and vllm bench serve's
         * warm-ups run.
         */
        private void sendPhase(double now) {
            int phaseEnd = nextToSend < spec.workload().warmup() ? spec.workload().warmup() : live.size();
            for (int k = 0; k < spec.workload().concurrency() && nextToSend < phaseEnd; k++) {
                sendNext(now);
            }
        }

        private void sendNext(double now) {
            if (nextToSend < live.size()) {
                send(live.get(nextToSend++), now);
            }
        }

        /**
         * A closed loop's next request: the scheduler has it at {@code now}, as the last one ends, and the client sent it the
         * server's time per request before. The front end's time is no gap between two requests of a loop: the deterministic
         * loop locks onto any gap and bunches its requests' prompts, which the measured runs do not show (docs/model.md).
         */
        private void send(Live r, double now) {
            r.arrivalMs = now - spec.engine().requestMs();
            arrive(r, now);
        }

        private void arrive(Live r, double now) {
            Instance instance = route(front, r);
            Replica replica = chosenReplica;
            if (instance.kind == Deployment.Kind.PREFILL) {
                r.prefillInstance = instance.id;
            } else {
                r.instance = instance.id;
            }
            if (!replica.couldHold(r)) {
                r.failed = true;
                end(r, now);
                return;
            }
            replica.waiting.addLast(r);
            kick(instance, now);
        }

        private Replica chosenReplica;

        /** The instance (and, in {@link #chosenReplica}, the replica) the router sends {@code r} to. */
        private Instance route(List<Instance> pool, Live r) {
            Instance best = null;
            Replica bestReplica = null;
            double bestCost = Double.POSITIVE_INFINITY;
            int count = pool.stream().mapToInt(i -> i.replicas.length).sum();
            int turn = roundRobin++ % count;
            int k = 0;
            for (Instance instance : pool) {
                for (Replica replica : instance.replicas) {
                    double cost = switch (spec.router()) {
                        case ROUND_ROBIN -> k == turn ? 0 : 1;
                        case LEAST_LOADED -> replica.load();
                        case KV_AWARE -> (double) (r.promptTokens - replica.cachedPrefix(r)) / replica.config.blockTokens() + replica.heldBlocks();
                    };
                    if (cost < bestCost) {
                        bestCost = cost;
                        best = instance;
                        bestReplica = replica;
                    }
                    k++;
                }
            }
            chosenReplica = bestReplica;
            return best;
        }

        /**
         * Has an idle instance start its next step now, from what its scheduler holds, as an engine's busy loop does: a
         * request reaching an idle engine runs at once, and those that arrive while a step runs wait for the next.
         * Requests sent as others end in a step arrive while it still counts as running, so they join the next together.
         */
        private void kick(Instance instance, double now) {
            if (instance.busy) {
                return;
            }
            Replica.Step[] steps = new Replica.Step[instance.replicas.length];
            boolean any = false;
            double ms = 0;
            for (int k = 0; k < steps.length; k++) {
                steps[k] = instance.replicas[k].build(now);
                if (!steps[k].isEmpty()) {
                    any = true;
                    ms = Math.max(ms, instance.costs.stepMs(steps[k].decodes.size(), steps[k].meanContext(), steps[k].pieces()));
                }
            }
            if (!any) {
                return;
            }
            for (Replica.Step step : steps) {
                step.prefills.forEach(r -> r.inFlight = true);
                step.decodes.forEach(r -> r.inFlight = true);
            }
            if (instance.senderFreeMs > now) {
                ms *= instance.kv.contention().forwardFactor(Math.min(1, (instance.senderFreeMs - now) / ms));
            }
            instance.busy = true;
            double end = now + ms;
            if (instance.stages > 1) {
                double free = now + ms / instance.stages;
                at(free, () -> {
                    instance.busy = false;
                    kick(instance, free);
                });
            }
            at(end, () -> stepEnd(instance, steps, now, end));
        }

        private void stepEnd(Instance instance, Replica.Step[] steps, double startMs, double now) {
            for (Replica.Step step : steps) {
                step.prefills.forEach(r -> r.inFlight = false);
                step.decodes.forEach(r -> r.inFlight = false);
            }
            int decodes = 0;
            int prefillTokens = 0;
            for (int k = 0; k < steps.length; k++) {
                Replica replica = instance.replicas[k];
                Replica.Step step = steps[k];
                decodes = Math.max(decodes, step.decodes.size());
                for (int i = 0; i < step.prefills.size(); i++) {
                    Live r = step.prefills.get(i);
                    r.kvTokens += step.prefillTokens.get(i);
                    prefillTokens += step.prefillTokens.get(i);
                    if (r.kvTokens >= r.promptTokens) {
                        promptDone(instance, replica, r, now);
                    }
                }
                for (Live r : step.decodes) {
                    for (int left = kept(); left > 0 && r.generated < r.spec.osl(); left--) {
                        r.kvTokens++;
                        token(replica, r, now);
                    }
                }
            }
            if (spec.keepSteps()) {
                int graph = decodes == 0 ? 0 : instance.costs.graphBatch(decodes);
                stepRecords.add(new LoadOutcome.StepRecord(instance.id, instance.kind, startMs, now, decodes, prefillTokens, graph));
            }
            sample(now);
            if (instance.stages == 1) {
                instance.busy = false;
            }
            kick(instance, now);
        }

        private void promptDone(Instance instance, Replica replica, Live r, double now) {
            if (r.generated == 0) {
                replica.cachePrompt(r);
            }
            if (instance.kind == Deployment.Kind.PREFILL) {
                r.prefillEndMs = now;
                replica.running.remove(r);
                inTransfer++;
                double start = Math.max(now, instance.senderFreeMs);
                double done = start + instance.kv.msPerToken() * r.promptTokens * (Arrays.stream(instance.replicas).allMatch(Replica::idle) ? 1 : instance.kv.contention().kvFactor());
                instance.senderFreeMs = done;
                at(done, () -> kvArrived(instance, replica, r, done));
                return;
            }
            if (Double.isNaN(r.prefillEndMs)) {
                r.prefillEndMs = now;
            }
            token(replica, r, now);
        }

        private void kvArrived(Instance from, Replica replica, Live r, double now) {
            replica.release(r);
            inTransfer--;
            kick(from, now);
            r.kvArrivedMs = now;
            Instance to = route(back, r);
            r.instance = to.id;
            if (!chosenReplica.couldHold(r)) {
                r.failed = true;
                end(r, now);
                return;
            }
            r.kvTokens = r.promptTokens;
            chosenReplica.waiting.addLast(r);
            kick(to, now);
        }

        /** {@code r} emits its next token at {@code now}. */
        private void token(Replica replica, Live r, double now) {
            r.generated++;
            if (r.generated == 1) {
                r.firstTokenMs = now;
            } else if (r.measured && now > r.lastTokenMs) {
                // The tokens one speculative step keeps reach the client together: one gap, as a streaming client times them.
                gaps.add(now - r.lastTokenMs);
            }
            r.lastTokenMs = now;
            if (r.generated >= r.spec.osl()) {
                replica.finish(r);
                end(r, now);
            }
        }

        private void end(Live r, double now) {
            if (!Double.isNaN(r.endMs)) {
                throw new IllegalStateException("request " + r.spec.id() + " ended twice: " + r.endMs + " and " + now + " generated " + r.generated);
            }
            r.endMs = r.failed ? Double.NaN : now;
            ended++;
            if (ended % Math.max(1, live.size() / 200) == 0 || ended == live.size()) {
                progress.accept(ended, live.size());
            }
            if (!spec.workload().closedLoop()) {
                return;
            }
            if (!r.measured) {
                warmupEnded++;
            }
            if (r.measured || nextToSend < spec.workload().warmup()) {
                sendNext(now);
            } else if (warmupEnded == spec.workload().warmup()) {
                sendPhase(now);
            }
        }

        /** Requests the instances hold now: waiting, running, prefilled and waiting to send, or sending. */
        private int held() {
            int n = inTransfer;
            for (List<Instance> pool : List.of(front, back)) {
                for (Instance instance : pool) {
                    for (Replica replica : instance.replicas) {
                        n += replica.running.size() + replica.waiting.size();
                    }
                }
            }
            return n;
        }

        private void sample(double now) {
            int running = 0;
            int queued = 0;
            long held = 0;
            long total = 0;
            int preemptions = 0;
            for (List<Instance> pool : List.of(front, back)) {
                for (Instance instance : pool) {
                    for (Replica replica : instance.replicas) {
                        running += replica.running.size();
                        queued += replica.waiting.size();
                        held += replica.heldBlocks();
                        total += replica.totalBlocks;
                        preemptions += replica.preemptions;
                    }
                }
            }
            series.offer(new LoadOutcome.Sample(now, running, queued, total == 0 ? 0 : (double) held / total, preemptions));
        }

        private LoadOutcome outcome() {
            List<LoadOutcome.RequestRecord> records = new ArrayList<>(live.size());
            for (Live r : live) {
                records.add(r.record());
            }
            int preemptions = series.last() == null ? 0 : series.last().preemptions();
            LoadOutcome.Summary summary = Summaries.of(records, gaps.distribution(), spec.deployment().gpus(), preemptions, spec.goodput(),
                    inSystem.mean());
            LoadOutcome.Setup setup = new LoadOutcome.Setup(spec.model().name(), spec.system().name(), spec.deployment().label(),
                    spec.engine().engine().label(), spec.engine().requestMs(), schedulerWords, spec.workload().describe(), spec.deployment().gpus(), List.copyOf(kvBlocks),
                    blockTokens, spec.seed());
            return new LoadOutcome(setup, summary, records, series.samples(), List.copyOf(stepRecords));
        }
    }
}
