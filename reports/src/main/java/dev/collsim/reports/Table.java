package dev.collsim.reports;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The one table model every command's results go through: a title, comment lines before and after
 * the rows, columns, and rows of cells. A cell is a {@link String}, a {@link Long}/{@link Integer}
 * or a {@link Double}. Renderers read it; nothing else formats results.
 */
public final class Table {
    private final String title;
    private final List<Column> columns;
    private final List<String> preamble = new ArrayList<>();
    private final List<String> footer = new ArrayList<>();
    private final List<List<Object>> rows = new ArrayList<>();
    private final Map<String, Object> meta;

    /**
     * @param meta key facts of the run (command, system, options), kept by JSON output
     */
    public Table(String title, List<Column> columns, Map<String, Object> meta) {
        this.title = title;
        this.columns = List.copyOf(columns);
        this.meta = Map.copyOf(meta);
    }

    public Table note(String line) {
        preamble.add(line);
        return this;
    }

    public Table footnote(String line) {
        footer.add(line);
        return this;
    }

    public Table row(Object... cells) {
        if (cells.length != columns.size()) {
            throw new IllegalArgumentException("row of " + cells.length + " cells for " + columns.size() + " columns");
        }
        for (Object c : cells) {
            if (!(c instanceof String || c instanceof Long || c instanceof Integer || c instanceof Double)) {
                throw new IllegalArgumentException("unsupported cell " + c);
            }
        }
        rows.add(List.of(cells));
        return this;
    }

    public String title() {
        return title;
    }

    public List<Column> columns() {
        return columns;
    }

    public List<String> preamble() {
        return List.copyOf(preamble);
    }

    public List<String> footer() {
        return List.copyOf(footer);
    }

    public List<List<Object>> rows() {
        return List.copyOf(rows);
    }

    public Map<String, Object> meta() {
        return meta;
    }
}
