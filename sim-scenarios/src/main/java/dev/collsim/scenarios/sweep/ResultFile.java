package dev.collsim.scenarios.sweep;

import dev.collsim.core.input.InputException;
import dev.collsim.reports.AtomicFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** A sweep's result file (CSV with a header, or JSON Lines): what an earlier run left in it. */
final class ResultFile {
    private ResultFile() {}

    /** Complete rows in the file (lines ending in a newline, after the header if any); 0 if there is no file. */
    static int completeRows(Path file, String header) {
        List<String> lines = completeLines(file);
        if (header == null || lines.isEmpty()) {
            return lines.size();
        }
        if (!lines.get(0).equals(header)) {
            throw new InputException(file + ":1: written by another sweep (its columns differ); move it away or choose another --out");
        }
        return lines.size() - 1;
    }

    /** Keeps the header and the first {@code rows} rows, dropping the rest (a line cut short, or rows the other file lacks). */
    static void keep(Path file, String header, int rows) {
        List<String> lines = completeLines(file);
        int keep = rows + (header == null || lines.isEmpty() ? 0 : 1);
        if (lines.size() == keep && endsWithNewlineOrEmpty(file)) {
            return;
        }
        AtomicFiles.write(file, lines.isEmpty() ? "" : String.join("\n", lines.subList(0, keep)) + (keep == 0 ? "" : "\n"));
    }

    private static List<String> completeLines(Path file) {
        if (!Files.exists(file)) {
            return List.of();
        }
        try {
            String text = Files.readString(file, StandardCharsets.UTF_8);
            List<String> lines = new ArrayList<>(List.of(text.split("\n", -1)));
            lines.remove(lines.size() - 1); // after the last newline: empty, or a line cut short
            return lines;
        } catch (IOException e) {
            throw new InputException(file + ": cannot read (" + e.getMessage() + ")");
        }
    }

    private static boolean endsWithNewlineOrEmpty(Path file) {
        try {
            return !Files.exists(file) || Files.size(file) == 0 || Files.readString(file, StandardCharsets.UTF_8).endsWith("\n");
        } catch (IOException e) {
            throw new InputException(file + ": cannot read (" + e.getMessage() + ")");
        }
    }
}
