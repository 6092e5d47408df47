package dev.collsim.scenarios.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OutputFormatsTest {
    private static final String[] SMALL = {"bench", "all_reduce", "--system", "hgx-h100", "-b", "8", "-e", "128M", "-f", "8"};

    private static String[] with(String... more) {
        String[] all = new String[SMALL.length + more.length];
        System.arraycopy(SMALL, 0, all, 0, SMALL.length);
        System.arraycopy(more, 0, all, SMALL.length, more.length);
        return all;
    }

    @Test
    void csvHeaderIsTheContract() {
        CliRunner r = CliRunner.run(with("--format", "csv"));
        assertEquals(0, r.code(), r.err());
        String[] lines = r.out().split("\n");
        assertEquals("size_bytes,count,type,redop,root,time_us,algbw_GBps,busbw_GBps,algo,proto,channels", lines[0]);
        assertEquals(10, lines.length); // header + 8 B, 64 B, ... 128 MiB (9 sizes)
        assertTrue(lines[1].startsWith("8,2,float,sum,-1,"), lines[1]);
    }

    /**
     * decode's and prefill's CSV is the result's headline row under the JSON's own keys (issue #40):
     * every number the JSON gives at its top level or in its layout, equal to it at CSV's precision.
     */
    @Test
    void decodeAndPrefillCsvCarryTheJsonsNumbersUnderItsNames() throws IOException {
        for (String[] run : new String[][] {{"decode", "--model", "llama-3-8b", "--tp", "2"}, {"prefill", "--model", "llama-3-8b", "--isl", "2048"}}) {
            CliRunner csv = CliRunner.run(concat(run, "--format", "csv"));
            CliRunner json = CliRunner.run(concat(run, "--format", "json"));
            assertEquals(0, csv.code(), csv.err());
            String[] lines = csv.out().split("\n");
            assertEquals(2, lines.length, "a header and one row");
            String[] keys = lines[0].split(",");
            String[] values = lines[1].split(",");
            JsonNode root = new ObjectMapper().readTree(json.out());
            int numbers = 0;
            for (int i = 0; i < keys.length; i++) {
                JsonNode v = root.has(keys[i]) ? root.get(keys[i]) : root.path("layout").get(keys[i]);
                assertTrue(v != null && v.isValueNode(), run[0] + ": " + keys[i] + " is not a key of the JSON");
                if (v.isNumber()) {
                    assertEquals(v.asDouble(), Double.parseDouble(values[i]), Math.max(1e-4, Math.abs(v.asDouble()) * 1e-9), keys[i]);
                    numbers++;
                }
            }
            assertTrue(numbers >= 10, run[0] + ": " + numbers + " numbers");
            assertTrue(lines[0].contains(run[0].equals("decode") ? "itl_ms,tokens_per_s" : "ttft_ms"), lines[0]);
        }
    }

    private static String[] concat(String[] a, String... b) {
        String[] all = new String[a.length + b.length];
        System.arraycopy(a, 0, all, 0, a.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }

    /** A golden file locks the output of a small sweep: any change of the model shows up here, on purpose. */
    @Test
    void csvMatchesGoldenFile() throws IOException {
        CliRunner r = CliRunner.run(with("--format", "csv"));
        try (InputStream in = getClass().getResourceAsStream("/golden/bench_all_reduce_h100_8B_128M.csv")) {
            String golden = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(golden, r.out(), "regenerate with: ./collsim " + String.join(" ", with("--format", "csv"))
                    + " > sim-scenarios/src/test/resources/golden/bench_all_reduce_h100_8B_128M.csv, after checking why it changed");
        }
    }

    @Test
    void jsonHasMetaAndRows() throws IOException {
        CliRunner r = CliRunner.run(with("--format", "json"));
        JsonNode root = new ObjectMapper().readTree(r.out());
        assertEquals("bench", root.get("meta").get("command").asText());
        assertEquals(9, root.get("rows").size());
        JsonNode last = root.get("rows").get(8);
        assertEquals(128L << 20, last.get("size_bytes").asLong());
        assertEquals("NVLS", last.get("algo").asText());
        assertTrue(last.get("busbw_GBps").asDouble() > 250);
    }

    /**
     * A command that prints several tables prints one JSON document (an array of them); an earlier
     * version printed two documents back to back, which no JSON reader takes.
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"topo show --system hgx-h100", "validate --detail"})
    void severalTablesAreOneJsonDocument(String command) throws IOException {
        CliRunner r = CliRunner.run((command + " --format json").split(" "));
        assertEquals(0, r.code(), r.err());
        JsonNode all = new ObjectMapper().readTree(r.out());
        assertTrue(all.isArray() && all.size() == 2 && all.get(1).has("rows"), r.out());
    }

    /** compare's CSV: two sections (frontiers, winners), every row naming its system. */
    @Test
    void compareCsvNamesTheSystemOfEveryRow() {
        CliRunner r = CliRunner.run("compare", "--model", "llama-3-8b", "--system", "hgx-h100", "--system", "hgx-b200", "--gpus", "8",
                "--format", "csv");
        assertEquals(0, r.code(), r.err());
        String[] sections = r.out().split("\n\n");
        assertEquals(2, sections.length, r.out());
        for (String section : sections) {
            String[] lines = section.strip().split("\n");
            assertTrue(lines[0].startsWith("system,layout,batch,"), lines[0]);
            for (int i = 1; i < lines.length; i++) {
                assertTrue(lines[i].startsWith("hgx-h100,") || lines[i].startsWith("hgx-b200,"), lines[i]);
            }
        }
        assertTrue(sections[0].contains("\nhgx-h100,") && sections[0].contains("\nhgx-b200,"), sections[0]);
    }

    @Test
    void textTableLooksLikeNcclTests() {
        CliRunner r = CliRunner.run(SMALL);
        assertTrue(r.out().contains("#        size         count      type   redop    root"), r.out());
        assertTrue(r.out().contains("# Avg bus bandwidth    : "), r.out());
    }

    @Test
    void sameInputGivesByteIdenticalOutput() {
        assertEquals(CliRunner.run(with("--format", "json")).out(), CliRunner.run(with("--format", "json")).out());
    }

    @Test
    void outputFileIsWrittenWhole(@TempDir Path dir) throws IOException {
        Path out = dir.resolve("sub/result.csv");
        CliRunner r = CliRunner.run(with("--format", "csv", "--output", out.toString()));
        assertEquals(0, r.code(), r.err());
        assertEquals("", r.out());
        assertEquals(CliRunner.run(with("--format", "csv")).out(), Files.readString(out));
    }

    @Test
    void demoRunsAndSaysWhatToTryNext() {
        CliRunner r = CliRunner.run("demo");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("8589934592"), "the sweep reaches 8 GiB");
        assertTrue(r.out().contains("What to try next"));
    }

    @Test
    void validatePrintsAnErrorPerDataset() {
        CliRunner r = CliRunner.run("validate", "--format", "csv");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().startsWith("dataset,op,rows,geomean_abs_err_pct,bias_pct,"), r.out());
        assertTrue(r.out().contains("TG_H100_1N8_SLURM_RING,all_reduce,14,"), r.out());
    }

    /** NCCL's maintainers: about 370 GB/s busbw on 8 H100 for operations other than all_reduce. */
    @Test
    void alltoallAndSendrecvReachAbout370GBps() {
        for (String op : new String[] {"alltoall", "sendrecv"}) {
            double busbw = CliRunner.busbw("bench", op, "-b", "1G", "-e", "1G", "--format", "csv");
            assertTrue(Math.abs(busbw - 370) / 370 <= 0.15, op + " busbw " + busbw);
        }
    }

    /** With NVLS off, NCCL's choice at large sizes is the ring, and the ring's numbers hold. */
    @Test
    void nvlsOffFallsBackToTheRing() {
        CliRunner r = CliRunner.run("bench", "all_reduce", "-b", "8G", "-e", "8G", "--nvls", "off", "--format", "csv");
        assertTrue(r.out().contains(",Ring,Simple,24"), r.out());
        double busbw = CliRunner.busbw("bench", "all_reduce", "-b", "8G", "-e", "8G", "--nvls", "off", "--format", "csv");
        assertTrue(Math.abs(busbw - 368.15) / 368.15 <= 0.10, "ring busbw " + busbw);
    }
}
