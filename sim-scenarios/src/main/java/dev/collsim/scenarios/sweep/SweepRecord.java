package dev.collsim.scenarios.sweep;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.collsim.core.input.InputException;
import dev.collsim.core.input.TextFile;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a shard's rows are the results of, as {@code PREFIX.sweep.json} keeps it beside
 * {@code PREFIX.csv} and {@code PREFIX.jsonl}: the point's command, its options, the axes in order
 * (their product, the first axis slowest, numbers the points) and the shard {@code i/N}. Two shards
 * belong to one sweep when all but the shard are equal.
 */
public record SweepRecord(String command, List<String> options, Map<String, List<String>> axes, int shard, int shards) {
    private static final ObjectMapper JSON = new ObjectMapper();

    public SweepRecord {
        options = List.copyOf(options);
        axes = Collections.unmodifiableMap(new LinkedHashMap<>(axes));
    }

    /** The record beside a result file: {@code PREFIX.sweep.json} for {@code PREFIX.csv} or {@code PREFIX.jsonl}. */
    public static Path beside(Path resultFile) {
        String name = resultFile.toString();
        return Path.of(name.substring(0, name.lastIndexOf('.')) + ".sweep.json");
    }

    /** The record as the sweep writes it. */
    String json() {
        ObjectNode r = JSON.createObjectNode();
        r.put("command", command);
        options.forEach(r.putArray("options")::add);
        ObjectNode a = r.putObject("axes");
        axes.forEach((axis, values) -> values.forEach(a.withArray(axis)::add));
        r.put("shard", shard + "/" + shards);
        try {
            return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(r) + "\n";
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Reads a record, or says in one line which field of {@code file} is not what the sweep writes. */
    public static SweepRecord read(Path file) {
        JsonNode r;
        try {
            r = JSON.readTree(TextFile.read(file));
        } catch (JsonProcessingException e) {
            throw new InputException(file + ": not JSON (" + e.getOriginalMessage() + "); expected the record a sweep writes");
        }
        String command = r == null ? null : r.path("command").asText(null);
        if (command == null || !Sweep.RESULTS.containsKey(command)) {
            throw new InputException(file + ": command: expected one of " + String.join(", ", Sweep.RESULTS.keySet().stream().sorted().toList()));
        }
        List<String> options = strings(file, "options", r.path("options"));
        if (!r.path("axes").isObject() || r.path("axes").isEmpty()) {
            throw new InputException(file + ": axes: expected each axis's values");
        }
        Map<String, List<String>> axes = new LinkedHashMap<>();
        r.path("axes").fields().forEachRemaining(e -> axes.put(e.getKey(), strings(file, "axes." + e.getKey(), e.getValue())));
        String shard = r.path("shard").asText("");
        if (!shard.matches("\\d{1,6}/\\d{1,6}")) {
            throw new InputException(file + ": shard '" + shard + "': expected i/N, e.g. 0/4");
        }
        int i = Integer.parseInt(shard.split("/")[0]);
        int n = Integer.parseInt(shard.split("/")[1]);
        if (i >= n) {
            throw new InputException(file + ": shard '" + shard + "': expected i/N with 0 <= i < N");
        }
        return new SweepRecord(command, options, axes, i, n);
    }

    private static List<String> strings(Path file, String field, JsonNode node) {
        List<String> out = new ArrayList<>();
        if (!node.isArray()) {
            throw new InputException(file + ": " + field + ": expected a list of strings");
        }
        node.forEach(v -> {
            if (!v.isTextual()) {
                throw new InputException(file + ": " + field + ": " + v + ": expected a string");
            }
            out.add(v.asText());
        });
        if (field.startsWith("axes.") && out.isEmpty()) {
            throw new InputException(file + ": " + field + ": expected one value or more");
        }
        return out;
    }

    /** The same sweep, perhaps another shard of it. */
    public boolean sameSweep(SweepRecord o) {
        return command.equals(o.command) && options.equals(o.options) && axes.equals(o.axes)
                && List.copyOf(axes.keySet()).equals(List.copyOf(o.axes.keySet()));
    }

    /** What differs from another sweep's record, in words. */
    public String differenceFrom(SweepRecord o) {
        if (!command.equals(o.command)) {
            return "command " + command + ", not " + o.command;
        }
        return !options.equals(o.options) ? "options " + options + ", not " + o.options : "axes " + axes + ", not " + o.axes;
    }

    /** The result files' columns: point, the axes, the command's results, error. */
    public List<String> columns() {
        return Sweep.columns(command, axes.keySet());
    }

    /** The number of points: the product of the axes' sizes. */
    public long points() {
        long n = 1;
        for (List<String> values : axes.values()) {
            n = Math.min(Long.MAX_VALUE / 2, n * values.size());
        }
        return n;
    }

    /** Point {@code p}'s value of each axis, in the axes' order (the first axis slowest). */
    public List<String> axisValues(long p) {
        List<List<String>> all = new ArrayList<>(axes.values());
        String[] out = new String[all.size()];
        for (int k = all.size() - 1; k >= 0; k--) {
            int size = all.get(k).size();
            out[k] = all.get(k).get((int) (p % size));
            p /= size;
        }
        return List.of(out);
    }

    /** The points this shard runs: i, i + N, i + 2N, ... below the sweep's size. */
    public long shardPoints() {
        long n = points();
        return n <= shard ? 0 : (n - shard + shards - 1) / shards;
    }
}
