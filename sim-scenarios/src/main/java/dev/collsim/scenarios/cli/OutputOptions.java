package dev.collsim.scenarios.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.collsim.reports.ReportFormat;
import dev.collsim.reports.Table;
import dev.collsim.scenarios.views.Json;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.function.Supplier;
import picocli.CommandLine.Option;

/** {@code --format} and {@code --output}, shared by every command that prints a table. */
class OutputOptions {
    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "table",
            description = "table, csv, json or markdown (default: ${DEFAULT-VALUE})")
    String format;

    @OutputFile
    @Option(names = {"-O", "--output"}, paramLabel = "FILE",
            description = "write to FILE (atomically: all or nothing) instead of standard output")
    Path output;

    ReportFormat reportFormat() {
        return ReportFormat.fromName(format);
    }

    /** A result that has its own JSON shape (built by a view): that shape for {@code --format json}, else its table in the format. */
    void emit(Supplier<JsonNode> json, Table table, PrintWriter out) {
        ReportFormat format = reportFormat();
        emit(format == ReportFormat.JSON ? Json.pretty(json.get()) : format.render(table), out);
    }

    /**
     * One result (a step, a prefill): its JSON for {@code --format json}, the JSON's numbers as one
     * row under its own keys for {@code csv}, so the headline numbers travel with the names scripts
     * know; its table for the formats people read.
     */
    void emitResult(Supplier<JsonNode> json, Table table, PrintWriter out) {
        ReportFormat format = reportFormat();
        emit(format == ReportFormat.CSV ? format.render(Json.row(table.title(), json.get())) : format == ReportFormat.JSON
                ? Json.pretty(json.get()) : format.render(table), out);
    }

    void emit(String text, PrintWriter out) {
        beforeEmit();
        if (output == null) {
            out.print(text);
            out.flush();
        } else {
            RunFiles.current().write(output, text);
        }
    }

    /** Called before the output is written: a last check of the options. */
    void beforeEmit() {}
}
