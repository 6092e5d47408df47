package dev.collsim.scenarios.decode;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;

/**
 * The step in the Chrome trace-event format that Perfetto loads: one process (the GPU the step
 * follows), a thread per stream, a complete ("X") event per kernel with its layer, micro-batch and
 * bytes; timestamps in us.
 */
public final class TraceWriter {
    private TraceWriter() {}

    public static String json(DecodeResult r) {
        ObjectMapper mapper = new ObjectMapper();
        ObjectNode root = mapper.createObjectNode();
        ArrayNode events = root.putArray("traceEvents");
        events.add(meta(mapper, "process_name", 0, "name", "GPU 0 (" + r.gpu() + ")"));
        events.add(meta(mapper, "thread_name", 0, "name", "compute stream"));
        events.add(meta(mapper, "thread_name", 1, "name", "communication stream"));
        List<DecodeResult.Span> all = new ArrayList<>(r.beforeLayers());
        List<Integer> layerOf = new ArrayList<>();
        r.beforeLayers().forEach(s -> layerOf.add(-1));
        for (DecodeResult.Layer l : r.layers()) {
            all.addAll(l.spans());
            l.spans().forEach(s -> layerOf.add(l.index()));
        }
        all.addAll(r.afterLayers());
        r.afterLayers().forEach(s -> layerOf.add(r.layers().size()));
        for (int i = 0; i < all.size(); i++) {
            DecodeResult.Span s = all.get(i);
            ObjectNode e = events.addObject();
            e.put("name", s.name());
            e.put("cat", s.kind());
            e.put("ph", "X");
            e.put("pid", 0);
            e.put("tid", s.stream());
            e.put("ts", s.startMs() * 1000);
            e.put("dur", (s.endMs() - s.startMs()) * 1000);
            ObjectNode args = e.putObject("args");
            args.put("layer", layerOf.get(i));
            args.put("micro_batch", s.microBatch());
            args.put("bytes", s.bytes());
        }
        root.put("displayTimeUnit", "ms");
        try {
            return mapper.writerWithDefaultPrettyPrinter().writeValueAsString(root) + "\n";
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static ObjectNode meta(ObjectMapper mapper, String name, int tid, String key, String value) {
        ObjectNode e = mapper.createObjectNode();
        e.put("name", name);
        e.put("ph", "M");
        e.put("pid", 0);
        e.put("tid", tid);
        e.putObject("args").put(key, value);
        return e;
    }
}
