package dev.collsim.scenarios.serve;

import dev.collsim.core.input.InputException;
import dev.collsim.core.input.Require;
import dev.collsim.scenarios.decode.DecodeSystem;
import dev.collsim.scenarios.decode.EngineSetup;
import dev.collsim.scenarios.decode.ModelConfig;
import dev.collsim.scenarios.decode.Precision;
import dev.collsim.topologies.systems.HgxCluster;
import java.util.List;

/**
 * A serving question: a model, its requests' input and output lengths, the two latency targets, and
 * the GPUs of each system to plan on (and, if given, a request rate to size for).
 *
 * @param gpus      the GPU budget of each system: a deployment's unit (its prefill and decode instances) fits in it
 * @param ttftSlo   the time-to-first-token target
 * @param itlSlo    the inter-token latency target: a mean is the mean time per output token, a percentile one of the gaps between
 *                  tokens (vLLM's ITL)
 * @param rate      requests per second to size for, or null
 */
public record ServingSpec(ModelConfig model, List<DecodeSystem> systems, int gpus, int isl, int osl, Slo ttftSlo, Slo itlSlo,
                          Double rate, Precision precision, EngineSetup engine, KvTransfer kvTransfer) {
    public ServingSpec {
        if (systems.isEmpty()) {
            throw new InputException("--system: give at least one system to plan on");
        }
        systems = List.copyOf(systems);
        Require.atLeastOne("--gpus", gpus);
        HgxCluster.requireBuildable("--gpus " + gpus, gpus);
        Require.atLeastOne("--isl", isl);
        Require.atLeastOne("--osl", osl);
        if (rate != null && !(rate > 0)) {
            throw new InputException("--rate " + rate + ": expected requests per second above 0");
        }
    }

    public double ttftSloMs() {
        return ttftSlo.ms();
    }

    public double itlSloMs() {
        return itlSlo.ms();
    }

    /** True when either target is a percentile: the plan is then decided on simulated load runs. */
    public boolean atPercentiles() {
        return !ttftSlo.isMean() || !itlSlo.isMean();
    }

    /** The mean context of a sequence while it decodes: its prompt and half its output. */
    public int decodeContext() {
        return isl + osl / 2;
    }
}
