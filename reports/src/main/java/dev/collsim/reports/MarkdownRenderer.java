package dev.collsim.reports;

import java.util.List;
import java.util.stream.Collectors;

/** A Markdown section: the title as a heading, the notes as paragraphs, then a pipe table. */
final class MarkdownRenderer {
    private MarkdownRenderer() {}

    static String render(Table t) {
        StringBuilder sb = new StringBuilder();
        if (!t.title().isEmpty()) {
            sb.append("### ").append(t.title()).append("\n\n");
        }
        for (String line : t.preamble()) {
            sb.append(line).append("\n\n");
        }
        sb.append('|').append(t.columns().stream().map(c -> " " + escape(c.title() + (c.unit().isEmpty() ? "" : " " + c.unit())) + " ")
                .collect(Collectors.joining("|"))).append("|\n");
        sb.append('|').append(t.columns().stream().map(c -> "---").collect(Collectors.joining("|"))).append("|\n");
        for (List<Object> row : t.rows()) {
            sb.append('|');
            for (int i = 0; i < row.size(); i++) {
                sb.append(' ').append(escape(Cells.human(row.get(i), t.columns().get(i)))).append(" |");
            }
            sb.append('\n');
        }
        for (String line : t.footer()) {
            sb.append('\n').append(line).append('\n');
        }
        return sb.append('\n').toString();
    }

    private static String escape(String cell) {
        return cell.replace("|", "\\|");
    }
}
