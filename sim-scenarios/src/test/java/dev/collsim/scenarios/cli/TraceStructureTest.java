package dev.collsim.scenarios.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Chrome trace-event files Perfetto loads: slices complete, flows paired, counters in time order. */
class TraceStructureTest {
    @Test
    void benchTrace(@TempDir Path dir) throws Exception {
        JsonNode events = benchTrace(dir, "all_reduce", "--gpus-per-node", "4", "-b", "1M", "-e", "1M", "--algo", "ring");
        long counters = 0;
        long flows = 0;
        for (JsonNode e : events) {
            counters += e.get("ph").asText().equals("C") ? 1 : 0;
            flows += e.get("ph").asText().equals("s") ? 1 : 0;
        }
        assertTrue(counters > 0 && flows > 0, counters + " counters, " + flows + " flows");
    }

    /**
     * A 64 MiB ring on 8 GPUs, where flows hand over on every GPU's link to the NVSwitch: each link's
     * utilisation stays at or under 100 % (counted from each transfer's average rate it read up to
     * 155 %), and is at 0 once the collective is done.
     */
    @Test
    void linkUtilisationNeverExceedsTheLink(@TempDir Path dir) throws Exception {
        Map<String, Double> last = new HashMap<>();
        double most = 0;
        for (JsonNode e : benchTrace(dir, "all_reduce", "-b", "64M", "-e", "64M", "--algo", "ring")) {
            if (e.get("ph").asText().equals("C") && e.get("name").asText().endsWith("utilisation (%)")) {
                double percent = e.get("args").get("percent").asDouble();
                most = Math.max(most, percent);
                last.put(e.get("name").asText(), percent);
            }
        }
        assertTrue(most > 50 && most <= 100 + 1e-6, "busiest moment " + most + " %");
        assertTrue(last.values().stream().allMatch(p -> p < 1e-3), last.toString());
    }

    /**
     * An all-to-all spreads its peers over more channels than the request's (NCCL's p2p channels): the trace is written (it
     * once indexed its tracks past the request's channel count) and its transfers name channels from 4 up.
     */
    @Test
    void pointToPointChannelsBeyondTheRequestsHaveTracks(@TempDir Path dir) throws Exception {
        int highest = 0;
        for (JsonNode e : benchTrace(dir, "alltoall", "--system", "hgx-h200", "-b", "46M", "-e", "46M")) {
            if (e.get("ph").asText().equals("X") && e.has("args") && e.get("args").has("channel")) {
                highest = Math.max(highest, e.get("args").get("channel").asInt());
            }
        }
        assertTrue(highest >= 4, "peers over more channels than 4: the highest is " + highest);
    }

    @Test
    void decodeTrace(@TempDir Path dir) throws Exception {
        Path trace = dir.resolve("decode.json");
        CliRunner r = CliRunner.run("decode", "--model", "llama-3-8b", "--tp", "4", "--batch", "8", "--overlap", "two-batch",
                "--trace", trace.toString());
        assertEquals(0, r.code(), r.err());
        int compute = 0;
        for (JsonNode e : check(trace)) {
            if (e.get("ph").asText().equals("X")) {
                JsonNode args = e.get("args");
                assertTrue(args.get("bytes").asLong() > 0, "every kernel moves bytes: " + e);
                if (e.get("cat").asText().equals("compute")) {
                    compute++;
                    assertTrue(args.has("flops"), e.toString());
                    if (e.get("name").asText().endsWith("proj")) {
                        assertTrue(args.get("flops").asDouble() > 0, "a GEMM has FLOPs: " + e);
                    }
                }
            }
        }
        assertTrue(compute > 0);
    }

    /** A prefill's trace is its last forward: a slice per layer's kernels at prefill sizes. */
    @Test
    void prefillTrace(@TempDir Path dir) throws Exception {
        Path trace = dir.resolve("prefill.json");
        CliRunner r = CliRunner.run("prefill", "--model", "llama-3-8b", "--tp", "2", "--isl", "2048", "--chunk", "1024", "--trace",
                trace.toString());
        assertEquals(0, r.code(), r.err());
        String names = check(trace).findValuesAsText("name").toString();
        assertTrue(names.contains("attention") && names.contains("all_reduce"), names);
    }

    /** Under PP the trace says it follows a GPU of each stage; with one stream, its one thread carries the collectives too. */
    @Test
    void aPipelinedStepSaysWhichGpusItFollows(@TempDir Path dir) throws Exception {
        Path trace = dir.resolve("pp.json");
        CliRunner r = CliRunner.run("decode", "--model", "llama-3-8b", "--tp", "2", "--pp", "2", "--trace", trace.toString());
        assertEquals(0, r.code(), r.err());
        String names = check(trace).findValuesAsText("name").toString();
        assertTrue(names.contains("a GPU of each of the 2 pipeline stages in turn") && names.contains("the stream (kernels and collectives)")
                && !names.contains("communication stream"), names);
    }

    /** {@code bench ARGS --trace FILE}, which must succeed, and its checked events. */
    private static JsonNode benchTrace(Path dir, String... args) throws Exception {
        Path trace = dir.resolve("bench.json");
        List<String> line = new java.util.ArrayList<>(List.of("bench"));
        line.addAll(List.of(args));
        line.addAll(List.of("--trace", trace.toString()));
        CliRunner r = CliRunner.run(line.toArray(String[]::new));
        assertEquals(0, r.code(), r.err());
        return check(trace);
    }

    /**
     * Every slice has pid, tid, ts and dur (dur >= 0) and, on its track, nests in or keeps apart from every other (as
     * the trace format wants); every flow start has one end, not before it; each counter track moves forward.
     */
    private static JsonNode check(Path trace) throws Exception {
        JsonNode events = new ObjectMapper().readTree(Files.readString(trace)).get("traceEvents");
        assertTrue(events.size() > 0);
        Map<Long, double[]> flows = new HashMap<>();
        Map<String, Double> counterTime = new HashMap<>();
        Map<Integer, String> processNames = new HashMap<>();
        java.util.Set<String> arrivals = new java.util.HashSet<>();
        for (JsonNode e : events) {
            String ph = e.get("ph").asText();
            switch (ph) {
                case "X" -> {
                    for (String key : List.of("name", "pid", "tid", "ts", "dur")) {
                        assertTrue(e.has(key), key + " missing in " + e);
                    }
                    assertTrue(e.get("dur").asDouble() >= 0, e.toString());
                }
                case "s", "f" -> {
                    double[] pair = flows.computeIfAbsent(e.get("id").asLong(), k -> new double[] {Double.NaN, Double.NaN});
                    int i = ph.equals("s") ? 0 : 1;
                    assertTrue(Double.isNaN(pair[i]), "flow " + e.get("id") + " has two " + ph + " events");
                    pair[i] = e.get("ts").asDouble();
                }
                case "C" -> {
                    String track = e.get("pid").asText() + "/" + e.get("name").asText();
                    double ts = e.get("ts").asDouble();
                    assertTrue(ts > counterTime.getOrDefault(track, Double.NEGATIVE_INFINITY), "counter " + track + " goes back at " + ts);
                    counterTime.put(track, ts);
                }
                case "i" -> {
                    // An arrival is a point in time on its receiver's thread, not a made-up slice.
                    assertEquals("t", e.get("s").asText(), e.toString());
                    arrivals.add(e.get("pid").asText() + "/" + e.get("tid").asText() + "@" + e.get("ts").asDouble());
                }
                case "M" -> {
                    assertTrue(e.has("pid") && e.get("args").has("name"), e.toString());
                    if (e.get("name").asText().equals("process_name")) {
                        String before = processNames.put(e.get("pid").asInt(), e.get("args").get("name").asText());
                        assertEquals(null, before, "process " + e.get("pid") + " named twice");
                    }
                }
                default -> throw new AssertionError("unexpected phase " + ph);
            }
        }
        assertSlicesNest(events);
        for (JsonNode e : events) {
            assertTrue(processNames.containsKey(e.get("pid").asInt()), "process " + e.get("pid") + " has no name");
            if (e.get("ph").asText().equals("f")) {
                String at = e.get("pid").asText() + "/" + e.get("tid").asText() + "@" + e.get("ts").asDouble();
                assertTrue(arrivals.contains(at), "flow " + e.get("id") + " ends on no arrival at " + at);
            }
        }
        assertEquals(processNames.size(), new java.util.HashSet<>(processNames.values()).size(), "two processes share a name");
        for (Map.Entry<Long, double[]> f : flows.entrySet()) {
            double[] p = f.getValue();
            assertTrue(!Double.isNaN(p[0]) && !Double.isNaN(p[1]) && p[1] >= p[0], "flow " + f.getKey() + " is not paired in time order");
        }
        return events;
    }

    /** On each track, a slice that starts inside another ends inside it too (ties at a boundary allowed to a nanosecond). */
    private static void assertSlicesNest(JsonNode events) {
        Map<String, List<double[]>> tracks = new HashMap<>();
        for (JsonNode e : events) {
            if (e.get("ph").asText().equals("X")) {
                double ts = e.get("ts").asDouble();
                tracks.computeIfAbsent(e.get("pid").asText() + "/" + e.get("tid").asText(), k -> new java.util.ArrayList<>())
                        .add(new double[] {ts, ts + e.get("dur").asDouble()});
            }
        }
        double tie = 1e-3;
        for (Map.Entry<String, List<double[]>> track : tracks.entrySet()) {
            List<double[]> slices = track.getValue();
            slices.sort((a, b) -> a[0] != b[0] ? Double.compare(a[0], b[0]) : Double.compare(b[1], a[1]));
            java.util.ArrayDeque<double[]> open = new java.util.ArrayDeque<>();
            for (double[] x : slices) {
                while (!open.isEmpty() && open.peek()[1] <= x[0] + tie) {
                    open.pop();
                }
                assertTrue(open.isEmpty() || x[1] <= open.peek()[1] + tie, "on track " + track.getKey() + " a slice [" + x[0] + ", " + x[1]
                        + "] overlaps [" + (open.isEmpty() ? "" : open.peek()[0] + ", " + open.peek()[1]) + "] without nesting");
                open.push(x);
            }
        }
    }

    /** Two nodes, where a channel's sends overlap (the proxy posts the next while one is on the wire): every track still nests. */
    @Test
    void slicesOfTransfersInFlightAtOnceGoOnTracksOfTheirOwn(@TempDir Path dir) throws Exception {
        long extraTracks = 0;
        for (JsonNode e : benchTrace(dir, "all_reduce", "--nodes", "2", "-b", "64M", "-e", "64M")) {
            extraTracks += e.get("ph").asText().equals("M") && e.get("args").get("name").asText().contains("transfers at once") ? 1 : 0;
        }
        assertTrue(extraTracks > 0, "no channel needed a second track: the case no longer tests what it says");
    }
}
