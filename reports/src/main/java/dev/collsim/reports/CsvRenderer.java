package dev.collsim.reports;

import java.util.List;
import java.util.stream.Collectors;

/** RFC 4180 CSV: one header line of column keys, then one line per row; comments are left out. */
final class CsvRenderer {
    private CsvRenderer() {}

    static String render(Table t) {
        StringBuilder sb = new StringBuilder();
        sb.append(t.columns().stream().map(c -> quote(c.key())).collect(Collectors.joining(","))).append('\n');
        for (List<Object> row : t.rows()) {
            sb.append(row.stream().map(cell -> quote(Cells.precise(cell))).collect(Collectors.joining(","))).append('\n');
        }
        return sb.toString();
    }

    private static String quote(String s) {
        if (s.contains(",") || s.contains("\"") || s.contains("\n")) {
            return "\"" + s.replace("\"", "\"\"") + "\"";
        }
        return s;
    }
}
