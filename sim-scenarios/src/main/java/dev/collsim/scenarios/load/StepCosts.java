package dev.collsim.scenarios.load;

import dev.collsim.scenarios.decode.CommModel;
import dev.collsim.scenarios.decode.DecodeResult;
import dev.collsim.scenarios.decode.DecodeSpec;
import dev.collsim.scenarios.decode.DecodeStep;
import dev.collsim.scenarios.decode.Overlap;
import dev.collsim.scenarios.decode.Prefill;
import java.util.HashMap;
import java.util.Map;

/**
 * What a step of given content takes on one instance, from the per-layer simulator, on a grid
 * filled as the run reaches it and interpolated between its nodes, so a run of 100,000 requests
 * simulates a few hundred steps, not millions.
 *
 * <p>A decode step's time depends on its batch and its sequences' context: the batch is the CUDA
 * graph's size it runs at (a node of its own), and the context enters through attention's reads of
 * the cache, linear in it, so it is interpolated linearly between contexts a power of two apart.
 *
 * <p>A prefill forward's time splits in two: what depends on its tokens alone (the GEMMs, the
 * collectives, norms: interpolated in the step's token count between nodes 2^(1/4) apart) and each
 * prompt's attention, which depends on its new tokens and the context before them (bilinear over the
 * same tokens and power-of-two contexts), one attention launch for all the step's prompts. A step
 * that carries prefill chunks and decodes reads the weights once for both (as {@code serve}'s
 * aggregated model has it): the chunk adds its GPU time less the decode step's weight reads.
 */
final class StepCosts {
    /** One prompt's share of a step: {@code tokens} new tokens after {@code cachedBefore} already in the cache. */
    record Piece(int tokens, int cachedBefore) {}

    private final DecodeSpec layout;
    private final CommModel.Cache cache;
    private final int[] graphSizes;
    private final boolean pads;
    private final Map<Long, DecodeResult> decodes = new HashMap<>();
    private final Map<Long, Prefill.ForwardCost> forwards = new HashMap<>();

    /**
     * @param layout     the instance's layout (its batch and context are ignored)
     * @param graphSizes the batch sizes the engine captured as CUDA graphs, ascending; empty where it runs eagerly
     * @param pads       a batch between two captured sizes runs at the larger one; else (TensorRT-LLM) eagerly at its own
     */
    StepCosts(DecodeSpec layout, int[] graphSizes, boolean pads, CommModel.Cache cache) {
        this.layout = layout;
        this.graphSizes = graphSizes.clone();
        this.pads = pads;
        this.cache = cache;
    }

    /** The batch a step of {@code decodes} sequences runs at: the smallest captured graph that holds it, or itself (eager). */
    int graphBatch(int decodes) {
        for (int g : graphSizes) {
            if (g == decodes || g > decodes && pads) {
                return g;
            }
        }
        return decodes;
    }

    private boolean captured(int batch) {
        return java.util.Arrays.binarySearch(graphSizes, batch) >= 0;
    }

    /**
     * A step, ms: {@code decodes} sequences of mean context {@code meanContext} (0 of them: a prefill-only forward)
     * and the prompts' {@code pieces}.
     */
    double stepMs(int decodes, double meanContext, Piece[] pieces) {
        if (decodes == 0) {
            return prefillGpuMs(pieces) + layout.engine().hostMicros(pieces.length) / 1000;
        }
        int batch = graphBatch(decodes);
        double decode = decodeMs(batch, meanContext);
        if (pieces.length == 0) {
            return decode;
        }
        return decode + Math.max(0, prefillGpuMs(pieces) - weightsReadMs(batch));
    }

    /** A decode step of {@code batch} sequences at a mean context, host time included as the engine exposes it. */
    double decodeMs(int batch, double meanContext) {
        return interpolateInContext(meanContext, c -> decodeAt(batch, c).step().ms());
    }

    private double weightsReadMs(int batch) {
        return decodeAt(batch, CONTEXTS[0]).timing().weightsRead().ms();
    }

    /** The GPU time of a forward over the pieces' prompt tokens, host left out. */
    double prefillGpuMs(Piece[] pieces) {
        int tokens = 0;
        double attention = 0;
        double oneLaunch = 0;
        for (Piece p : pieces) {
            tokens += p.tokens();
            double a = attentionMs(p.tokens(), p.cachedBefore());
            attention += a;
            oneLaunch = Math.max(oneLaunch, a);
        }
        // Every prompt's attention runs in one varlen launch: its fixed cost (one prompt of one token's) counted once.
        double fixed = attentionMs(1, 0);
        attention = Math.max(oneLaunch, attention - (pieces.length - 1) * fixed);
        return interpolateInTokens(tokens, t -> forwardAt(t, 0).gpuMs() - forwardAt(t, 0).attentionMs()) + attention;
    }

    private double attentionMs(int tokens, int cachedBefore) {
        return interpolateInTokens(tokens, t -> interpolateInContext(cachedBefore, c -> forwardAt(t, (int) c).attentionMs()));
    }

    // ---- the grid ----

    /** Context nodes: 0, then powers of two from 16 up to 2^22 tokens (4M, beyond any model's window). */
    static final double[] CONTEXTS = contexts();

    private static double[] contexts() {
        double[] out = new double[20];
        for (int k = 1; k < out.length; k++) {
            out[k] = Math.pow(2, 3 + k);
        }
        return out;
    }

    /** Token nodes: 1 to 8 each, then 2^(k/4) rounded, up to 2^24. */
    static final int[] TOKENS = tokens();

    private static int[] tokens() {
        java.util.TreeSet<Integer> nodes = new java.util.TreeSet<>();
        for (int t = 1; t <= 8; t++) {
            nodes.add(t);
        }
        for (int k = 12; k <= 96; k++) {
            nodes.add((int) Math.round(Math.pow(2, k / 4.0)));
        }
        return nodes.stream().mapToInt(Integer::intValue).toArray();
    }

    private interface Curve {
        double at(double node);
    }

    private static double interpolateInContext(double context, Curve f) {
        double c = Math.max(0, context);
        int k = 1;
        while (k < CONTEXTS.length - 1 && CONTEXTS[k] < c) {
            k++;
        }
        return linear(c, CONTEXTS[k - 1], CONTEXTS[k], f);
    }

    private static double interpolateInTokens(int tokens, Curve f) {
        int t = Math.max(1, tokens);
        int k = java.util.Arrays.binarySearch(TOKENS, t);
        if (k >= 0) {
            return f.at(t);
        }
        int above = Math.min(-k - 1, TOKENS.length - 1);
        return linear(t, TOKENS[above - 1], TOKENS[above], f);
    }

    private static double linear(double x, double lo, double hi, Curve f) {
        double a = f.at(lo);
        if (x == lo) {
            return a;
        }
        double b = f.at(hi);
        return a + (b - a) * (x - lo) / (hi - lo);
    }

    private DecodeResult decodeAt(int batch, double context) {
        long key = ((long) batch << 32) | (long) context;
        return decodes.computeIfAbsent(key, k -> {
            // Two-batch overlap needs two sequences to split; a step of one runs as one.
            int b = layout.overlap() == Overlap.TWO_BATCH ? Math.max(2, batch) : batch;
            DecodeSpec at = layout.withTokens(b, (int) Math.max(1, context)).withCudaGraphs(layout.cudaGraphs() && captured(batch));
            return DecodeStep.runInBlockPool(at, cache);
        });
    }

    private Prefill.ForwardCost forwardAt(double tokens, int cachedBefore) {
        long key = ((long) tokens << 32) | cachedBefore;
        // Two-batch overlap splits a forward's tokens in two: one token runs as two.
        int t = layout.overlap() == Overlap.TWO_BATCH ? Math.max(2, (int) tokens) : (int) tokens;
        return forwards.computeIfAbsent(key, k -> Prefill.forwardCost(layout, t, cachedBefore, cache));
    }
}
