package dev.collsim.scenarios.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/** compare takes the network and every what-if knob, and says which are in force. */
class CompareCommandTest {
    @Test
    void aNetworkAndANicRateRunAndAreNamed() throws Exception {
        CliRunner r = CliRunner.run("compare", "--model", "llama-3-8b", "--system", "hgx-h100", "--system", "hgx-h200", "--gpus", "16",
                "--network", "roce", "--nic-bw", "200Gb/s");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("# what-ifs: --network roce, --nic-bw 25GB/s"), r.out());
        CliRunner json = CliRunner.run("compare", "--model", "llama-3-8b", "--system", "hgx-h100", "--gpus", "16", "--scale", "nvlink=0.5",
                "--format", "json");
        assertEquals(0, json.code(), json.err());
        JsonNode tree = new ObjectMapper().readTree(json.out());
        assertTrue(tree.toString().contains("\"what_ifs\":\"--scale nvlink=0.5\""), tree.toString());
    }

    /** With 4 GPUs of each HGX node in use, a TP 8 layout crosses nodes: its communication grows, and the header says why. */
    @Test
    void gpusPerNodeSpreadsLayoutsOverMoreNodes() {
        CliRunner all = CliRunner.run("compare", "--model", "llama-3-70b", "--system", "hgx-h100", "--gpus", "16");
        CliRunner half = CliRunner.run("compare", "--model", "llama-3-70b", "--system", "hgx-h100", "--gpus", "16", "--gpus-per-node", "4");
        assertEquals(0, half.code(), half.err());
        assertTrue(half.out().contains("# what-ifs: --gpus-per-node 4"), half.out());
        assertTrue(commOfFirstTp8(half.out()) > 2 * commOfFirstTp8(all.out()), all.out() + "\n" + half.out());
    }

    /** The comm column of the first TP 8 frontier row. */
    private static double commOfFirstTp8(String out) {
        String row = out.lines().filter(l -> l.contains(" tp8 pp1 ")).findFirst().orElseThrow();
        return Double.parseDouble(row.trim().split("\\s+")[9]);
    }

    /**
     * Your own machine beside a preset: the 8-NIC HGX H100 file joined as 2 nodes is the preset's
     * node, so on 16 GPUs it finds the same best layout and tokens/s per GPU; it is named by its file.
     */
    @Test
    void aTopologyFileJoinedAsNodesIsComparedBesideThePresets() throws Exception {
        CliRunner r = CliRunner.run("compare", "--model", "llama-3-8b", "--system", "hgx-h100", "--topology", "../topologies/hgx-h100-nics.yaml",
                "--nodes", "2", "--gpus", "16", "--itl-slo", "20ms", "--format", "json");
        assertEquals(0, r.code(), r.err());
        com.fasterxml.jackson.databind.JsonNode systems = new com.fasterxml.jackson.databind.ObjectMapper().readTree(r.out()).get("systems");
        assertEquals(2, systems.size());
        assertEquals("hgx-h100-nics.yaml x2", systems.get(1).get("system").asText());
        assertEquals(systems.get(0).get("best").get("layout").asText(), systems.get(1).get("best").get("layout").asText());
        assertEquals(systems.get(0).get("best").get("tokens_per_s_per_gpu").asDouble(),
                systems.get(1).get("best").get("tokens_per_s_per_gpu").asDouble(), 1e-6);
    }

    @Test
    void anUnknownNetworkIsAnError() {
        CliRunner r = CliRunner.run("compare", "--model", "llama-3-8b", "--system", "hgx-h100", "--network", "token-ring");
        assertEquals(2, r.code());
        assertTrue(r.err().startsWith("collsim: ") && r.err().contains("token-ring"), r.err());
    }
}
