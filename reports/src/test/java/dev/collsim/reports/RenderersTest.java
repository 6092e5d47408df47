package dev.collsim.reports;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RenderersTest {
    private static Table sample() {
        Table t = new Table("demo", List.of(Column.text("name", "name", 6), Column.number("time_us", "time", "(us)", 8, 2),
                Column.number("n", "n", "", 3, 0)), Map.of("command", "test"));
        t.note("a note");
        t.row("a,b", 1.23456, 3L);
        t.row("q\"x", 10.0, 42);
        t.footnote("the end");
        return t;
    }

    @Test
    void csvQuotesAndKeepsPrecision() {
        assertEquals("name,time_us,n\n\"a,b\",1.2346,3\n\"q\"\"x\",10,42\n", ReportFormat.CSV.render(sample()));
    }

    @Test
    void textAlignsColumnsUnderCommentHeaders() {
        String text = ReportFormat.TABLE.render(sample());
        assertEquals(String.join("\n",
                "# a note",
                "#  name      time    n",
                "#            (us)     ",
                "    a,b      1.23    3",
                "    q\"x     10.00   42",
                "# the end", ""), text);
    }

    /** A label column aligns left, its values under it aligning right as ever. */
    @Test
    void labelsAlignLeft() {
        Table t = new Table("list", List.of(Column.label("metric", "metric", 12), Column.number("value", "value", "", 6, 2)), Map.of());
        t.row("Mean (ms):", 1.5).row("Count:", 3);
        assertEquals(String.join("\n", "#metric         value", " Mean (ms):      1.50", " Count:             3", ""), ReportFormat.TABLE.render(t));
        assertTrue(new HtmlReport("list").table(t).render().contains("<td class=\"label\">Mean (ms):</td><td>1.50</td>"));
    }

    @Test
    void jsonKeepsNumbersAsNumbers() throws Exception {
        JsonNode root = new ObjectMapper().readTree(ReportFormat.JSON.render(sample()));
        assertEquals("test", root.get("meta").get("command").asText());
        assertEquals(1.2346, root.get("rows").get(0).get("time_us").asDouble());
        assertTrue(root.get("rows").get(1).get("n").isInt());
    }

    @Test
    void markdownIsAPipeTable() {
        String md = ReportFormat.MARKDOWN.render(sample());
        assertTrue(md.contains("| name | time (us) | n |\n|---|---|---|\n| a,b | 1.23 | 3 |"), md);
    }

    @Test
    void atomicWriteReplacesWholeAndLeavesNoTemporaryFile(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("out.txt");
        AtomicFiles.write(f, "first");
        AtomicFiles.write(f, "second");
        assertEquals("second", Files.readString(f));
        try (var files = Files.list(dir)) {
            assertEquals(1, files.count());
        }
    }
}
