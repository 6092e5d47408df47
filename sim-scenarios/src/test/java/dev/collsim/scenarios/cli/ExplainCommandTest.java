package dev.collsim.scenarios.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ExplainCommandTest {
    /**
     * The example and its siblings: every transfer is listed, and the alpha-beta comparison
     * follows. The LL128 tree's 1 MiB moves in 71,040 B chunks, each in 8 pieces of 9,600 B (the
     * 1,920 B grain): 110 pieces on each of its 6 connections.
     */
    @ParameterizedTest
    @CsvSource({"ring, 4, 4MiB, 48", "tree, 4, 1MiB, 660", "nvls, 4, 4MiB, 144"})
    void explainListsEveryTransfer(String algo, int ranks, String size, int transfers) throws Exception {
        CliRunner text = CliRunner.run("explain", "all_reduce", "--algo", algo, "--ranks", String.valueOf(ranks), "--size", size);
        assertEquals(0, text.code(), text.err());
        assertTrue(text.out().contains("alpha-beta, the textbook"), text.out());
        assertTrue(text.out().contains("simulated, chunk by chunk"), text.out());
        CliRunner json = CliRunner.run("explain", "all_reduce", "--algo", algo, "--ranks", String.valueOf(ranks), "--size", size,
                "--format", "json");
        JsonNode root = new ObjectMapper().readTree(json.out());
        assertEquals(transfers, root.get("rows").size());
        JsonNode last = root.get("rows").get(transfers - 1);
        assertEquals("r0+r1+r2+r3", last.get("carries").asText(), "the last transfer carries the full sum");
        assertEquals(root.get("meta").get("simulated_us").asDouble(), maxEnd(root), 1e-3);
    }

    private static double maxEnd(JsonNode root) {
        double max = 0;
        for (JsonNode row : root.get("rows")) {
            max = Math.max(max, row.get("end_us").asDouble());
        }
        return max;
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "explain all_reduce --ranks 9        | --ranks 9: explain runs on one hgx-h100 node of 8 GPUs",
        "explain all_reduce --size 4096Q     | --size: '4096Q': unknown data size unit 'Q'",
        "explain all_reduce --algo warp      | --algo: unknown algorithm 'warp'",
        "explain all_gather --algo nvls      | NVLS cannot run all_gather here: NVLS runs all_reduce here",
        "explain all_reduce --size 8GiB      | more than 5000 lines"})
    void badExplainInput(String args, String expected) {
        CliRunner r = CliRunner.run(args.trim().split("\\s+"));
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains(expected), r.err());
        assertEquals(1, r.err().strip().lines().count());
    }

    @org.junit.jupiter.api.Test
    void explainTakesATopologyFile() {
        CliRunner r = CliRunner.run("explain", "all_reduce", "--topology", "../topologies/nvlink-pairs-4gpu.yaml", "--size", "1MiB",
                "--format", "csv");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().lines().anyMatch(l -> l.contains(",r1,r2,")), "the ring crosses from the first pair to the second");
    }

    /** Every NCCL algorithm and inference kernel explains on the ranks it runs on; each schedule's contributions are checked as it runs. */
    @ParameterizedTest
    @CsvSource({"all_reduce, ring, 2, 16", "all_reduce, tree, 2, 16", "all_reduce, nvlstree, 2, 16", "all_reduce, collnetdirect, 2, 16",
        "all_reduce, collnetchain, 2, 16", "all_gather, pat, 4, 4", "reduce_scatter, pat, 4, 4", "all_reduce, nvls, 1, 8",
        "all_reduce, oneshot, 1, 8", "all_reduce, twoshot, 1, 8"})
    void everyAlgorithmExplains(String op, String algo, int nodes, int ranks) {
        CliRunner r = CliRunner.run("explain", op, "--algo", algo, "--nodes", String.valueOf(nodes), "--ranks", String.valueOf(ranks),
                "--size", "64K");
        assertEquals(0, r.code(), algo + ": " + r.err());
        assertTrue(r.out().toLowerCase(java.util.Locale.ROOT).contains(" " + algo + " on " + ranks + " ranks"), r.out().lines().findFirst().orElse(""));
    }

    /** The tree says what it is: a chain on one node, a double binary tree over nodes with a chain inside each across them. */
    @Test
    void theTreeSaysItIsAChainOnOneNode() {
        CliRunner one = CliRunner.run("explain", "all_reduce", "--algo", "tree", "--ranks", "8", "--size", "64K");
        assertTrue(one.out().contains("on one node the tree is a chain"), one.out());
        CliRunner two = CliRunner.run("explain", "all_reduce", "--algo", "tree", "--nodes", "2", "--ranks", "16", "--size", "64K");
        assertTrue(two.out().contains("across 2 nodes: a double binary tree over the nodes") && two.out().contains("a chain through the GPUs"),
                two.out());
    }

    /** An algorithm that cannot run says why, in NCCL's terms. */
    @Test
    void anAlgorithmThatCannotRunSaysWhy() {
        CliRunner a100 = CliRunner.run("explain", "all_reduce", "--algo", "nvls", "--system", "dgx-a100", "--ranks", "8");
        assertEquals(2, a100.code());
        assertTrue(a100.err().contains("NVLS cannot run all_reduce here: no NVLink SHARP on this Ampere system's NVSwitch"), a100.err());
        CliRunner oneNode = CliRunner.run("explain", "all_reduce", "--algo", "nvlstree", "--ranks", "8");
        assertTrue(oneNode.err().contains("NCCL disables it on one node"), oneNode.err());
        CliRunner pat = CliRunner.run("explain", "all_gather", "--algo", "pat", "--ranks", "8");
        assertTrue(pat.err().contains("NCCL runs PAT only with one GPU per node"), pat.err());
    }
}
