package dev.collsim.scenarios.cli;

import dev.collsim.core.input.InputException;
import dev.collsim.reports.HtmlReport;
import java.nio.file.Path;
import java.util.function.Supplier;
import picocli.CommandLine.Option;

/** {@code --format}, {@code --output} and {@code --report}, for the commands whose runs have an HTML report. */
final class ReportOptions extends OutputOptions {
    @OutputFile(endings = ".html")
    @Option(names = "--report", paramLabel = "FILE.html",
            description = "also write a self-contained HTML report with charts (opens offline)")
    Path report;

    private boolean reportHandled;

    /** When a command's runs have no report, in words, for the error that refuses --report. */
    String withoutReport = "not with --links, --explain-choice or --replications";

    /** Writes the HTML report if one was asked for (atomically). */
    void writeReport(Supplier<HtmlReport> build) {
        reportHandled = true;
        if (report != null) {
            writeHtml(report, build);
        }
    }

    /** Writes an HTML report (atomically) to a file that must end in .html. */
    static void writeHtml(Path file, Supplier<HtmlReport> build) {
        RunFiles.current().write(file, build.get().render());
    }

    @Override
    void beforeEmit() {
        if (report != null && !reportHandled) {
            throw new InputException("--report: this run has no HTML report (" + withoutReport + ")");
        }
    }
}
