package dev.collsim.topologies.file;

import dev.collsim.core.input.InputException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;

/**
 * A strict view of a parsed YAML (or JSON) node that remembers where it came from, so that every
 * error names the file, the line and the field.
 */
final class Doc {
    private final String file;
    private final Node node;
    private final String path;

    Doc(String file, Node node, String path) {
        this.file = file;
        this.node = node;
        this.path = path;
    }

    int line() {
        return node.getStartMark().getLine() + 1;
    }

    InputException error(String problem) {
        return new InputException(file + ":" + line() + ": " + path + ": " + problem);
    }

    /** The fields of a mapping, each checked against the allowed names. */
    Map<String, Doc> fields(Set<String> allowed) {
        if (!(node instanceof MappingNode map)) {
            throw error("expected a mapping of " + String.join(", ", allowed));
        }
        Map<String, Doc> out = new LinkedHashMap<>();
        for (NodeTuple t : map.getValue()) {
            if (!(t.getKeyNode() instanceof ScalarNode key)) {
                throw error("a key must be a plain name");
            }
            String name = key.getValue();
            Doc value = new Doc(file, t.getValueNode(), path.isEmpty() ? name : path + "." + name);
            if (!allowed.contains(name)) {
                throw new Doc(file, key, value.path).error("unknown field; expected one of " + String.join(", ", allowed));
            }
            if (out.put(name, value) != null) {
                throw value.error("given twice");
            }
        }
        return out;
    }

    static Doc required(Map<String, Doc> fields, String name, Doc parent) {
        Doc d = fields.get(name);
        if (d == null) {
            throw parent.error("missing field '" + name + "'");
        }
        return d;
    }

    List<Doc> list() {
        if (!(node instanceof SequenceNode seq)) {
            throw error("expected a list");
        }
        List<Doc> out = new ArrayList<>();
        for (int i = 0; i < seq.getValue().size(); i++) {
            out.add(new Doc(file, seq.getValue().get(i), path + "[" + i + "]"));
        }
        return out;
    }

    String text() {
        if (!(node instanceof ScalarNode s) || s.getValue().isBlank()) {
            throw error("expected a value");
        }
        return s.getValue().trim();
    }

    int integer() {
        try {
            return Integer.parseInt(text());
        } catch (NumberFormatException e) {
            throw error("'" + text() + "' is not a whole number");
        }
    }

    boolean bool() {
        return switch (text()) {
            case "true", "yes", "on" -> true;
            case "false", "no", "off" -> false;
            default -> throw error("'" + text() + "': expected true or false");
        };
    }

    /** Parses the value with a parser that throws the project's errors, and adds where. */
    <T> T parse(java.util.function.Function<String, T> parser) {
        try {
            return parser.apply(text());
        } catch (InputException e) {
            throw error(e.getMessage());
        }
    }
}
