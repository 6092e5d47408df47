package dev.collsim.scenarios.views;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.collsim.reports.TraceStream;
import dev.collsim.scenarios.load.LoadOutcome;
import dev.collsim.scenarios.load.LoadOutcome.RequestRecord;
import dev.collsim.scenarios.load.LoadOutcome.StepRecord;
import java.io.StringWriter;
import java.io.Writer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A load run as a Perfetto trace (the Chrome trace-event format of the decode step's): a process per
 * instance whose track holds its steps (decode sequences, prefill tokens and the CUDA graph's batch), and
 * a process of the requests with a track per request holding its phases (queue, prefill, KV move, decode)
 * and its first token as an instant. A phase a request did not have (a NaN time) is left out. Instances in
 * order, each one's steps by start; requests by id. Written as it goes: a run of 100,000 requests never
 * becomes one string. Timestamps in us.
 */
public final class LoadTrace {
    /** The requests' process, after every instance's (instance {@code i} is process {@code i + 1}): viewers list processes by id. */
    static final int REQUESTS = 1_000_000;

    private LoadTrace() {}

    /** The whole trace as one string: for small runs and tests. */
    public static String json(LoadOutcome o) {
        StringWriter out = new StringWriter();
        write(o, out);
        return out.toString();
    }

    /** Writes the trace to {@code out} (left open). */
    public static void write(LoadOutcome o, Writer out) {
        try (TraceStream trace = new TraceStream(out, "ms")) {
            List<StepRecord> steps = new ArrayList<>(o.steps());
            steps.sort(Comparator.comparingInt(StepRecord::instance).thenComparingDouble(StepRecord::startMs));
            Map<Integer, StepRecord> instances = new TreeMap<>();
            steps.forEach(s -> instances.putIfAbsent(s.instance(), s));
            instances.forEach((i, s) -> {
                trace.processName(i + 1, "instance " + i + " (" + s.kind().label() + ")");
                trace.threadName(i + 1, 0, "steps");
            });
            int instance = -1;
            int index = 0;
            // A pipelined prefill instance has forwards in flight at once: each goes on the first track free at its start.
            List<Double> laneEnds = new ArrayList<>();
            for (StepRecord s : steps) {
                index = s.instance() == instance ? index + 1 : 0;
                if (s.instance() != instance) {
                    laneEnds.clear();
                }
                instance = s.instance();
                int lane = 0;
                while (lane < laneEnds.size() && laneEnds.get(lane) > s.startMs()) {
                    lane++;
                }
                if (lane == laneEnds.size()) {
                    laneEnds.add(s.endMs());
                    if (lane > 0) {
                        trace.threadName(s.instance() + 1, lane, "steps in flight " + (lane + 1));
                    }
                } else {
                    laneEnds.set(lane, s.endMs());
                }
                slice(trace, name(index, s), s.kind().label(), s.instance() + 1, lane, s.startMs(), s.endMs()).put("decodes", s.decodes())
                        .put("prefill_tokens", s.prefillTokens()).put("graph_batch", s.graphBatch());
            }
            List<RequestRecord> requests = new ArrayList<>(o.requests());
            requests.sort(Comparator.comparingInt(RequestRecord::id));
            trace.processName(REQUESTS, "requests");
            for (RequestRecord r : requests) {
                request(trace, r, o.setup().requestMs());
            }
        }
    }

    /** "step 12 decode 64 + prefill 2048", each part only where the step has it. */
    static String name(int index, StepRecord s) {
        String decode = s.decodes() > 0 ? " decode " + s.decodes() : "";
        String prefill = s.prefillTokens() > 0 ? " prefill " + s.prefillTokens() : "";
        return "step " + index + decode + (!decode.isEmpty() && !prefill.isEmpty() ? " +" : "") + prefill;
    }

    private static void request(TraceStream trace, RequestRecord r, double requestMs) {
        int tid = r.id();
        trace.threadName(REQUESTS, tid, "request " + r.id() + (r.measured() ? "" : " (warm-up)") + (r.failed() ? " (failed)" : ""));
        if (r.failed()) {
            if (Double.isFinite(r.arrivalMs())) {
                trace.instant("failed: its prompt and output exceed the KV cache", "request", REQUESTS, tid, r.arrivalMs() * 1000)
                        .put("isl", r.isl()).put("osl", r.osl());
            }
            return;
        }
        double admitted = r.arrivalMs() + requestMs;
        if (requestMs > 0) {
            slice(trace, "server", "request", REQUESTS, tid, r.arrivalMs(), admitted);
        }
        slice(trace, "queue", "request", REQUESTS, tid, admitted, r.scheduledMs());
        slice(trace, "prefill", "request", REQUESTS, tid, r.scheduledMs(), r.prefillEndMs()).put("isl", r.isl())
                .put("cached_tokens", r.cachedTokens()).put("instance", r.prefillInstance() >= 0 ? r.prefillInstance() : r.instance());
        slice(trace, "kv move", "request", REQUESTS, tid, r.prefillEndMs(), r.kvArrivedMs()).put("from", r.prefillInstance())
                .put("to", r.instance());
        double decodeFrom = Double.isNaN(r.kvArrivedMs()) ? r.prefillEndMs() : r.kvArrivedMs();
        slice(trace, "decode", "request", REQUESTS, tid, decodeFrom, r.endMs()).put("osl", r.osl()).put("preemptions", r.preemptions())
                .put("instance", r.instance());
        if (Double.isFinite(r.firstTokenMs())) {
            trace.instant("first token", "request", REQUESTS, tid, r.firstTokenMs() * 1000);
        }
    }

    /**
     * A slice from {@code startMs} to {@code endMs}; where either is NaN (a phase the request did not have), a
     * detached args object that goes nowhere, so that the caller's chain of args stays one expression.
     */
    private static ObjectNode slice(TraceStream trace, String name, String category, int pid, int tid, double startMs, double endMs) {
        if (!Double.isFinite(startMs) || !Double.isFinite(endMs)) {
            return Json.object();
        }
        return trace.slice(name, category, pid, tid, startMs * 1000, (endMs - startMs) * 1000);
    }
}
