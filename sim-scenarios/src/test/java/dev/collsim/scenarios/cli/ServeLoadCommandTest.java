package dev.collsim.scenarios.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code serve --deployment}: one deployment under load, from the command line. */
class ServeLoadCommandTest {
    private static final String[] RUN = {"serve", "--model", "llama-3-8b", "--system", "hgx-h100", "--deployment", "tp1 dp2 b32",
        "--rate", "20", "--isl", "uniform:256-2048", "--osl", "normal:64,16", "--requests", "120", "--warmup", "20", "--format", "json"};

    private static String[] with(String[] base, String... more) {
        String[] out = java.util.Arrays.copyOf(base, base.length + more.length);
        System.arraycopy(more, 0, out, base.length, more.length);
        return out;
    }

    @Test
    void theSameSeedGivesTheSameBytesAtOneAndTwoThreads() {
        CliRunner one = CliRunner.run(with(RUN, "--threads", "1", "--seed", "5"));
        CliRunner two = CliRunner.run(with(RUN, "--threads", "2", "--seed", "5"));
        assertEquals(0, one.code(), one.err());
        assertEquals(one.out(), two.out());
        CliRunner other = CliRunner.run(with(RUN, "--threads", "1", "--seed", "6"));
        assertTrue(!other.out().equals(one.out()), "another seed draws other lengths and arrivals");
    }

    @Test
    void theOutputUsesVllmsKeysAndCountsOnlyTheMeasuredRequests() throws IOException {
        CliRunner r = CliRunner.run(with(RUN, "--percentiles", "50,90,99", "--goodput", "ttft:1000 tpot:1000"));
        assertEquals(0, r.code(), r.err());
        JsonNode j = new ObjectMapper().readTree(r.out());
        assertEquals(100, j.get("completed").asInt(), "120 requests less the 20 of the warm-up");
        for (String key : new String[] {"mean_ttft_ms", "p50_ttft_ms", "p90_tpot_ms", "p99_itl_ms", "request_throughput", "request_goodput",
            "output_throughput", "std_e2el_ms"}) {
            assertTrue(j.has(key), key);
        }
        assertTrue(j.get("p90_ttft_ms").asDouble() <= j.get("p99_ttft_ms").asDouble());
        // Targets of a second each are met by every request of this light load: goodput is the throughput.
        assertEquals(j.get("request_throughput").asDouble(), j.get("request_goodput").asDouble(), 1e-9);
    }

    @Test
    void aReplayedTraceGivesTheSameBytesRunToRunAndThePerfettoFileHasATrackPerInstanceAndRequest(@TempDir Path dir) throws IOException {
        String trace = "src/test/resources/traces/mooncake-40.jsonl";
        Path a = dir.resolve("a.json");
        Path b = dir.resolve("b.json");
        String[] replay = {"serve", "--model", "llama-3-8b", "--system", "hgx-h100", "--deployment", "tp1 dp2 b64", "--trace", trace,
            "--router", "kv-aware"};
        CliRunner first = CliRunner.run(with(replay, "--perfetto", a.toString()));
        CliRunner second = CliRunner.run(with(replay, "--perfetto", b.toString()));
        assertEquals(0, first.code(), first.err());
        assertEquals(first.out(), second.out());
        assertEquals(Files.readString(a), Files.readString(b));
        JsonNode events = new ObjectMapper().readTree(a.toFile()).get("traceEvents");
        Set<String> processes = new HashSet<>();
        Set<Integer> requests = new HashSet<>();
        for (JsonNode e : events) {
            if (e.get("ph").asText().equals("M") && e.get("name").asText().equals("process_name")) {
                processes.add(e.get("args").get("name").asText());
            }
            if (e.get("ph").asText().equals("X") && e.get("pid").asInt() == 1_000_000) {
                requests.add(e.get("tid").asInt());
            }
        }
        assertTrue(processes.containsAll(Set.of("instance 0 (aggregated)", "requests")), processes.toString());
        assertEquals(40, requests.size(), "a track per request of the trace");
    }

    @Test
    void withoutADeploymentServeStillPlansAndRefusesTheLoadFlags() {
        CliRunner r = CliRunner.run("serve", "--model", "llama-3-8b", "--system", "hgx-h100", "--gpus", "8", "--isl", "1k", "--osl", "128",
                "--warmup", "5");
        assertEquals(2, r.code());
        assertEquals("collsim: --warmup goes with --deployment SPEC (a load run of one deployment); serve without it plans at one --isl and"
                + " --osl\n", r.err());
    }
}
