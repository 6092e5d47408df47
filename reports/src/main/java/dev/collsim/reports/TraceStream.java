package dev.collsim.reports;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;

/**
 * A trace in the same format as {@link TraceEvents}, written as it is built: for traces too large to
 * hold (a load run's hundred thousand requests). Each event goes out as one line once the next one
 * starts (the caller fills a slice's args after adding it), so at most one event is held; {@link #close}
 * writes the last one and ends the document. Times in us.
 */
public final class TraceStream implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final Writer out;
    private final String displayTimeUnit;
    private ObjectNode pending;
    private boolean first = true;

    /** Starts the document on {@code out}; {@code displayTimeUnit} as {@link TraceEvents#render} takes it. */
    public TraceStream(Writer out, String displayTimeUnit) {
        this.out = out;
        this.displayTimeUnit = displayTimeUnit;
        write("{\"traceEvents\":[");
    }

    public TraceStream processName(int pid, String name) {
        return meta("process_name", pid, 0, name);
    }

    public TraceStream threadName(int pid, int tid, String name) {
        return meta("thread_name", pid, tid, name);
    }

    private TraceStream meta(String what, int pid, int tid, String name) {
        next().put("name", what).put("ph", "M").put("pid", pid).put("tid", tid).putObject("args").put("name", name);
        return this;
    }

    /** A slice from {@code ts} lasting {@code dur} us; returns its args for the caller to fill before the next event. */
    public ObjectNode slice(String name, String category, int pid, int tid, double ts, double dur) {
        return next().put("name", name).put("cat", category).put("ph", "X").put("pid", pid).put("tid", tid).put("ts", ts)
                .put("dur", Math.max(0, dur)).putObject("args");
    }

    /** An instant on a thread at {@code ts} us; returns its args for the caller to fill before the next event. */
    public ObjectNode instant(String name, String category, int pid, int tid, double ts) {
        return next().put("name", name).put("cat", category).put("ph", "i").put("s", "t").put("pid", pid).put("tid", tid)
                .put("ts", ts).putObject("args");
    }

    /** Writes the last event and ends the document; the writer stays open, for its owner to close. */
    @Override
    public void close() {
        flushPending();
        write("\n],\"displayTimeUnit\":" + json(displayTimeUnit) + "}\n");
        try {
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private ObjectNode next() {
        flushPending();
        pending = JSON.createObjectNode();
        return pending;
    }

    private void flushPending() {
        if (pending != null) {
            write((first ? "\n" : ",\n") + json(pending));
            first = false;
            pending = null;
        }
    }

    private static String json(Object node) {
        try {
            return JSON.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private void write(String s) {
        try {
            out.write(s);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
