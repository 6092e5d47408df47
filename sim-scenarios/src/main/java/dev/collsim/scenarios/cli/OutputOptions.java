package dev.collsim.scenarios.cli;

import dev.collsim.reports.AtomicFiles;
import dev.collsim.reports.ReportFormat;
import java.io.PrintWriter;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** {@code --format} and {@code --output}, shared by every command that prints a table. */
final class OutputOptions {
    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "table",
            description = "table, csv, json or markdown (default: ${DEFAULT-VALUE})")
    String format;

    @Option(names = {"-O", "--output"}, paramLabel = "FILE",
            description = "write to FILE (atomically: all or nothing) instead of standard output")
    Path output;

    @Option(names = "--report", paramLabel = "FILE.html",
            description = "also write a self-contained HTML report with charts (opens offline)")
    Path report;

    private boolean reportHandled;

    /** Writes the HTML report if one was asked for (atomically). */
    void writeReport(java.util.function.Supplier<dev.collsim.reports.HtmlReport> build) {
        reportHandled = true;
        if (report != null) {
            writeHtml(report, build);
        }
    }

    /** Writes an HTML report (atomically) to a file that must end in .html. */
    static void writeHtml(Path file, java.util.function.Supplier<dev.collsim.reports.HtmlReport> build) {
        if (!file.toString().endsWith(".html")) {
            throw new dev.collsim.core.input.InputException("--report " + file + ": expected a file ending in .html");
        }
        AtomicFiles.write(file, build.get().render());
    }

    ReportFormat reportFormat() {
        return ReportFormat.fromName(format);
    }

    /** A result that has its own JSON shape: that shape for {@code --format json}, else its table in the format. */
    void emit(Object result, dev.collsim.reports.Table table, PrintWriter out) {
        ReportFormat format = reportFormat();
        emit(format == ReportFormat.JSON ? json(result) : format.render(table), out);
    }

    private static final com.fasterxml.jackson.databind.ObjectWriter JSON =
            new com.fasterxml.jackson.databind.ObjectMapper().writerWithDefaultPrettyPrinter();

    /** Jackson's indented JSON of a record, with a final newline. */
    static String json(Object value) {
        try {
            return JSON.writeValueAsString(value) + "\n";
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    void emit(String text, PrintWriter out) {
        if (report != null && !reportHandled) {
            throw new dev.collsim.core.input.InputException("--report: this run has no HTML report (bench, decode, compare, explain"
                    + " and sweep have one; not with --links, --explain-choice or --replications)");
        }
        if (output == null) {
            out.print(text);
            out.flush();
        } else {
            AtomicFiles.write(output, text);
        }
    }
}
