package dev.collsim.reports;

import dev.collsim.core.input.InputException;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.stream.Collectors;

/** The formats a table can be written in, each with its renderer. */
public enum ReportFormat {
    TABLE(TextRenderer::render),
    CSV(CsvRenderer::render),
    JSON(JsonRenderer::render),
    MARKDOWN(MarkdownRenderer::render);

    private final Function<Table, String> renderer;

    ReportFormat(Function<Table, String> renderer) {
        this.renderer = renderer;
    }

    public String render(Table table) {
        return renderer.apply(table);
    }

    /**
     * Several tables as one output: one JSON document (an array of the tables), CSV sections
     * separated by an empty line (each with its own header), text and Markdown one after another.
     */
    public String render(List<Table> tables) {
        if (this == JSON) {
            return JsonRenderer.render(tables);
        }
        return tables.stream().map(this::render).collect(Collectors.joining(this == MARKDOWN ? "" : "\n"));
    }

    public static ReportFormat fromName(String name) {
        for (ReportFormat f : values()) {
            if (f.name().equalsIgnoreCase(name)) {
                return f;
            }
        }
        throw new InputException("unknown format '" + name + "'; expected one of "
                + Arrays.stream(values()).map(f -> f.name().toLowerCase(Locale.ROOT)).collect(Collectors.joining(", ")));
    }
}
