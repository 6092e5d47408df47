package dev.collsim.reports;

import dev.collsim.core.input.InputException;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.Map;

/** Writes output files so that a reader sees the old file or the whole new one, never half of it. */
public final class AtomicFiles {
    private AtomicFiles() {}

    /** A file's content, written as it is made: a large output (a trace of 100,000 requests) never becomes one string. */
    @FunctionalInterface
    public interface Content {
        void writeTo(Writer out) throws IOException;

        static Content of(String text) {
            return out -> out.write(text);
        }
    }

    public static void write(Path target, String content) {
        writeAll(Map.of(target, content));
    }

    public static void writeAll(Map<Path, String> contents) {
        Map<Path, Content> streamed = new LinkedHashMap<>();
        contents.forEach((file, text) -> streamed.put(file, Content.of(text)));
        writeAllStreamed(streamed);
    }

    /**
     * Writes several files as one: every file's content goes to a temporary file beside it first, and
     * only when all are written do they replace their targets, so a failure (a full disk, a folder that
     * cannot be made) leaves every target as it was.
     */
    public static void writeAllStreamed(Map<Path, Content> contents) {
        Map<Path, Path> written = new LinkedHashMap<>();
        Path failed = null;
        try {
            for (Map.Entry<Path, Content> file : contents.entrySet()) {
                failed = file.getKey();
                written.put(file.getKey(), temporary(file.getKey(), file.getValue()));
            }
            for (Map.Entry<Path, Path> file : written.entrySet()) {
                failed = file.getKey();
                try {
                    Files.move(file.getValue(), file.getKey(), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                } catch (AtomicMoveNotSupportedException e) {
                    Files.move(file.getValue(), file.getKey(), StandardCopyOption.REPLACE_EXISTING);
                }
            }
        } catch (IOException e) {
            deleteAll(written.values());
            throw new InputException(failed + ": cannot write (" + e.getMessage() + ")");
        } catch (RuntimeException e) {
            deleteAll(written.values()); // a content that failed while it was written: no target is touched
            throw e;
        }
    }

    private static void deleteAll(Iterable<Path> temporaries) {
        for (Path tmp : temporaries) {
            try {
                Files.deleteIfExists(tmp);
            } catch (IOException ignored) {
                // the write already failed; that is the error to report
            }
        }
    }

    private static Path temporary(Path target, Content content) throws IOException {
        Path dir = target.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path tmp = Files.createTempFile(dir, "." + target.getFileName(), ".tmp");
        try {
            try (Writer out = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
                content.writeTo(out);
            }
            try {
                // A temporary file is private to its owner; the output is an ordinary file.
                Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-r--r--"));
            } catch (UnsupportedOperationException ignored) {
                // not a POSIX file system: the default permissions stand
            }
            return tmp;
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(tmp);
            throw e;
        }
    }
}
