package dev.collsim.scenarios.load.workload;

import java.util.List;

/**
 * The requests of a run and how they arrive.
 *
 * @param concurrency in a closed loop, the requests always in flight (a new one is sent as one ends, as vLLM's
 *                    {@code --max-concurrency} and aiconfigurator's silicon runs do); 0 for an open loop, where
 *                    each request is sent at its {@code arrivalMs}
 * @param requests    every request, in the order they are sent (open loop: by arrival time)
 * @param warmup      how many of the first requests run but are not measured; in a closed loop a phase of its own,
 *                    the measured requests sent {@code concurrency} at once when its last request has ended (as AIPerf's,
 *                    genai-perf's and vllm bench serve's warm-ups run)
 * @param describe    how the workload was given, for the outputs (e.g. "closed loop of 64, ISL 1024, OSL 1024")
 */
public record Workload(int concurrency, List<RequestSpec> requests, int warmup, String describe) {
    public Workload {
        requests = List.copyOf(requests);
    }

    public boolean closedLoop() {
        return concurrency > 0;
    }
}
