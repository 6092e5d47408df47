package dev.collsim.scenarios.load;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One replica's scheduler state and the step it builds: requests waiting and running, the KV cache's
 * free blocks, and the prefix cache. It follows the engines' schedulers: running requests first (each
 * decode one token, each unfinished prompt its next chunk), a request that finds no block preempting
 * the one admitted last, then waiting requests admitted in order while sequences, tokens and blocks
 * last ({@link EngineScheduler.Admission} says against what).
 */
final class Replica {
    final int index;
    final EngineScheduler config;
    final int totalBlocks;
    /** Tokens of KV cache a running sequence's linear-layer state takes beside its own (a hybrid model's; else 0). */
    private final int stateTokens;
    final Deque<Live> waiting = new ArrayDeque<>();
    final List<Live> running = new ArrayList<>();
    int freeBlocks;
    int preemptions;
    /** Block hashes whose blocks stay cached after their request, least recently used first. */
    private final LinkedHashMap<Long, Boolean> prefixCache;

    Replica(int index, EngineScheduler config, long kvTokens, long stateTokens) {
        this.index = index;
        this.stateTokens = (int) Math.min(Integer.MAX_VALUE / 2, stateTokens);
        this.config = config;
        this.totalBlocks = (int) Math.min(Integer.MAX_VALUE, kvTokens / config.blockTokens());
        this.freeBlocks = totalBlocks;
        int capacity = totalBlocks;
        this.prefixCache = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Long, Boolean> eldest) {
                return size() > capacity;
            }
        };
    }

    /** Requests here, running and waiting: the load a router balances. */
    int load() {
        return running.size() + waiting.size();
    }

    /** Blocks the running requests hold. */
    int heldBlocks() {
        return totalBlocks - freeBlocks;
    }

    private int blocksFor(int tokens) {
        return (tokens + config.blockTokens() - 1) / config.blockTokens();
    }

    /** Blocks a sequence of this many tokens holds: its tokens' and its linear state's. */
    private int sequenceBlocks(int tokens) {
        return blocksFor(tokens) + blocksFor(stateTokens);
    }

    /** Whether a request of this many tokens, prompt and output, could ever run here. */
    boolean couldHold(Live r) {
        return sequenceBlocks(r.spec.isl() + r.spec.osl()) <= totalBlocks;
    }

    /** Prompt tokens of {@code r} this replica's prefix cache holds, whole engine blocks, leaving at least one to compute. */
    int cachedPrefix(Live r) {
        if (!config.prefixCaching() || r.spec.blockHashes().length == 0 || r.generated > 0) {
            return 0;
        }
        int blocks = 0;
        for (long h : r.spec.blockHashes()) {
            if (!prefixCache.containsKey(h)) {
                break;
            }
            blocks++;
        }
        int tokens = Math.min(blocks * r.spec.blockTokens(), r.promptTokens - 1);
        return Math.max(0, tokens / config.blockTokens() * config.blockTokens());
    }

    /** Remembers a computed prompt's blocks for later requests. */
    void cachePrompt(Live r) {
        if (config.prefixCaching()) {
            for (long h : r.spec.blockHashes()) {
                prefixCache.put(h, Boolean.TRUE);
            }
        }
    }

    /** What one step of this replica runs; empty when it has nothing to do. */
    static final class Step {
        final List<Live> decodes = new ArrayList<>();
        final List<Live> prefills = new ArrayList<>();
        final List<Integer> prefillTokens = new ArrayList<>();
        double contextSum;

        boolean isEmpty() {
            return decodes.isEmpty() && prefills.isEmpty();
        }

        StepCosts.Piece[] pieces() {
            StepCosts.Piece[] out = new StepCosts.Piece[prefills.size()];
            for (int i = 0; i < out.length; i++) {
                out[i] = new StepCosts.Piece(prefillTokens.get(i), prefills.get(i).kvTokens);
            }
            return out;
        }

        double meanContext() {
            return decodes.isEmpty() ? 0 : contextSum / decodes.size();
        }
    }

    /** Builds the next step at {@code now}, admitting and preempting as the engine does. */
    Step build(double now) {
        Step step = new Step();
        int budget = config.maxNumBatchedTokens();
        boolean preempted = false;
        boolean prefillFirst = !config.mixed() && hasPrefillWork();
        for (int i = 0; i < running.size(); i++) {
            Live r = running.get(i);
            boolean prompt = r.kvTokens < r.promptTokens;
            if (budget <= 0 || r.inFlight || prompt != prefillFirst && !config.mixed()) {
                continue;
            }
            int tokens = prompt ? Math.min(Math.min(r.promptTokens - r.kvTokens, budget), config.chunkSize()) : 1;
            while (!allocate(r, tokens)) {
                Live victim = lastNotInFlight(); // r at the latest: a forward in flight keeps its requests
                preempt(victim);
                preempted = true;
                if (victim == r) {
                    break;
                }
            }
            if (!running.contains(r)) {
                i--;
                continue;
            }
            add(step, r, prompt, tokens);
            budget -= tokens;
        }
        // vLLM admits nothing in a step that preempted: the freed blocks go to the running requests first.
        boolean admitting = !preempted;
        while (admitting && !waiting.isEmpty() && scheduled() < config.maxNumSeqs() && budget > 0) {
            Live r = nextWaiting();
            // A request handed over with its KV cache (disaggregated) decodes at once; any other computes its prompt.
            boolean prompt = r.kvTokens < r.promptTokens;
            int cached = prompt ? cachedPrefix(r) : 0;
            int tokens = prompt ? Math.min(Math.min(r.promptTokens - cached, budget), config.chunkSize()) : 1;
            if (prompt == !prefillFirst && !config.mixed() && !step.isEmpty() || !admissible(r, prompt ? cached : r.kvTokens, cached, tokens)) {
                break;
            }
            waiting.remove(r);
            running.add(r);
            if (prompt) {
                r.kvTokens = cached;
                r.cachedTokens = Math.max(r.cachedTokens, cached);
            }
            if (Double.isNaN(r.scheduledMs)) {
                r.scheduledMs = now;
            }
            allocate(r, tokens);
            add(step, r, prompt, tokens);
            budget -= tokens;
        }
        return step;
    }

    /** Nothing queued or running: a KV move its instance starts now has no forward beside it. */
    boolean idle() {
        return waiting.isEmpty() && running.isEmpty();
    }

    private boolean hasPrefillWork() {
        for (Live r : running) {
            if (r.kvTokens < r.promptTokens) {
                return true;
            }
        }
        Live next = waiting.peekFirst();
        if (next == null || scheduled() >= config.maxNumSeqs() || next.kvTokens >= next.promptTokens) {
            return false;
        }
        int cached = cachedPrefix(next);
        return admissible(next, cached, cached, Math.min(next.promptTokens - cached, config.chunkSize()));
    }

    private Live nextWaiting() {
        if (config.policy() == SchedulerKnobs.Policy.FCFS) {
            return waiting.peekFirst();
        }
        // Longest prefix match: the waiting request with most of its prompt cached, the earliest among equals.
        Live best = waiting.peekFirst();
        int most = cachedPrefix(best);
        for (Live r : waiting) {
            int c = cachedPrefix(r);
            if (c > most) {
                best = r;
                most = c;
            }
        }
        return best;
    }

    private void add(Step step, Live r, boolean prompt, int tokens) {
        if (prompt) {
            step.prefills.add(r);
            step.prefillTokens.add(tokens);
        } else {
            step.decodes.add(r);
            step.contextSum += r.kvTokens;
        }
    }

    /**
     * Whether {@code r} may join, by the engine's admission rule: {@code tokens} more after {@code base} in its cache, of
     * which {@code cached} tokens are blocks the prefix cache already holds.
     */
    private boolean admissible(Live r, int base, int cached, int tokens) {
        int cachedBlocks = cached / config.blockTokens();
        return switch (config.admission()) {
            case PREEMPT_ON_OVERFLOW -> sequenceBlocks(base + tokens) - cachedBlocks <= freeBlocks;
            case GUARANTEED_NO_EVICT -> sequenceBlocks(r.spec.isl() + r.spec.osl()) - cachedBlocks <= freeBlocks;
            case RESERVE_RATIO -> sequenceBlocks(Math.max(r.promptTokens, base + tokens)) - cachedBlocks + reserve() <= freeBlocks;
        };
    }

    /** SGLang's reserve: each running request's remaining output times new_token_ratio. */
    private int reserve() {
        double tokens = 0;
        for (Live r : running) {
            tokens += (r.spec.osl() - r.generated) * config.newTokenRatio();
        }
        return blocksFor((int) Math.ceil(tokens));
    }

    /**
     * Takes the blocks {@code r} needs for {@code tokens} more; false when too few are free. Under
     * GUARANTEED_NO_EVICT a request took its whole prompt's and output's blocks on admission.
     */
    private boolean allocate(Live r, int tokens) {
        int need = config.admission() == EngineScheduler.Admission.GUARANTEED_NO_EVICT
                ? sequenceBlocks(r.spec.isl() + r.spec.osl()) : sequenceBlocks(r.kvTokens + tokens);
        int more = need - r.blocks;
        if (more <= 0) {
            return true;
        }
        if (more > freeBlocks) {
            return false;
        }
        freeBlocks -= more;
        r.blocks += more;
        return true;
    }

    /** Frees a request's blocks. */
    void release(Live r) {
        freeBlocks += r.blocks;
        r.blocks = 0;
    }

    /**
     * Running requests this step's scheduler counts against max_num_seqs: those of forwards still in flight are another
     * micro-batch's (a pipeline's stages each hold one, as vLLM's virtual engines do).
     */
    private int scheduled() {
        int n = running.size();
        for (Live r : running) {
            n -= r.inFlight ? 1 : 0;
        }
        return n;
    }

    private Live lastNotInFlight() {
        for (int k = running.size() - 1; ; k--) {
            if (!running.get(k).inFlight) {
                return running.get(k);
            }
        }
    }

    /** Recompute-mode preemption: its blocks freed, back to the front of the queue, its prompt and output so far computed again. */
    private void preempt(Live r) {
        running.remove(r);
        release(r);
        r.kvTokens = 0;
        r.promptTokens = r.spec.isl() + r.generated;
        r.preemptions++;
        preemptions++;
        waiting.addFirst(r);
    }

    /** Removes a finished (or handed-on) request. */
    void finish(Live r) {
        running.remove(r);
        release(r);
    }
}
