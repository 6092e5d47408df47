package dev.collsim.scenarios.validate;

import dev.collsim.core.nccl.NcclVersion;
import dev.collsim.topologies.systems.WhatIf;
import java.util.List;
import java.util.Map;

/**
 * How one calibration data set is reproduced: the system and launch mode it was measured on, or
 * why it is not simulated yet; and, where it contradicts another measurement of the same system, the
 * evidence, so that {@code validate} scores it apart rather than dropping it or fitting to it.
 *
 * @param gdrFlush          whether the library flushed what a NIC wrote before the GPU read it (false: the run set
 *                          {@code NCCL_GDR_FLUSH_DISABLE=1}); null or true: as the library does by default
 * @param nccl              the NCCL release it was measured with (the newest where its source does not say)
 * @param inconsistent      the evidence that the set contradicts another of the same system; null if none
 * @param inconsistentNodes the node counts of its rows that the evidence concerns; empty: all of them
 */
public record DatasetSetup(String id, String system, int nodes, Integer gpusPerNode, String network, Integer gpusPerThread, String algo,
                           Boolean gdr, Boolean gdrFlush, NcclVersion nccl, String notYet, String inconsistent,
                           List<Integer> inconsistentNodes) {
    /** The keys a data set's entry in {@code datasets.yaml} may have. */
    static final List<String> KEYS = List.of("id", "system", "nodes", "gpus-per-node", "network", "gpus-per-thread", "algo", "gdr", "gdr-flush", "nccl",
            "not-yet", "inconsistent", "inconsistent-nodes");

    public DatasetSetup {
        nodes = Math.max(1, nodes);
        gdr = gdr == null || gdr;
        gdrFlush = gdrFlush == null || gdrFlush;
        nccl = nccl == null ? NcclVersion.NEWEST : nccl;
        inconsistentNodes = List.copyOf(inconsistentNodes);
    }

    /** A set-up that contradicts nothing. */
    public DatasetSetup(String id, String system, int nodes, Integer gpusPerNode, String network, Integer gpusPerThread, String algo,
                        Boolean gdr, NcclVersion nccl, String notYet) {
        this(id, system, nodes, gpusPerNode, network, gpusPerThread, algo, gdr, null, nccl, notYet, null, List.of());
    }

    /** The same set-up, or on {@code rowNodes} nodes where its rows give their own count. */
    DatasetSetup onNodes(int rowNodes) {
        return rowNodes < 1 || rowNodes == nodes ? this
                : new DatasetSetup(id, system, rowNodes, gpusPerNode, network, gpusPerThread, algo, gdr, gdrFlush, nccl, notYet,
                        inconsistent, inconsistentNodes);
    }

    /** Whether its rows on {@code rowNodes} nodes are scored apart, as contradicting another measurement. */
    boolean inconsistentOn(int rowNodes) {
        return inconsistent != null && (inconsistentNodes.isEmpty() || inconsistentNodes.contains(rowNodes));
    }

    /** The what-if knobs that reproduce its launch: GPUDirect and the library's flush as the run had them. */
    WhatIf whatIf() {
        return gdr && gdrFlush ? WhatIf.NONE : new WhatIf(null, 0, 1, 1, gdr, gdrFlush, Map.of(), Map.of(), List.of());
    }

    public boolean simulated() {
        return system != null;
    }
}
