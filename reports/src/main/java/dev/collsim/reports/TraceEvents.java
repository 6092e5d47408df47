package dev.collsim.reports;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A trace in the Chrome trace-event JSON format that the Perfetto UI loads: named processes and
 * threads, complete slices, flow arrows between slices and counter tracks; times in us. A flow's two
 * ends share the category, process, thread and timestamp of the slices they bind to, as viewers pair them.
 */
public final class TraceEvents {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final ObjectNode root = JSON.createObjectNode();
    private final ArrayNode events = root.putArray("traceEvents");

    public TraceEvents processName(int pid, String name) {
        return meta("process_name", pid, 0, name);
    }

    public TraceEvents threadName(int pid, int tid, String name) {
        return meta("thread_name", pid, tid, name);
    }

    private TraceEvents meta(String what, int pid, int tid, String name) {
        events.addObject().put("name", what).put("ph", "M").put("pid", pid).put("tid", tid).putObject("args").put("name", name);
        return this;
    }

    /** A slice from {@code ts} lasting {@code dur} us; returns its args for the caller to fill. */
    public ObjectNode slice(String name, String category, int pid, int tid, double ts, double dur) {
        return events.addObject().put("name", name).put("cat", category).put("ph", "X").put("pid", pid).put("tid", tid).put("ts", ts)
                .put("dur", Math.max(0, dur)).putObject("args");
    }

    /** An instant on a thread at {@code ts} us (a point, not a span); returns its args for the caller to fill. */
    public ObjectNode instant(String name, String category, int pid, int tid, double ts) {
        return events.addObject().put("name", name).put("cat", category).put("ph", "i").put("s", "t").put("pid", pid).put("tid", tid)
                .put("ts", ts).putObject("args");
    }

    /** An arrow from the slice at ({@code pid}, {@code tid}, {@code ts}) to the one at the other end. */
    public TraceEvents flow(long id, String category, int fromPid, int fromTid, double fromTs, int toPid, int toTid, double toTs) {
        events.addObject().put("name", "data").put("cat", category).put("ph", "s").put("id", id).put("pid", fromPid).put("tid", fromTid)
                .put("ts", fromTs);
        events.addObject().put("name", "data").put("cat", category).put("ph", "f").put("bp", "e").put("id", id).put("pid", toPid)
                .put("tid", toTid).put("ts", toTs);
        return this;
    }

    /** A counter track's value from {@code ts} on. */
    public TraceEvents counter(String name, int pid, double ts, String series, double value) {
        events.addObject().put("name", name).put("ph", "C").put("pid", pid).put("ts", ts).putObject("args").put(series, value);
        return this;
    }

    /** The file's text, with {@code displayTimeUnit}. */
    public String render(String displayTimeUnit) {
        root.put("displayTimeUnit", displayTimeUnit);
        try {
            return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(root) + "\n";
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
