package dev.collsim.scenarios.views;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.collsim.scenarios.load.Deployment;
import dev.collsim.scenarios.load.LoadOutcome;
import java.io.Writer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class LoadTraceTest {
    private static JsonNode events(LoadOutcome o) throws Exception {
        JsonNode root = new ObjectMapper().readTree(LoadTrace.json(o));
        assertEquals("ms", root.get("displayTimeUnit").asText());
        return root.get("traceEvents");
    }

    /** "name ts dur" of the complete slices on one track, in the file's order. */
    private static List<String> slices(JsonNode events, int pid, int tid) {
        List<String> out = new ArrayList<>();
        for (JsonNode e : events) {
            if (e.get("ph").asText().equals("X") && e.get("pid").asInt() == pid && e.get("tid").asInt() == tid) {
                out.add(e.get("name").asText() + " " + e.get("ts").asDouble() + " " + e.get("dur").asDouble());
            }
        }
        return out;
    }

    /** Request 1: queued 10 to 50 ms, prefilled to 100, its KV on the decode instance at 103, decoded to 140; in us. */
    @Test
    void aRequestsPhasesAreItsSlices() throws Exception {
        JsonNode events = events(LoadSamples.disaggregated());
        assertEquals(List.of("queue 10000.0 40000.0", "prefill 50000.0 50000.0", "kv move 100000.0 3000.0", "decode 103000.0 37000.0"),
                slices(events, LoadTrace.REQUESTS, 1));
        // A request that could never run has no phases; an aggregated one no KV move.
        assertEquals(List.of(), slices(events, LoadTrace.REQUESTS, 3));
        // The server's 2 ms a request (the sample's request overhead) come before the scheduler's queue.
        assertEquals(List.of("server 0.0 2000.0", "queue 2000.0 3000.0", "prefill 5000.0 5000.0", "decode 10000.0 9000.0"),
                slices(events(LoadSamples.aggregated(1)), LoadTrace.REQUESTS, 0));
        JsonNode prefill = find(events, "prefill", LoadTrace.REQUESTS, 2);
        assertEquals("{\"isl\":1024,\"cached_tokens\":256,\"instance\":0}", prefill.get("args").toString());
    }

    /** Each instance's steps on its own process, by start, numbered from 0 and named by their content. */
    @Test
    void anInstancesStepsAreItsSlices() throws Exception {
        JsonNode events = events(LoadSamples.disaggregated());
        assertEquals(List.of("step 0 prefill 1024 0.0 50000.0", "step 1 prefill 1024 50000.0 50000.0", "step 2 prefill 768 100000.0 50000.0"),
                slices(events, 1, 0));
        assertEquals(List.of("step 0 decode 1 52000.0 8000.0", "step 1 decode 2 60000.0 10000.0"), slices(events, 2, 0));
        assertEquals("{\"decodes\":2,\"prefill_tokens\":0,\"graph_batch\":2}", find(events, "step 1 decode 2", 2, 0).get("args").toString());
        List<String> processes = new ArrayList<>();
        events.forEach(e -> {
            if (e.get("name").asText().equals("process_name")) {
                processes.add(e.get("pid").asInt() + " " + e.get("args").get("name").asText());
            }
        });
        assertEquals(List.of("1 instance 0 (prefill)", "2 instance 1 (decode)", "1000000 requests"), processes);
        assertEquals("step 12 decode 64 + prefill 2048", LoadTrace.name(12, new LoadOutcome.StepRecord(0, Deployment.Kind.AGGREGATED, 0, 1, 64, 2048, 64)));
    }

    /** On every request's track, the slices follow each other in time: none starts before the one before it ends. */
    @Test
    void eachRequestsSlicesAreInTimeOrder() throws Exception {
        for (LoadOutcome o : List.of(LoadSamples.disaggregated(), LoadSamples.aggregated(500))) {
            Map<Integer, Double> lastEnd = new TreeMap<>();
            int slices = 0;
            for (JsonNode e : events(o)) {
                if (e.get("ph").asText().equals("X") && e.get("pid").asInt() == LoadTrace.REQUESTS) {
                    double end = lastEnd.getOrDefault(e.get("tid").asInt(), Double.NEGATIVE_INFINITY);
                    assertTrue(e.get("ts").asDouble() >= end - 1e-6, e.toString());
                    assertTrue(e.get("dur").asDouble() >= 0, e.toString());
                    lastEnd.put(e.get("tid").asInt(), e.get("ts").asDouble() + e.get("dur").asDouble());
                    slices++;
                }
            }
            int server = o.setup().requestMs() > 0 ? 1 : 0;
            assertEquals(o.requests().stream().filter(r -> !r.failed()).mapToInt(r -> server + (Double.isNaN(r.kvArrivedMs()) ? 3 : 4)).sum(), slices);
        }
    }

    /** 100,000 requests go out event by event: no write is larger than one event, and the whole is valid JSON. */
    @Test
    void aLargeRunStreams() throws Exception {
        LoadOutcome o = LoadSamples.aggregated(100_000);
        long[] chars = new long[2];
        LoadTrace.write(o, new Writer() {
            @Override
            public void write(char[] buf, int off, int len) {
                chars[0] += len;
                chars[1] = Math.max(chars[1], len);
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        });
        assertTrue(chars[0] > 10_000_000, chars[0] + " chars");
        assertTrue(chars[1] < 1_000, "a write of " + chars[1] + " chars");
    }

    private static JsonNode find(JsonNode events, String name, int pid, int tid) {
        for (JsonNode e : events) {
            if (e.get("name").asText().equals(name) && e.get("pid").asInt() == pid && e.get("tid").asInt() == tid) {
                return e;
            }
        }
        throw new AssertionError("no " + name);
    }
}
