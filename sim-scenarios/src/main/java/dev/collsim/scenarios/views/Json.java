package dev.collsim.scenarios.views;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.collsim.reports.Column;
import dev.collsim.reports.Table;
import dev.collsim.scenarios.metrics.Metric;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The JSON that commands print, built from typed results: objects with their keys in a fixed order,
 * numbers written as the kind of number they are (a count whole, a time as the double it is).
 */
public final class Json {
    private static final ObjectWriter PRETTY = new ObjectMapper().writerWithDefaultPrettyPrinter();
    private static final ObjectMapper PLAIN = new ObjectMapper();

    private Json() {}

    public static ObjectNode object() {
        return JsonNodeFactory.instance.objectNode();
    }

    public static ArrayNode array() {
        return JsonNodeFactory.instance.arrayNode();
    }

    /** Puts a number under {@code key} as the kind of number it is (an Integer or Long whole, else a double); null as JSON's null. */
    public static void put(ObjectNode node, String key, Number value) {
        node.set(key, PLAIN.valueToTree(value));
    }

    /** Each metric of {@code result} under its key, in the list's order. */
    public static <R> void put(ObjectNode node, List<Metric<R>> metrics, R result) {
        for (Metric<R> m : metrics) {
            put(node, m.key(), m.of(result));
        }
    }

    /** Puts {@code value} only when it is not empty (optional keys that users' scripts do not expect always). */
    public static void putIfNotEmpty(ObjectNode node, String key, String value) {
        if (value != null && !value.isEmpty()) {
            node.put(key, value);
        }
    }

    public static ArrayNode strings(List<String> values) {
        ArrayNode a = array();
        values.forEach(a::add);
        return a;
    }

    /** Indented, with a final newline: what {@code --format json} prints. */
    public static String pretty(JsonNode node) {
        try {
            return PRETTY.writeValueAsString(node) + "\n";
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** On one line, as a JSON Lines row. */
    public static String line(JsonNode node) {
        try {
            return PLAIN.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * A result's JSON as one CSV row under the JSON's own keys: its numbers and words, those of the
     * objects inside it too (a step's layout), a key met twice named with its object's
     * ({@code layout_dtype}). Lists (layers, spans, warnings) are the JSON's and the table's.
     */
    public static Table row(String title, JsonNode result) {
        Map<String, Object> cells = new LinkedHashMap<>();
        scalars(result, "", cells);
        List<Column> columns = cells.entrySet().stream()
                .map(c -> c.getValue() instanceof Double ? Column.number(c.getKey(), c.getKey(), "", 0, Column.PRECISE_DECIMALS)
                        : Column.text(c.getKey(), c.getKey(), 0))
                .toList();
        Table t = new Table(title, columns, Map.of());
        t.row(cells.values().toArray());
        return t;
    }

    private static void scalars(JsonNode node, String parent, Map<String, Object> cells) {
        node.fields().forEachRemaining(field -> {
            JsonNode v = field.getValue();
            String key = cells.containsKey(field.getKey()) ? parent + "_" + field.getKey() : field.getKey();
            if (v.isObject()) {
                scalars(v, field.getKey(), cells);
            } else if (v.isFloatingPointNumber()) {
                cells.put(key, v.doubleValue());
            } else if (v.isValueNode() && !v.isNull()) {
                cells.put(key, v.asText());
            }
        });
    }
}
