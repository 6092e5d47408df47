package dev.collsim.scenarios.load.workload;

import dev.collsim.core.input.InputException;
import dev.collsim.scenarios.stochastic.Mrg32k3aStreams;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import umontreal.ssj.rng.MRG32k3a;

/**
 * A load run's workload from the flags that describe it: each setter checks its own flag, {@link #build}
 * checks how they go together and draws the requests.
 *
 * <ul>
 *   <li>Synthetic: exactly one of {@code --concurrency N} (closed loop) and {@code --rate R} (open loop,
 *       {@code --burstiness B} shaping its gaps), lengths from {@code --isl} and {@code --osl}
 *       (see {@link Lengths}), {@code --random-range-ratio} widening fixed ones as vLLM does.</li>
 *   <li>{@code --trace FILE}: its lengths, block ids and timestamps; with {@code --concurrency N} its
 *       lengths and block ids only, in a closed loop. {@code --rate}, {@code --burstiness},
 *       {@code --isl}, {@code --osl} and {@code --random-range-ratio} are refused with a trace: it
 *       already says what they would.</li>
 * </ul>
 * The arrivals, prompt lengths and output lengths draw from three MRG32k3a streams of {@code --seed},
 * so changing one never moves another's numbers. They are streams 4, 5 and 6 of the seed, after the
 * four of {@link dev.collsim.scenarios.stochastic.Variability}, so that a run which also jitters its
 * steps from the same seed draws no number twice.
 */
public final class WorkloadBuilder {
    /** vllm bench serve's {@code --num-prompts} default. */
    public static final int DEFAULT_REQUESTS = 1000;
    /** Ten million requests: past any benchmark, and their records still fit a few GB of heap. */
    public static final int MAX_REQUESTS = 10_000_000;
    /** A million requests a second, as serve's {@code --rate}: past any one service's traffic. */
    public static final double MAX_RATE = 1e6;
    private static final int FIRST_STREAM = 4;

    private Integer concurrency;
    private Double rate;
    private Double burstiness;
    private Integer requests;
    private int warmup;
    private long seed;
    private Lengths isl;
    private Lengths osl;
    private double rangeRatio;
    private TraceFile trace;
    private double prefixShare;

    /** {@code --concurrency N}: a closed loop of N in flight; null when not given. */
    public WorkloadBuilder concurrency(Integer n) {
        if (n != null && (n < 1 || n > MAX_REQUESTS)) {
            throw new InputException("--concurrency " + n + ": expected requests in flight from 1 to " + MAX_REQUESTS);
        }
        concurrency = n;
        return this;
    }

    /** {@code --rate R}: an open loop of R requests per second; null when not given. */
    public WorkloadBuilder rate(Double r) {
        if (r != null && !(r > 0 && r <= MAX_RATE)) {
            throw new InputException(String.format(Locale.ROOT, "--rate %s: expected requests per second above 0 and at most %,.0f", r, MAX_RATE));
        }
        rate = r;
        return this;
    }

    /** {@code --burstiness B}: the gamma gaps' shape, 1 for Poisson; null when not given. */
    public WorkloadBuilder burstiness(Double b) {
        if (b != null && !(b > 0)) {
            throw new InputException("--burstiness " + b + ": expected a shape above 0 (1: Poisson, below 1: burstier, above 1: more even)");
        }
        burstiness = b;
        return this;
    }

    /** {@code --requests N}; null for the default (1000, or every request of a trace). */
    public WorkloadBuilder requests(Integer n) {
        if (n != null && (n < 1 || n > MAX_REQUESTS)) {
            throw new InputException("--requests " + n + ": expected 1 to " + MAX_REQUESTS);
        }
        requests = n;
        return this;
    }

    /** {@code --warmup N}: the first N requests run but are not measured. */
    public WorkloadBuilder warmup(int n) {
        if (n < 0) {
            throw new InputException("--warmup " + n + ": expected 0 or more requests");
        }
        warmup = n;
        return this;
    }

    public WorkloadBuilder seed(long s) {
        seed = s;
        return this;
    }

    /** {@code --isl}: prompt lengths; null when not given. */
    public WorkloadBuilder isl(Lengths l) {
        isl = l;
        return this;
    }

    /** {@code --osl}: output lengths; null when not given. */
    public WorkloadBuilder osl(Lengths l) {
        osl = l;
        return this;
    }

    /** {@code --random-range-ratio R}, 0 to below 1; null or 0 when not given. */
    public WorkloadBuilder randomRangeRatio(Double r) {
        if (r != null && !(r >= 0 && r < 1)) {
            throw new InputException("--random-range-ratio " + r + ": expected 0 or more and below 1, as vLLM's (e.g. 0.1 for +-10 %)");
        }
        rangeRatio = r == null ? 0 : r;
        return this;
    }

    /** {@code --trace FILE}, read; null when not given. */
    public WorkloadBuilder trace(TraceFile t) {
        trace = t;
        return this;
    }

    /** {@code --prefix-share S}: each prompt's first floor(S x ISL) tokens are one shared system prompt; null or 0 for none. */
    public WorkloadBuilder prefixShare(Double s) {
        if (s != null && !(s >= 0 && s < 1)) {
            throw new InputException("--prefix-share " + s + ": expected the share of each prompt that all requests start with, 0 or more and below 1");
        }
        prefixShare = s == null ? 0 : s;
        return this;
    }

    /**
     * The workload, every request checked against the model's context ({@code maxContextTokens}, the
     * most prompt and output tokens one request may hold): one that does not fit is refused, naming it
     * (its trace line, or its number and the flags that drew it).
     */
    public Workload build(int maxContextTokens) {
        if (maxContextTokens < 2) {
            throw new IllegalArgumentException("a context of " + maxContextTokens + " tokens holds no prompt and output");
        }
        checkCombination();
        int n = requests != null ? requests : trace != null ? trace.rows().size() : DEFAULT_REQUESTS;
        if (trace != null && n > trace.rows().size()) {
            throw new InputException("--requests " + n + ": " + trace.name() + " has " + trace.rows().size() + " requests");
        }
        if (warmup >= n) {
            throw new InputException("--warmup " + warmup + ": expected fewer than the " + n + " requests (" + (requests == null ? "the default" : "--requests") + ")");
        }
        if (trace != null) {
            return new Workload(concurrency == null ? 0 : concurrency, fromTrace(n, maxContextTokens), warmup, describe(n, null, null));
        }
        Lengths prompt = isl.widened("--isl", rangeRatio);
        Lengths output = osl.widened("--osl", rangeRatio);
        return new Workload(concurrency == null ? 0 : concurrency, drawn(n, maxContextTokens, prompt, output), warmup, describe(n, prompt, output));
    }

    private void checkCombination() {
        if (trace != null) {
            refusedWithTrace("--rate", rate != null, "arrival times", ", or give --concurrency N to replay its lengths in a closed loop");
            refusedWithTrace("--burstiness", burstiness != null, "arrival times", "");
            refusedWithTrace("--isl", isl != null, "lengths", "");
            refusedWithTrace("--osl", osl != null, "lengths", "");
            refusedWithTrace("--random-range-ratio", rangeRatio > 0, "lengths", "");
            if (prefixShare > 0 && trace.hasBlocks()) {
                throw new InputException("--prefix-share with --trace " + trace.name() + ": its hash_ids already say which blocks requests share;"
                        + " leave out --prefix-share");
            }
            return;
        }
        if ((concurrency == null) == (rate == null)) {
            throw new InputException(concurrency == null
                    ? "give --concurrency N (a closed loop of N requests in flight) or --rate R (requests per second), or --trace FILE"
                    : "--concurrency and --rate: a closed loop sends a request as one ends, an open loop at a rate; give one of them");
        }
        if (burstiness != null && rate == null) {
            throw new InputException("--burstiness shapes the gaps of --rate's open loop; a closed loop (--concurrency) has none");
        }
        if (isl == null || osl == null) {
            throw new InputException("missing " + (isl == null ? "--isl" : "--osl") + ": the requests' " + (isl == null ? "prompt" : "output")
                    + " tokens (a number, uniform:LO-HI, normal:MEAN,SD, lognormal:MEAN,SD or file:PATH), or --trace FILE");
        }
    }

    private static void refusedWithTrace(String flag, boolean given, String what, String instead) {
        if (given) {
            throw new InputException(flag + " with --trace: the trace gives its requests' " + what + "; leave out " + flag + instead);
        }
    }

    private List<RequestSpec> drawn(int n, int maxContext, Lengths prompt, Lengths output) {
        MRG32k3a[] streams = Mrg32k3aStreams.fromSeed(seed, FIRST_STREAM + 3);
        Arrivals arrivals = arrivals();
        double[] times = arrivals.timesMs(n, streams[FIRST_STREAM]);
        List<RequestSpec> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            // Clamped only to the flags' own bound: a length past the context is the user's to see, as the engine refuses it.
            int in = prompt.draw(streams[FIRST_STREAM + 1], Lengths.MAX_TOKENS);
            int gen = output.draw(streams[FIRST_STREAM + 2], Lengths.MAX_TOKENS);
            if ((long) in + gen > maxContext) {
                throw new InputException(String.format(Locale.ROOT, "request %d: ISL %d + OSL %d = %d tokens, more than the model's context of %d"
                        + " (--isl %s, --osl %s)", i, in, gen, in + gen, maxContext, prompt.describe(), output.describe()));
            }
            out.add(request(i, times[i], in, gen, null));
        }
        return out;
    }

    private List<RequestSpec> fromTrace(int n, int maxContext) {
        TraceFile.Format f = trace.format();
        List<RequestSpec> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            TraceFile.Row r = trace.rows().get(i);
            if ((long) r.isl() + r.osl() > maxContext) {
                throw new InputException(String.format(Locale.ROOT, "%s: line %d: %s %d + %s %d = %d tokens, more than the model's context of %d",
                        trace.name(), r.line(), f.islField(), r.isl(), f.oslField(), r.osl(), r.isl() + r.osl(), maxContext));
            }
            out.add(request(i, concurrency == null ? r.timeMs() : 0, r.isl(), r.osl(), r.hashIds()));
        }
        return out;
    }

    /** The request with its blocks: the trace's ids chained, else the shared prefix's, else none. */
    private RequestSpec request(int id, double timeMs, int in, int gen, long[] traceIds) {
        if (traceIds != null && traceIds.length > 0) {
            return new RequestSpec(id, timeMs, in, gen, BlockHashes.chain(traceIds), trace.format().blockTokens());
        }
        if (prefixShare > 0) {
            return new RequestSpec(id, timeMs, in, gen, BlockHashes.sharedPrefix(id, in, (int) Math.floor(prefixShare * in)), BlockHashes.BLOCK_TOKENS);
        }
        return new RequestSpec(id, timeMs, in, gen);
    }

    private Arrivals arrivals() {
        return concurrency != null ? new Arrivals.Closed(concurrency) : new Arrivals.Open(rate, burstiness == null ? 1 : burstiness);
    }

    private String describe(int n, Lengths prompt, Lengths output) {
        StringBuilder s = new StringBuilder();
        if (trace != null) {
            s.append(trace.describe()).append(": ").append(n == trace.rows().size() ? "every request" : "its first " + n)
                    .append(concurrency == null ? ", at its timestamps" : ", its lengths in a closed loop of " + concurrency);
        } else {
            s.append(arrivals().describe()).append(", ").append(n).append(" requests, ISL ").append(prompt.describe())
                    .append(", OSL ").append(output.describe());
        }
        if (warmup > 0) {
            s.append(", the first ").append(warmup).append(" a warm-up");
        }
        if (prefixShare > 0) {
            s.append(String.format(Locale.ROOT, ", the first %s of each prompt shared", percent(prefixShare)));
        }
        if (trace == null && (rate != null || !(prompt instanceof Lengths.Fixed) || !(output instanceof Lengths.Fixed))) {
            s.append(", seed ").append(seed);
        }
        return s.toString();
    }

    private static String percent(double share) {
        double p = share * 100;
        return (p == Math.rint(p) ? Long.toString((long) p) : String.format(Locale.ROOT, "%.4g", p)) + " %";
    }
}
