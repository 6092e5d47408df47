package dev.collsim.scenarios.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Issue 27's "a CLI without surprises": each thing a new user tried, as they would type it. */
class CliSurprisesTest {
    private static String ok(String... args) {
        CliRunner r = CliRunner.run(args);
        assertEquals(0, r.code(), String.join(" ", args) + ": " + r.err());
        return r.out();
    }

    @Test
    void everySizeFlagTakesNcclTestsSuffixesBinaryUnitsAndBytes() {
        String m = ok("bench", "all_reduce", "-b", "4M", "-e", "4M");
        assertEquals(m, ok("bench", "all_reduce", "-b", "4MiB", "-e", "4MiB"));
        assertEquals(m, ok("bench", "all_reduce", "-b", "4194304", "-e", "4194304"));
        assertEquals(m, ok("bench", "all_reduce", "-b", "4m", "-e", "4m"));
        assertTrue(m.contains("4194304"), m);
        String explain = ok("explain", "all_reduce", "--ranks", "4", "--size", "4M");
        assertEquals(explain, ok("explain", "all_reduce", "--ranks", "4", "--size", "4194304"));
        assertEquals(explain, ok("explain", "all_reduce", "--ranks", "4", "--size", "4MiB"));
    }

    @Test
    void tokenCountsTakeK() {
        assertEquals(ok("decode", "--model", "llama-3-8b", "--context", "4096"), ok("decode", "--model", "llama-3-8b", "--context", "4k"));
        assertEquals(ok("prefill", "--model", "llama-3-8b", "--isl", "2048"), ok("prefill", "--model", "llama-3-8b", "--isl", "2K"));
    }

    @Test
    void modelSystemNetworkAndEngineNamesMatchInAnyCase() {
        assertEquals(ok("decode", "--model", "llama-3-8b", "--system", "hgx-h200", "--engine", "sglang"),
                ok("decode", "--model", "Llama-3-8B", "--system", "HGX-H200", "--engine", "SGLang"));
        assertEquals(ok("bench", "all_reduce", "--nodes", "2", "--network", "roce", "-b", "1M", "-e", "1M"),
                ok("bench", "all_reduce", "--nodes", "2", "--network", "RoCE", "-b", "1M", "-e", "1M"));
    }

    @Test
    void aLongSweepSaysHowManySizesItMeans() {
        CliRunner r = CliRunner.run("bench", "all_reduce", "-b", "8", "-e", "8G", "-f", "1", "--nodes", "4");
        assertEquals(2, r.code());
        assertTrue(r.err().contains("this run of 8,192 sizes (-b 8 -e 8G -f 1 -i 1M)") && r.err().contains("--force"), r.err());
        CliRunner listed = CliRunner.run("bench", "all_reduce", "-b", "8", "-e", "8G", "-f", "1", "-i", "8");
        assertEquals(2, listed.code());
        assertTrue(listed.err().contains("means 1,073,741,824 sizes"), listed.err());
    }

    @Test
    void compareWithNothingWithinTheTargetSaysTheBestReachableAndWhatBinds() {
        String out = ok("compare", "--model", "llama-3-70b", "--system", "hgx-h100", "--gpus", "8", "--itl-slo", "3ms");
        assertTrue(out.matches("(?s).*hgx-h100: no layout meets the target: the fastest, tp8 pp1 dp1 batch 1, takes \\d+\\.\\d\\d ms a token"
                + " \\(compute .*\\): compute \\(the weights' and cache's reads\\) binds.*"), out);
    }

    @Test
    void bareCollsimListsTheCommandsAndExitsTwo() {
        CliRunner r = CliRunner.run();
        assertEquals(2, r.code());
        assertTrue(r.err().contains("Commands:") && r.err().contains("serve") && r.err().contains("bench"), r.err());
    }

    @Test
    void spinesHelpSaysTheCapacityIsSplit() {
        String help = ok("bench", "--help").replaceAll("\\s+", " ");
        assertTrue(help.contains("spine switches sharing the same spine capacity") && help.contains("not N times the capacity"), help);
    }

    @Test
    void aLongRunShowsNoBarWhenNotOnATerminal() {
        CliRunner r = CliRunner.run("compare", "--model", "llama-3-8b", "--system", "hgx-h100", "--gpus", "8");
        assertEquals(0, r.code(), r.err());
        assertEquals("", r.err(), "no progress bar without a terminal");
    }
}
