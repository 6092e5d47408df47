package dev.collsim.scenarios.serve;

import dev.collsim.core.units.Duration;
import dev.collsim.scenarios.decode.EngineSetup;
import dev.collsim.scenarios.decode.Precision;
import java.util.List;
import java.util.Locale;

/**
 * The answer to a serving question: for each system, the best aggregated and the best disaggregated
 * deployment that meets both targets, or what fell short.
 *
 * @param rate      requests/s the deployments are sized for; null when not asked
 * @param setup     the engine and the choices made of it: its time per request beyond the forwards (which every TTFT
 *                  holds), speculative decoding, expert parallelism
 * @param simulated the load runs a plan at percentile targets was decided on; null for a plan at mean targets (estimates only)
 */
public record ServingPlan(String model, int isl, int osl, Slo ttftSlo, Slo itlSlo, Double rate, int gpus, Precision dtype,
                          EngineSetup setup, KvTransfer kvTransfer, List<SystemPlan> systems, Simulated simulated) {

    /** The plan of {@code spec}'s question from each system's answers. */
    public static ServingPlan of(ServingSpec spec, List<SystemPlan> systems, Simulated simulated) {
        return new ServingPlan(spec.model().name(), spec.isl(), spec.osl(), spec.ttftSlo(), spec.itlSlo(), spec.rate(), spec.gpus(),
                spec.precision(), spec.engine(), spec.kvTransfer(), systems, simulated);
    }

    /**
     * One system's two answers; a deployment is null where none meets both targets, and its shortfall
     * says what binds (null where one meets them). {@code fitting}: the decode instances and batches that
     * fit in memory and were simulated.
     */
    public record SystemPlan(String system, int fitting, Deployment aggregated, Shortfall aggregatedShortfall, Deployment disaggregated,
                             Shortfall disaggregatedShortfall) {
        /** The better of the two, or null. */
        public Deployment best() {
            if (aggregated == null || disaggregated == null) {
                return aggregated == null ? disaggregated : aggregated;
            }
            return disaggregated.tokensPerSPerGpu() > aggregated.tokensPerSPerGpu() ? disaggregated : aggregated;
        }
    }

    /** How prefill and decode share GPUs. */
    public enum Mode {
        /** Prefill chunks ride in the decode steps of the same instances. */
        AGGREGATED,
        /** Prefill instances hand each request's KV cache to decode instances. */
        DISAGGREGATED;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * Why no deployment of a mode meets both targets.
     *
     * @param best the closest it came where the reason has a number (the fastest ITL, the best TTFT); else null
     */
    public record Shortfall(Reason reason, Duration best) {
        public enum Reason {
            /** No instance fits in memory and keeps up with its prompts. */
            NOTHING_FITS,
            /** The fastest decode step is slower than the ITL target. */
            ITL,
            /** Among the deployments within the ITL target, the best mean TTFT is above its target. */
            TTFT_WITHIN_ITL,
            /** Even unloaded, the server, prefill, KV move and a decode step take longer than the TTFT target. */
            TTFT_UNLOADED,
            /** No path between two instances for the KV cache. */
            NO_KV_PATH,
            /** Every candidate the estimate proposed was refused by the load simulation. */
            REFUSED
        }
    }

    /**
     * A deployment at the load where it still meets both targets.
     *
     * @param deployment  what runs where, in words (the syntax serve prints)
     * @param gpus        GPUs of the deployment's unit (aggregated: one instance; disaggregated: its xP and yD instances)
     * @param gpusForRate GPUs for the asked request rate, units rounded up per instance kind; null without a rate
     */
    public record Deployment(Mode mode, String deployment, int gpus, Load load, Parts parts, Integer gpusForRate) {
        public Duration ttft() {
            return load.ttft();
        }

        public Duration itl() {
            return load.itl();
        }

        public double tokensPerSPerGpu() {
            return load.tokensPerSPerGpu();
        }
    }

    /**
     * What a deployment gives at that load.
     *
     * @param ttft             mean time to first token
     * @param itl              mean time per output token
     * @param tokensPerSPerGpu output tokens/s per GPU of the unit
     * @param requestsPerS     requests/s the unit serves
     */
    public record Load(Duration ttft, Duration itl, double tokensPerSPerGpu, double requestsPerS) {}

    /**
     * What a deployment's times are made of.
     *
     * @param prefill       one prefill forward (aggregated: the prompt's chunks inside decode steps, back to back)
     * @param queue         the mean wait for it
     * @param kv            the KV cache's move that the first token waits for (disaggregated)
     * @param kvOver        what the KV cache crosses; empty where it does not move
     * @param decodeStep    a decode step without prefill work
     * @param stepWithChunk a decode step that carries a prefill chunk (aggregated)
     */
    public record Parts(Duration prefill, Duration queue, Duration kv, String kvOver, Duration decodeStep, Duration stepWithChunk) {}

    /**
     * The load runs a plan at percentile targets was decided on.
     *
     * @param measured requests measured in each run, an open loop of Poisson arrivals, after a warm-up of as many as the
     *                 deployment holds at once at that rate
     * @param runs     every run, in the order simulated
     * @param refused  candidates the load simulation refused (e.g. no room for the KV cache its scheduler needs)
     */
    public record Simulated(int measured, List<Run> runs, int refused) {}

    /**
     * One load run of a candidate deployment at a share of the rate its estimate allows.
     *
     * @param ttftMs           TTFT at the target's statistic
     * @param itlMs            ITL at the target's statistic (a mean: the mean time per output token)
     * @param tokensPerSPerUser output tokens/s one user sees, 1000 / mean TPOT
     * @param tokensPerSPerGpu output tokens/s per GPU of the deployment, over the measured requests' arrivals
     * @param meets            within both targets
     * @param onFrontier       no other run of its system gives both more tokens/s per user and more per GPU
     */
    public record Run(String system, Mode mode, String deployment, double load, double ratePerS, double ttftMs, double itlMs,
                      double tokensPerSPerUser, double tokensPerSPerGpu, boolean meets, boolean onFrontier) {}
}
