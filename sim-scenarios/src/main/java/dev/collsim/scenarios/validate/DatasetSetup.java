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
        @JsonProperty("gdr") Boolean gdr,
        @JsonProperty("not-yet") String notYet) {

    public DatasetSetup {
        nodes = Math.max(1, nodes);
        gdr = gdr == null || gdr;
    }

    /** The same set-up, or on {@code rowNodes} nodes where its rows give their own count. */
    DatasetSetup onNodes(int rowNodes) {
        return rowNodes < 1 || rowNodes == nodes ? this
                : new DatasetSetup(id, system, rowNodes, gpusPerNode, network, gpusPerThread, algo, gdr, notYet);
    }

    public boolean simulated() {
        return system != null;
    }
}
