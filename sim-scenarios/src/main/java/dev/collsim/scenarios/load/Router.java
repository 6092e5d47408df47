package dev.collsim.scenarios.load;

import dev.collsim.core.input.InputException;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * How a request picks among instances (and among an instance's DP replicas): in turn; the one with
 * the fewest requests running and waiting (SGLang router's and vLLM's DP load balancing); or, as
 * Dynamo's KV router, the one whose prefix cache already holds most of the prompt, less its load
 * (cost = prompt blocks to prefill + blocks its running requests hold, the lowest wins).
 */
public enum Router {
    ROUND_ROBIN, LEAST_LOADED, KV_AWARE;

    public String label() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    public static Router byName(String name) {
        return Arrays.stream(values()).filter(r -> r.label().equalsIgnoreCase(name)).findFirst()
                .orElseThrow(() -> new InputException("--router '" + name + "': expected one of "
                        + Arrays.stream(values()).map(Router::label).collect(Collectors.joining(", "))));
    }
}
