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
 * @param ttftSloMs the time-to-first-token target, ms (mean)
 * @param itlSloMs  the inter-token latency target, ms (mean time per output token)
 * @param rate      requests per second to size for, or null
 */
public record ServingSpec(ModelConfig model, List<DecodeSystem> systems, int gpus, int isl, int osl, double ttftSloMs, double itlSloMs,
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
        if (!(ttftSloMs > 0)) {
            throw new InputException("--ttft-slo: expected a positive time, e.g. 2s");
        }
        if (!(itlSloMs > 0)) {
            throw new InputException("--itl-slo: expected a positive time, e.g. 50ms");
        }
        if (rate != null && !(rate > 0)) {
            throw new InputException("--rate " + rate + ": expected requests per second above 0");
        }
    }

    /** The mean context of a sequence while it decodes: its prompt and half its output. */
    public int decodeContext() {
        return isl + osl / 2;
    }
}
