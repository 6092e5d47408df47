package dev.collsim.scenarios.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Your own machine at scale: an 8-GPU HGX H100 whose GPU pairs share a NIC (a hand-written
 * {@code nvidia-smi topo -m}, topologies/hgx-h100-4nic.topo-m.txt) imported and joined as 4 nodes
 * runs bench and decode, and against the 8-NIC node (topologies/hgx-h100-nics.yaml, the same GPUs,
 * NVLink and PCIe) its NIC placement shows: a 256 MiB all_reduce over the 4 nodes gets less than
 * 0.7x the bus bandwidth, and a decode step whose pipeline sends leave every GPU of a stage at once
 * finds them contending for the shared NICs.
 */
class ImportedNodeAtScaleTest {
    @TempDir
    static Path dir;
    private static String fourNics;
    private static final String EIGHT_NICS = "../topologies/hgx-h100-nics.yaml";

    @BeforeAll
    static void importTheMatrix() {
        fourNics = dir.resolve("4nic.yaml").toString();
        CliRunner r = CliRunner.run("topo", "import", "../topologies/hgx-h100-4nic.topo-m.txt", "--gpu", "h100", "--pcie-rate", "54.4GB/s",
                "--nvlink-rate", "20.6GB/s", "-O", fourNics);
        assertEquals(0, r.code(), r.err());
    }

    private static JsonNode json(String... args) throws Exception {
        CliRunner r = CliRunner.run(args);
        assertEquals(0, r.code(), r.err());
        return new ObjectMapper().readTree(r.out());
    }

    private static double busBandwidth(String topology) throws Exception {
        return json("bench", "all_reduce", "--topology", topology, "--nodes", "4", "-b", "256M", "-e", "256M", "--format", "json")
                .get("rows").get(0).get("busbw_GBps").asDouble();
    }

    private static JsonNode decode(String topology) throws Exception {
        return json("decode", "--model", "llama-3-8b", "--topology", topology, "--nodes", "4", "--tp", "8", "--pp", "4", "--batch", "64",
                "--format", "json");
    }

    @Test
    void benchFindsHalfTheNics() throws Exception {
        double four = busBandwidth(fourNics);
        double eight = busBandwidth(EIGHT_NICS);
        assertTrue(four < 0.7 * eight, four + " GB/s with 4 NICs, " + eight + " with 8");
    }

    @Test
    void decodeFindsThePipelineSendsSharingNics() throws Exception {
        JsonNode four = decode(fourNics);
        JsonNode eight = decode(EIGHT_NICS);
        assertFalse(four.path("contention").asText().isEmpty(), "GPU pairs' sends share a NIC");
        assertTrue(eight.path("contention").asText().isEmpty(), "one NIC per GPU: nothing shared");
        assertTrue(four.get("comm_ms").asDouble() > eight.get("comm_ms").asDouble(),
                four.get("comm_ms") + " ms with 4 NICs, " + eight.get("comm_ms") + " with 8");
    }
}
