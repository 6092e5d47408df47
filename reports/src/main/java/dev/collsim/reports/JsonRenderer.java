package dev.collsim.reports;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.util.List;
import java.util.TreeMap;

/**
 * One JSON object per table: the run's facts, its notes, and the rows as objects keyed by column key;
 * several tables are one array of them, so the output is one JSON document.
 */
final class JsonRenderer {
    private static final ObjectMapper MAPPER = new ObjectMapper()
            .enable(SerializationFeature.INDENT_OUTPUT)
            .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS);

    private JsonRenderer() {}

    static String render(Table t) {
        return write(node(t));
    }

    static String render(List<Table> tables) {
        ArrayNode all = MAPPER.createArrayNode();
        tables.forEach(t -> all.add(node(t)));
        return write(all);
    }

    private static ObjectNode node(Table t) {
        ObjectNode root = MAPPER.createObjectNode();
        root.put("title", t.title());
        root.set("meta", MAPPER.valueToTree(new TreeMap<>(t.meta())));
        ArrayNode notes = root.putArray("notes");
        t.preamble().forEach(notes::add);
        t.footer().forEach(notes::add);
        ArrayNode rows = root.putArray("rows");
        for (List<Object> row : t.rows()) {
            ObjectNode o = rows.addObject();
            for (int i = 0; i < row.size(); i++) {
                String key = t.columns().get(i).key();
                Object cell = row.get(i);
                if (cell instanceof Double d) {
                    BigDecimal v = PreciseNumbers.of(d);
                    if (v == null) {
                        o.putNull(key);
                    } else {
                        o.put(key, v);
                    }
                } else if (cell instanceof Long l) {
                    o.put(key, l);
                } else if (cell instanceof Integer n) {
                    o.put(key, n);
                } else {
                    o.put(key, (String) cell);
                }
            }
        }
        return root;
    }

    private static String write(JsonNode json) {
        try {
            return MAPPER.writeValueAsString(json) + "\n";
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write JSON", e);
        }
    }

}
