package dev.collsim.scenarios.validate;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * How one calibration data set is reproduced: the system and launch mode it was measured on, or
 * why it is not simulated yet.
 */
public record DatasetSetup(
        @JsonProperty(value = "id", required = true) String id,
        @JsonProperty("system") String system,
        @JsonProperty("nodes") int nodes,
        @JsonProperty("gpus-per-node") Integer gpusPerNode,
        @JsonProperty("network") String network,
        @JsonProperty("gpus-per-thread") Integer gpusPerThread,
        @JsonProperty("algo") String algo,
        @JsonProperty("not-yet") String notYet) {

    public DatasetSetup {
        nodes = Math.max(1, nodes);
    }

    public boolean simulated() {
        return system != null;
    }
}
