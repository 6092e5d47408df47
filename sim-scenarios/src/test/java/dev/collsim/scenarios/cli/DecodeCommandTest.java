package dev.collsim.scenarios.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DecodeCommandTest {
    private static final String[] LLAMA = {"decode", "--model", "llama-3-70b", "--system", "hgx-h100", "--tp", "8", "--batch", "32",
        "--context", "4096"};

    private static String[] with(String... more) {
        String[] all = java.util.Arrays.copyOf(LLAMA, LLAMA.length + more.length);
        System.arraycopy(more, 0, all, LLAMA.length, more.length);
        return all;
    }

    @Test
    void theJsonHasTheKeysPlannersRead() throws Exception {
        CliRunner r = CliRunner.run(with("--format", "json"));
        assertEquals(0, r.code(), r.err());
        JsonNode json = new ObjectMapper().readTree(r.out());
        for (String key : List.of("itl_ms", "tokens_per_s", "tokens_per_s_per_gpu", "tokens_per_s_per_user", "compute_ms", "comm_ms",
                "exposed_comm_ms", "comm_bytes_per_gpu", "comm_bandwidth_term_ms", "comm_latency_term_ms", "weights_bytes_per_gpu",
                "kv_bytes_per_gpu", "layers")) {
            assertTrue(json.has(key), key);
        }
        JsonNode layers = json.get("layers");
        assertEquals(80, layers.size());
        JsonNode first = layers.get(0);
        for (String key : List.of("index", "start_ms", "end_ms", "spans")) {
            assertTrue(first.has(key), key);
        }
        assertTrue(first.get("end_ms").asDouble() <= layers.get(1).get("start_ms").asDouble() + 1e-9);
        assertEquals(json.get("itl_ms").asDouble() * json.get("tokens_per_s").asDouble() / 1000, 32, 1e-6);
    }

    /**
     * The what-if knobs act on decode as on bench: NVLink at half its rate raises a TP 8 step's
     * communication, and the JSON and header name the knob; a NIC knob on a step that stays inside one
     * node is said to change nothing.
     */
    @Test
    void whatIfKnobsActOnTheStepAndAreNamed() throws Exception {
        CliRunner base = CliRunner.run(with("--format", "json"));
        CliRunner half = CliRunner.run(with("--format", "json", "--scale", "nvlink=0.5"));
        assertEquals(0, half.code(), half.err());
        ObjectMapper json = new ObjectMapper();
        JsonNode before = json.readTree(base.out());
        JsonNode after = json.readTree(half.out());
        assertTrue(after.get("comm_ms").asDouble() > before.get("comm_ms").asDouble() * 1.05,
                before.get("comm_ms") + " ms -> " + after.get("comm_ms") + " ms");
        assertEquals("--scale nvlink=0.5", after.get("what_ifs").asText());
        assertTrue(!before.has("what_ifs"));
        CliRunner nic = CliRunner.run(with("--nic-bw", "200Gb/s"));
        assertEquals(0, nic.code(), nic.err());
        assertTrue(nic.out().contains("# what-ifs: --nic-bw 25GB/s"), nic.out());
        assertTrue(nic.out().contains("# warning: --nic-bw acts on the network between nodes, but every group of this step (TP 8, EP 1,"
                + " PP 1) stays inside one node of 8 GPUs"), nic.out());
    }

    /** bench on one node says the same of a NIC knob; across nodes it says nothing of the kind. */
    @Test
    void benchOnOneNodeSaysANicKnobChangesNothing() {
        CliRunner one = CliRunner.run("bench", "all_reduce", "-b", "1M", "-e", "1M", "--nic-bw", "200Gb/s", "--spines", "2");
        assertEquals(0, one.code(), one.err());
        assertTrue(one.out().contains("# warning: --nic-bw, --spines act on the network between nodes; one node has none, so they change"
                + " nothing here (add --nodes)"), one.out());
        CliRunner two = CliRunner.run("bench", "all_reduce", "-b", "1M", "-e", "1M", "--nic-bw", "200Gb/s", "--nodes", "2");
        assertEquals(0, two.code(), two.err());
        assertTrue(!two.out().contains("warning"), two.out());
    }

    /** Across nodes the network knobs act: a TP 16 group over two nodes is slower on NICs of half the rate, and nothing is said to be idle. */
    @Test
    void networkKnobsActWhereAGroupCrossesNodes() throws Exception {
        String[] tp16 = {"decode", "--model", "llama-3-70b", "--system", "hgx-h100", "--tp", "16", "--batch", "32", "--format", "json"};
        CliRunner base = CliRunner.run(tp16);
        String[] slow = java.util.Arrays.copyOf(tp16, tp16.length + 2);
        slow[tp16.length] = "--nic-bw";
        slow[tp16.length + 1] = "200Gb/s";
        CliRunner half = CliRunner.run(slow);
        assertEquals(0, half.code(), half.err());
        ObjectMapper json = new ObjectMapper();
        JsonNode before = json.readTree(base.out());
        JsonNode after = json.readTree(half.out());
        assertTrue(after.get("comm_ms").asDouble() > before.get("comm_ms").asDouble(), before.get("comm_ms") + " -> " + after.get("comm_ms"));
        assertTrue(after.get("warnings").toString().contains("TP group of 16 GPUs crosses"), after.get("warnings").toString());
        assertTrue(!after.get("warnings").toString().contains("nothing here"), after.get("warnings").toString());
    }

    @Test
    void theTableShowsEveryLayerAndTheTotals() {
        CliRunner r = CliRunner.run(LLAMA);
        assertEquals(0, r.code(), r.err());
        assertEquals(80, r.out().lines().filter(l -> l.matches("\\s+\\d+\\s+dense.*")).count());
        assertTrue(r.out().contains("# inter-token latency"), r.out());
    }

    /** The trace loads as Chrome trace events: every kernel a complete event with pid, tid, ts and dur, streams in order. */
    @Test
    void theTraceIsTraceEventJson(@TempDir Path dir) throws Exception {
        Path trace = dir.resolve("step.json");
        CliRunner r = CliRunner.run(with("--overlap", "two-batch", "--trace", trace.toString()));
        assertEquals(0, r.code(), r.err());
        JsonNode events = new ObjectMapper().readTree(Files.readString(trace)).get("traceEvents");
        double[] lastEnd = new double[3];
        int kernels = 0;
        for (JsonNode e : events) {
            if (!e.get("ph").asText().equals("X")) {
                continue;
            }
            kernels++;
            for (String key : List.of("name", "pid", "tid", "ts", "dur")) {
                assertTrue(e.has(key), key + " in " + e);
            }
            int tid = e.get("tid").asInt();
            assertTrue(e.get("dur").asDouble() >= 0);
            assertTrue(e.get("ts").asDouble() >= lastEnd[tid] - 1e-6, "a stream runs one kernel at a time: " + e);
            lastEnd[tid] = e.get("ts").asDouble() + e.get("dur").asDouble();
        }
        assertTrue(kernels > 80 * 2 * 10, kernels + " kernels");
    }

    @Test
    void sameInputsSameBytes() {
        assertEquals(CliRunner.run(with("--format", "json")).out(), CliRunner.run(with("--format", "json")).out());
    }
}
