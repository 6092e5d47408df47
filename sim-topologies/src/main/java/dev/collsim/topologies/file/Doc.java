package dev.collsim.topologies.file;

import dev.collsim.core.input.InputException;
import java.io.Reader;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;

/**
 * A strict view of a parsed YAML (or JSON) node that remembers where it came from, so that every
 * error names the file, the line and the field. Topology files and scenario files read through it.
 */
public final class Doc {
    private final String file;
    private final Node node;
    private final String path;

    /** The document in {@code reader}: duplicate keys refused, syntax errors named by line. */
    public static Doc parse(Reader reader, String file, String expected) {
        Node root;
        try {
            LoaderOptions options = new LoaderOptions();
            options.setAllowDuplicateKeys(false);
            root = new Yaml(options).compose(reader);
        } catch (MarkedYAMLException e) {
            int line = e.getProblemMark() == null ? 0 : e.getProblemMark().getLine() + 1;
            throw new InputException(file + ":" + line + ": not valid YAML or JSON (" + firstLine(e.getProblem()) + ")");
        } catch (YAMLException e) {
            throw new InputException(file + ": not valid YAML or JSON (" + firstLine(e.getMessage()) + ")");
        }
        if (root == null) {
            throw new InputException(file + ":1: empty file; expected " + expected);
        }
        return new Doc(file, root, "");
    }

    private static String firstLine(String s) {
        return s == null ? "" : s.split("\n", 2)[0].trim();
    }

    Doc(String file, Node node, String path) {
        this.file = file;
        this.node = node;
        this.path = path;
    }

    public int line() {
        return node.getStartMark().getLine() + 1;
    }

    public InputException error(String problem) {
        return new InputException(file + ":" + line() + ": " + (path.isEmpty() ? "" : path + ": ") + problem);
    }

    /** The fields of a mapping, each checked against the allowed names (null: any name, checked by the caller). */
    public Map<String, Doc> fields(Set<String> allowed) {
        if (!(node instanceof MappingNode map)) {
            throw error(allowed == null ? "expected a mapping" : "expected a mapping of " + String.join(", ", new TreeSet<>(allowed)));
        }
        Map<String, Doc> out = new LinkedHashMap<>();
        for (NodeTuple t : map.getValue()) {
            if (!(t.getKeyNode() instanceof ScalarNode key)) {
                throw error("a key must be a plain name");
            }
            String name = key.getValue();
            Doc value = new Doc(file, t.getValueNode(), path.isEmpty() ? name : path + "." + name);
            if (allowed != null && !allowed.contains(name)) {
                throw new Doc(file, key, value.path).error("unknown field; expected one of " + String.join(", ", new TreeSet<>(allowed)));
            }
            if (out.put(name, value) != null) {
                throw value.error("given twice");
            }
        }
        return out;
    }

    public static Doc required(Map<String, Doc> fields, String name, Doc parent) {
        Doc d = fields.get(name);
        if (d == null) {
            throw parent.error("missing field '" + name + "'");
        }
        return d;
    }

    public boolean isList() {
        return node instanceof SequenceNode;
    }

    public List<Doc> list() {
        if (!(node instanceof SequenceNode seq)) {
            throw error("expected a list");
        }
        List<Doc> out = new ArrayList<>();
        for (int i = 0; i < seq.getValue().size(); i++) {
            out.add(new Doc(file, seq.getValue().get(i), path + "[" + i + "]"));
        }
        return out;
    }

    public String text() {
        if (!(node instanceof ScalarNode s) || s.getValue().isBlank()) {
            throw error("expected a value");
        }
        return s.getValue().trim();
    }

    public int integer() {
        try {
            return Integer.parseInt(text());
        } catch (NumberFormatException e) {
            throw error("'" + text() + "' is not a whole number");
        }
    }

    public boolean bool() {
        return switch (text()) {
            case "true", "yes", "on" -> true;
            case "false", "no", "off" -> false;
            default -> throw error("'" + text() + "': expected true or false");
        };
    }

    /** Parses the value with a parser that throws the project's errors, and adds where. */
    public <T> T parse(Function<String, T> parser) {
        String text = text();
        try {
            return parser.apply(text);
        } catch (InputException e) {
            throw error(e.getMessage());
        }
    }
}
