package dev.collsim.scenarios.sweep;

import dev.collsim.core.input.InputException;
import dev.collsim.reports.AtomicFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** A sweep's result file (CSV with a header, or JSON Lines): what an earlier run left in it, read once. */
final class ResultFile {
    private final Path file;
    private final String header;
    /** The lines that end in a newline; a line cut short after them is not among them. */
    private final List<String> complete;
    private final boolean cutShort;

    /** @param header the CSV header, or null for JSON Lines */
    ResultFile(Path file, String header) {
        this.file = file;
        this.header = header;
        String text = "";
        if (Files.exists(file)) {
            try {
                text = Files.readString(file, StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new InputException(file + ": cannot read (" + e.getMessage() + ")");
            }
        }
        complete = new ArrayList<>(List.of(text.split("\n", -1)));
        complete.remove(complete.size() - 1); // after the last newline: empty, or a line cut short
        cutShort = !text.isEmpty() && !text.endsWith("\n");
        if (header != null && !complete.isEmpty() && !complete.get(0).equals(header)) {
            throw new InputException(file + ":1: written by another sweep (its columns differ); move it away or choose another --out");
        }
    }

    /** Complete rows in the file, after the header if any; 0 if there is no file. */
    int completeRows() {
        return header == null || complete.isEmpty() ? complete.size() : complete.size() - 1;
    }

    /** The complete rows, after the header if any. */
    List<String> rows() {
        return header == null || complete.isEmpty() ? complete : complete.subList(1, complete.size());
    }

    /** Keeps the header and the first {@code rows} rows, dropping the rest (a line cut short, or rows the other file lacks). */
    void keep(int rows) {
        int keep = rows + (header == null || complete.isEmpty() ? 0 : 1);
        if (complete.size() == keep && !cutShort) {
            return;
        }
        AtomicFiles.write(file, keep == 0 ? "" : String.join("\n", complete.subList(0, keep)) + "\n");
    }
}
