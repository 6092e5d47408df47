package dev.collsim.scenarios.decode;

import dev.collsim.core.input.InputException;
import dev.collsim.scenarios.stochastic.Mrg32k3aStreams;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import umontreal.ssj.rng.MRG32k3a;
import umontreal.ssj.rng.RandomPermutation;

/**
 * How a MoE layer's tokens reach the experts on other expert-parallel ranks, how they fall on the experts, and how the
 * experts are placed on the ranks.
 *
 * <p>The exchange ({@link Exchange}): the engines' default with attention data parallelism gathers every replica's tokens
 * to every EP rank and reduce-scatters the experts' outputs back; the all-to-all libraries (DeepEP, pplx) send each token
 * only to the ranks of its top-k experts. With one replica (attention TP as wide as EP) the gather has nothing to do:
 * every rank holds the replica's tokens, runs its experts on them, and the TP all-reduce sums the outputs.
 *
 * <p>The load, a what-if, since a step's time is the busiest rank's. Routing picks expert j (in order of popularity) in
 * proportion to (j + 1)^-skew, Zipf's law ({@code skew} 0: every expert alike, as collsim assumed before). Without EPLB
 * the engines load experts by id, E / ep consecutive ids a rank, and ids say nothing of popularity: the popularity order
 * is laid on the ids by one fixed draw (a shuffle on an MRG32k3a stream of {@link #PLACEMENT_SEED}), so a run is
 * repeatable and every skew shares the draw. With EPLB (DeepSeek's expert-parallel load balancer, SGLang's {@code
 * --enable-eplb}, TensorRT-LLM's online EPLB) the {@code redundant} extra slots go one by one to the expert with the most
 * load a replica, each replica takes an equal part of its expert's load, and the replicas are packed heaviest first onto
 * the rank with the least load that has a slot free ({@code eplb.py}'s replicate_experts and balanced_packing),
 * (E + redundant) / ep slots a rank.
 *
 * @param exchange  how tokens travel to the experts' ranks and back
 * @param skew      Zipf exponent of the experts' popularity, 0 or more
 * @param eplb      whether EPLB places the experts
 * @param redundant EPLB's redundant experts (SGLang's {@code --ep-num-redundant-experts}), 0 without EPLB
 */
public record ExpertParallel(Exchange exchange, double skew, boolean eplb, int redundant) {
    /** The engines' exchange (a search tries both), every expert alike, placed by id. */
    public static final ExpertParallel DEFAULT = new ExpertParallel(Exchange.AUTO, 0, false, 0);

    /** How a MoE layer's tokens travel to the ranks that hold their experts, and the outputs back. */
    public enum Exchange {
        /** Unset: a layout given runs the engines' default, {@link #ALLGATHER}; a layout search tries both. */
        AUTO,
        /**
         * An all-gather of every attention replica's tokens over the EP ranks, each rank's experts on all of them, a
         * reduce-scatter of the outputs (vLLM's default all2all backend, allgather_reducescatter; SGLang's DP attention
         * without DeepEP; TensorRT-LLM's attention DP without its wide-EP all-to-all), in BF16.
         */
        ALLGATHER,
        /**
         * Each token to the ranks of its top-k experts and back (DeepEP, pplx, TensorRT-LLM's wide-EP all-to-all): an
         * all-to-all of top-k copies a token, the dispatch in the weights' activation format (FP8 where DeepEP quantises
         * before it sends), the combine in BF16; each TP rank takes 1/tp of its replica's tokens, and an all-gather over
         * TP restores them after.
         */
        ALLTOALL,
        /**
         * {@link #ALLTOALL}'s exchange sent by DeepEP's own kernels ({@link DeepEp}: low-latency ones in decode steps,
         * normal ones in prefill forwards, as SGLang's {@code --deepep-mode auto} picks), timed by their published rates
         * rather than as NCCL's all-to-all.
         */
        DEEPEP;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** The word a deployment names it by ({@code tp1 dp8 ep8 b64 deepep}): a2a or deepep; null for the others. */
        public String deploymentWord() {
            return this == ALLTOALL ? "a2a" : this == DEEPEP ? "deepep" : null;
        }

        /** The all-to-all a wide-EP deployment runs on {@code system}: DeepEP's kernels where its GPUs have NVLink, else NCCL's. */
        public static Exchange wideEp(DecodeSystem system) {
            return system instanceof DecodeSystem.Preset p && p.preset().gpu().nvlink() != null ? DEEPEP : ALLTOALL;
        }

        static Exchange fromName(String name) {
            for (Exchange e : values()) {
                if (e.label().equalsIgnoreCase(name.trim())) {
                    return e;
                }
            }
            throw new InputException("--all2all " + name + ": expected auto, allgather (all-gather the replicas' tokens, reduce-scatter"
                    + " back: the engines' default), alltoall (each token to its experts' ranks by NCCL's all-to-all) or deepep (by"
                    + " DeepEP's kernels)");
        }
    }

    /** The seed of the one draw that lays the popularity order on the experts' ids. */
    static final long PLACEMENT_SEED = 0;

    private static final Map<Key, Rank> BUSIEST = new ConcurrentHashMap<>();

    /** What sets the busiest rank: the load, not the exchange. */
    private record Key(double skew, boolean eplb, int redundant, int experts, int topK, int ep) {}

    public ExpertParallel {
        Objects.requireNonNull(exchange, "exchange");
        if (!(skew >= 0 && skew <= 4)) {
            throw new InputException("--expert-skew " + trim(skew) + ": expected a Zipf exponent from 0 (every expert alike) to 4");
        }
        if (redundant < 0 || (!eplb && redundant > 0)) {
            throw new InputException("--eplb " + redundant + ": expected off or a count of redundant experts, 0 or more");
        }
    }

    /** {@code --all2all KIND}, {@code --expert-skew S} and {@code --eplb off|R}. */
    public static ExpertParallel parse(String exchange, double skew, String eplb) {
        Exchange how = Exchange.fromName(exchange);
        if (eplb == null || eplb.equalsIgnoreCase("off")) {
            return new ExpertParallel(how, skew, false, 0);
        }
        try {
            return new ExpertParallel(how, skew, true, Integer.parseInt(eplb.trim()));
        } catch (NumberFormatException e) {
            throw new InputException("--eplb " + eplb + ": expected off or a count of redundant experts, 0 or more");
        }
    }

    /** Refuses what the engines refuse: a load on a dense model, EPLB without EP ranks, or slots that do not split evenly. */
    public void check(ModelConfig model, int ep) {
        if (!evenLoad() && model.experts() == 0) {
            throw new InputException("--expert-skew and --eplb: " + model.name() + " is dense; they act on an MoE model's experts");
        }
        if (!eplb) {
            return;
        }
        if (ep < 2) {
            throw new InputException("--eplb " + redundant + ": balances experts over expert-parallel ranks; give --ep 2 or more");
        }
        if (!slotsSplit(model, ep)) {
            throw new InputException("--eplb " + redundant + ": " + model.name() + "'s " + model.experts() + " experts and " + redundant
                    + " redundant make " + (model.experts() + redundant) + " slots, which do not split evenly over --ep " + ep);
        }
    }

    /**
     * Whether a layout searched for ({@code compare}, {@code serve}) can run this load: EPLB's slots must split evenly
     * over the EP ranks. A layout without EP has nothing to balance and runs it without EPLB ({@link #on}).
     */
    public boolean placesOn(ModelConfig model, int ep) {
        return !eplb || ep < 2 || slotsSplit(model, ep);
    }

    private boolean slotsSplit(ModelConfig model, int ep) {
        return (model.experts() + redundant) % ep == 0;
    }

    /** This load on {@code ep} ranks: without EPLB where there is one rank, whose experts are all its own. */
    ExpertParallel on(int ep) {
        return eplb && ep < 2 ? new ExpertParallel(exchange, skew, false, 0) : this;
    }

    /** Expert slots on the rank that holds most: ceil(E / ep) placed by id, (E + redundant) / ep under EPLB. */
    int slotsPerRank(int experts, int ep) {
        return eplb ? (experts + redundant) / ep : (experts + ep - 1) / ep;
    }

    /**
     * Whether a layout search tries a layout's tokens both gathered and sent all-to-all ({@link Exchange#wideEp}): with
     * attention DP over EP ranks, where the exchange is left to auto (a deployment of wide EP enables DeepEP; the engines'
     * default gathers).
     */
    public boolean searchesBothExchanges(int ep, int dp) {
        return exchange == Exchange.AUTO && ep > 1 && dp > 1;
    }

    /** The same load, its tokens exchanged as {@code how}. */
    public ExpertParallel withExchange(Exchange how) {
        return new ExpertParallel(how, skew, eplb, redundant);
    }

    /** Whether every expert is alike and placed by id. */
    public boolean evenLoad() {
        return skew == 0 && !eplb;
    }

    /** The load as a label for reports: "uniform", "zipf 1.2", "zipf 1.2, eplb +32". */
    public String loadLabel() {
        String routing = skew == 0 ? "uniform" : "zipf " + trim(skew);
        return eplb ? routing + ", eplb +" + redundant : routing;
    }

    /**
     * The rank a step waits for: of its slots, each one's chance that a token picks it, and its share of all picks.
     *
     * @param pickChance per slot, the chance that one token's top-k includes it (a replica's part of its expert's)
     * @param share      the rank's part of all the layer's picks (1 / ep when every rank is alike)
     */
    public record Rank(double[] pickChance, double share) {
        /** Slots that get at least one of {@code tokens} tokens, on average. */
        double active(double tokens) {
            double sum = 0;
            for (double q : pickChance) {
                sum += 1 - Math.pow(1 - q, tokens);
            }
            return sum;
        }
    }

    /** The busiest of {@code ep} ranks of a layer of {@code experts} experts, each token picking {@code topK}. */
    Rank busiest(int experts, int topK, int ep) {
        return BUSIEST.computeIfAbsent(new Key(skew, eplb, redundant, experts, topK, ep), k -> place(experts, topK, ep));
    }

    private Rank place(int experts, int topK, int ep) {
        double[] chance = pickChances(experts, topK, skew);
        double[][] ranks = eplb ? balanced(chance, ep) : byId(chance, ep);
        double[] busiest = ranks[0];
        for (double[] r : ranks) {
            busiest = Arrays.stream(r).sum() > Arrays.stream(busiest).sum() ? r : busiest;
        }
        return new Rank(busiest, Arrays.stream(busiest).sum() / topK);
    }

    /**
     * Each expert's chance of being among a token's top-k, in order of popularity: k x its Zipf probability, where that
     * passes 1 (a top-k holds an expert once) held at 1 and the rest scaled so that the chances still sum to k.
     */
    static double[] pickChances(int experts, int topK, double skew) {
        double[] p = new double[experts];
        boolean[] capped = new boolean[experts];
        for (boolean changed = true; changed; ) {
            changed = false;
            double free = topK;
            double weight = 0;
            for (int j = 0; j < experts; j++) {
                free -= capped[j] ? 1 : 0;
                weight += capped[j] ? 0 : Math.pow(j + 1, -skew);
            }
            for (int j = 0; j < experts; j++) {
                p[j] = capped[j] ? 1 : free * Math.pow(j + 1, -skew) / weight;
                if (p[j] > 1) {
                    capped[j] = true;
                    changed = true;
                }
            }
        }
        return p;
    }

    /** The engines' placement by id: the popularity order laid on the ids by the fixed draw, then ceil(E / ep) ids a rank. */
    private static double[][] byId(double[] chance, int ep) {
        int experts = chance.length;
        int[] order = new int[experts];
        Arrays.setAll(order, j -> j);
        MRG32k3a stream = Mrg32k3aStreams.fromSeed(PLACEMENT_SEED, 1)[0];
        RandomPermutation.shuffle(order, stream);
        int per = (experts + ep - 1) / ep;
        double[][] ranks = new double[ep][];
        for (int r = 0; r < ep; r++) {
            int from = Math.min(experts, r * per);
            int to = Math.min(experts, from + per);
            ranks[r] = new double[to - from];
            for (int id = from; id < to; id++) {
                ranks[r][id - from] = chance[order[id]];
            }
        }
        return ranks;
    }

    /** EPLB's placement: replicas to the experts with most load a replica, then packed heaviest first onto the least-loaded rank. */
    private double[][] balanced(double[] chance, int ep) {
        int experts = chance.length;
        int[] replicas = new int[experts];
        Arrays.fill(replicas, 1);
        for (int extra = 0; extra < redundant; extra++) {
            int hottest = 0;
            for (int j = 1; j < experts; j++) {
                hottest = chance[j] / replicas[j] > chance[hottest] / replicas[hottest] ? j : hottest;
            }
            replicas[hottest]++;
        }
        Integer[] slots = new Integer[experts + redundant];
        int[] expertOf = new int[slots.length];
        for (int j = 0, s = 0; j < experts; j++) {
            for (int c = 0; c < replicas[j]; c++, s++) {
                expertOf[s] = j;
                slots[s] = s;
            }
        }
        double[] weight = new double[slots.length];
        Arrays.setAll(weight, s -> chance[expertOf[s]] / replicas[expertOf[s]]);
        Arrays.sort(slots, Comparator.comparingDouble((Integer s) -> -weight[s]).thenComparingInt(s -> s));
        int per = slots.length / ep;
        double[][] ranks = new double[ep][per];
        int[] filled = new int[ep];
        double[] load = new double[ep];
        for (int s : slots) {
            int target = -1;
            for (int r = 0; r < ep; r++) {
                target = filled[r] < per && (target < 0 || load[r] < load[target]) ? r : target;
            }
            ranks[target][filled[target]++] = weight[s];
            load[target] += weight[s];
        }
        return ranks;
    }

    private static String trim(double v) {
        return v == Math.rint(v) ? String.valueOf((long) v) : String.format(Locale.ROOT, "%s", v);
    }
}
