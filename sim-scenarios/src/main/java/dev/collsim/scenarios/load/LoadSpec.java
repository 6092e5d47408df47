package dev.collsim.scenarios.load;

import dev.collsim.scenarios.decode.DecodeSystem;
import dev.collsim.scenarios.decode.EngineSetup;
import dev.collsim.scenarios.decode.ModelConfig;
import dev.collsim.scenarios.decode.Precision;
import dev.collsim.scenarios.load.workload.Workload;
import dev.collsim.scenarios.serve.KvTransfer;
import java.util.Objects;

/**
 * A load run to simulate: a deployment of a model on a system under an engine, and its workload.
 *
 * @param scheduler  the engine scheduler's knobs the user set (the rest are the engine's defaults)
 * @param goodput    the targets a request must meet to count in the goodput, or null
 * @param keepSteps  keep every step of every instance (for a trace)
 */
public record LoadSpec(ModelConfig model, DecodeSystem system, Precision precision, EngineSetup engine, Deployment deployment,
                       Workload workload, SchedulerKnobs scheduler, Router router, KvTransfer kvTransfer, Goodput goodput, long seed,
                       boolean keepSteps) {
    public LoadSpec {
        Objects.requireNonNull(model);
        Objects.requireNonNull(system);
        Objects.requireNonNull(deployment);
        Objects.requireNonNull(workload);
        Objects.requireNonNull(scheduler);
        if (engine != null && engine.experts().eplb()) {
            // EPLB balances the roles that have EP ranks; a deployment with none has nothing for it to do.
            int widest = deployment.roles().stream().mapToInt(Deployment.Role::ep).max().orElse(1);
            deployment.roles().stream().filter(r -> r.ep() > 1 || widest < 2).forEach(r -> engine.experts().check(model, r.ep()));
        }
    }

    /** A request meets the goodput targets when its TTFT, TPOT and end-to-end latency are each at most its target (null: none). */
    public record Goodput(Double ttftMs, Double tpotMs, Double e2elMs) {
        public boolean met(LoadOutcome.RequestRecord r) {
            return (ttftMs == null || r.ttftMs() <= ttftMs) && (tpotMs == null || r.osl() <= 1 || r.tpotMs() <= tpotMs)
                    && (e2elMs == null || r.e2elMs() <= e2elMs);
        }
    }
}
