package dev.collsim.scenarios.explain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.core.collective.CollectiveOp;
import dev.collsim.core.collective.Protocol;
import dev.collsim.core.nccl.AlgorithmId;
import dev.collsim.core.nccl.Communicator;
import dev.collsim.core.nccl.Selection;
import dev.collsim.core.units.DataSize;
import dev.collsim.topologies.systems.SystemPreset;
import dev.collsim.topologies.systems.WhatIf;
import java.util.EnumSet;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TextbookTest {
    /**
     * Each algorithm's own alpha-beta form is a first-order estimate: at 1 GiB, with NCCL's channel
     * count, it is within 15 % of the chunk-by-chunk simulation (measured: 0.93 to 1.07), and it is
     * bounded by the link it names (NVLink inside a node; across nodes the NICs where they are slower).
     */
    @ParameterizedTest
    @CsvSource({
        "all_reduce, ring, 1, 8, false",
        "all_reduce, ring, 2, 8, false",
        "all_reduce, ring, 8, 1, true",
        "all_reduce, tree, 1, 8, false",
        "all_reduce, tree, 2, 8, false",
        "all_reduce, nvls, 1, 8, false",
        "all_reduce, nvlstree, 2, 8, false",
        "all_reduce, collnetdirect, 2, 8, false",
        "all_reduce, collnetchain, 2, 8, false",
        "all_gather, pat, 16, 1, true",
        "reduce_scatter, pat, 16, 1, true"})
    void theTextbookIsCloseToTheSimulationAtLargeSizes(String op, String algo, int nodes, int perNode, boolean nicBound) {
        Communicator comm = SystemPreset.byName("hgx-h100").build(nodes, perNode, null, WhatIf.NONE);
        ExplainSpec spec = new ExplainSpec(comm, CollectiveOp.fromName(op), DataSize.parse("1GiB"),
                Selection.parse(algo, AlgorithmId.class, AlgorithmId::label, "algorithm"), EnumSet.allOf(Protocol.class), 0);
        Explain.Run run = Explain.run(spec);
        double ratio = run.result().durationMicros() / run.textbook().micros();
        assertTrue(ratio > 0.85 && ratio < 1.15, algo + " on " + nodes + " x " + perNode + ": simulated / textbook = " + ratio);
        assertEquals(nicBound, run.textbook().nicBound(), algo + ": bounded by the NICs");
        if (nodes > 1) {
            assertEquals(perNode, run.textbook().nics(), "one NIC a GPU, each on its own rail");
            assertEquals(48.5e3, run.textbook().nicRate(), 1, "a 400 Gb/s NIC at 97 %, not the GPU's NVLink");
        }
    }

    /**
     * On an xGMI mesh a GPU's bandwidth in its node is its links to the other GPUs together: seven of 48 GB/s on eight
     * MI300X, three on four, which the rings (and MSCCL's all-pairs) keep busy at once. The rings' textbook is then within
     * 15 % of the simulation at 1 GiB, as on a switch; all-pairs, which stops at 20 MiB, also pays its kernel's start
     * and the copies out of its buffers, which the textbook leaves out (at 16 MiB the simulation takes 1.5 times it).
     */
    @ParameterizedTest
    @CsvSource({"ring, 8, 1GiB, 7, 0.85, 1.15", "ring, 4, 1GiB, 3, 0.85, 1.15", "allpairs, 8, 16MiB, 7, 1.2, 1.8"})
    void aMeshGpusLinksTogetherAreItsBandwidth(String algo, int gpus, String size, int links, double low, double high) {
        Communicator comm = SystemPreset.byName("mi300x-8x").build(1, gpus, null, WhatIf.NONE);
        ExplainSpec spec = new ExplainSpec(comm, CollectiveOp.ALL_REDUCE, DataSize.parse(size),
                Selection.parse(algo, AlgorithmId.class, AlgorithmId::label, "algorithm"), EnumSet.allOf(Protocol.class), 0);
        Explain.Run run = Explain.run(spec);
        assertEquals(links * 48e3, run.textbook().beta(), 1);
        double ratio = run.result().durationMicros() / run.textbook().micros();
        assertTrue(ratio > low && ratio < high, algo + " on " + gpus + ": simulated / textbook = " + ratio);
    }
}
