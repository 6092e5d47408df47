package dev.collsim.scenarios.load;

import dev.collsim.scenarios.decode.DecodeSystem;
import dev.collsim.scenarios.decode.EngineSetup;
import dev.collsim.scenarios.decode.ModelConfig;
import dev.collsim.scenarios.decode.ServingEngine;
import dev.collsim.scenarios.load.workload.RequestSpec;
import dev.collsim.scenarios.load.workload.Workload;
import dev.collsim.scenarios.serve.KvTransfer;
import java.util.ArrayList;
import java.util.List;

/** Load runs for tests, built by hand: fixed lengths, closed or open loop. */
final class Loads {
    private Loads() {}

    static Workload closed(int concurrency, int requests, int isl, int osl, int warmup) {
        List<RequestSpec> out = new ArrayList<>();
        for (int i = 0; i < requests; i++) {
            out.add(new RequestSpec(i, 0, isl, osl));
        }
        return new Workload(concurrency, out, warmup, "closed loop of " + concurrency);
    }

    static Workload open(double[] arrivalsMs, int isl, int osl, int warmup) {
        List<RequestSpec> out = new ArrayList<>();
        for (int i = 0; i < arrivalsMs.length; i++) {
            out.add(new RequestSpec(i, arrivalsMs[i], isl, osl));
        }
        return new Workload(0, out, warmup, "open loop");
    }

    /** The engine's scheduler and forwards alone: the server's time per request is 0, so a request arrives where it is sent. */
    static LoadSpec spec(String model, String system, String deployment, ServingEngine engine, Workload w, SchedulerKnobs knobs) {
        return spec(model, system, deployment, new EngineSetup(engine, null, null, 0.0), w, knobs);
    }

    static LoadSpec spec(String model, String system, String deployment, EngineSetup engine, Workload w, SchedulerKnobs knobs) {
        ModelConfig m = ModelConfig.load(model);
        return new LoadSpec(m, DecodeSystem.preset(system), m.weights(), engine, Deployment.parse(deployment), w, knobs, Router.LEAST_LOADED,
                KvTransfer.AFTER_PREFILL, null, 0, false);
    }

    static LoadOutcome run(LoadSpec spec) {
        return LoadSimulation.run(spec, (a, b) -> { });
    }
}
