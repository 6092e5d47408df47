package dev.collsim.reports;

import java.util.List;

/**
 * Aligned text in the style of nccl-tests: comment lines start with {@code #}, the header and its
 * units line are comments too, so the output can be pasted where an nccl-tests log would go.
 */
final class TextRenderer {
    private TextRenderer() {}

    static String render(Table t) {
        StringBuilder sb = new StringBuilder();
        for (String line : t.preamble()) {
            sb.append("# ").append(line).append('\n');
        }
        List<Column> cols = t.columns();
        sb.append('#');
        for (int i = 0; i < cols.size(); i++) {
            pad(sb, cols.get(i).title(), cols.get(i), i);
        }
        sb.append('\n');
        if (cols.stream().anyMatch(c -> !c.unit().isEmpty())) {
            sb.append('#');
            for (int i = 0; i < cols.size(); i++) {
                pad(sb, cols.get(i).unit(), cols.get(i), i);
            }
            sb.append('\n');
        }
        for (List<Object> row : t.rows()) {
            sb.append(' ');
            for (int i = 0; i < cols.size(); i++) {
                pad(sb, Cells.human(row.get(i), cols.get(i)), cols.get(i), i);
            }
            sb.append('\n');
        }
        for (String line : t.footer()) {
            sb.append("# ").append(line).append('\n');
        }
        return sb.toString();
    }

    private static void pad(StringBuilder sb, String text, Column c, int index) {
        if (index > 0) {
            sb.append("  ");
        }
        String fill = " ".repeat(Math.max(0, Math.max(c.width(), c.title().length()) - text.length()));
        sb.append(c.left() ? text + fill : fill + text);
    }
}
