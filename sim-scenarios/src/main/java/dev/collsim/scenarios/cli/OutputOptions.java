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

    ReportFormat reportFormat() {
        return ReportFormat.fromName(format);
    }

    void emit(String text, PrintWriter out) {
        if (output == null) {
            out.print(text);
            out.flush();
        } else {
            AtomicFiles.write(output, text);
        }
    }
}
