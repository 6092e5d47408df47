package dev.collsim.scenarios.validate;

import java.util.List;

/**
 * How one calibration data set is reproduced: the system and launch mode it was measured on, or
 * why it is not simulated yet.
 */
public record DatasetSetup(String id, String system, int nodes, Integer gpusPerNode, String network, Integer gpusPerThread, String algo,
                           Boolean gdr, String notYet) {
    /** The keys a data set's entry in {@code datasets.yaml} may have. */
    static final List<String> KEYS = List.of("id", "system", "nodes", "gpus-per-node", "network", "gpus-per-thread", "algo", "gdr", "not-yet");

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
