package dev.collsim.reports;

import dev.collsim.core.input.InputException;
import java.io.IOException;
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

    public static void write(Path target, String content) {
        writeAll(Map.of(target, content));
    }

    /**
     * Writes several files as one: every file's content goes to a temporary file beside it first, and
     * only when all are written do they replace their targets, so a failure (a full disk, a folder that
     * cannot be made) leaves every target as it was.
     */
    public static void writeAll(Map<Path, String> contents) {
        Map<Path, Path> written = new LinkedHashMap<>();
        Path failed = null;
        try {
            for (Map.Entry<Path, String> file : contents.entrySet()) {
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
            for (Path tmp : written.values()) {
                try {
                    Files.deleteIfExists(tmp);
                } catch (IOException ignored) {
                    // the write already failed; that is the error to report
                }
            }
            throw new InputException(failed + ": cannot write (" + e.getMessage() + ")");
        }
    }

    private static Path temporary(Path target, String content) throws IOException {
        Path dir = target.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path tmp = Files.createTempFile(dir, "." + target.getFileName(), ".tmp");
        try {
            Files.writeString(tmp, content, StandardCharsets.UTF_8);
            try {
                // A temporary file is private to its owner; the output is an ordinary file.
                Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-r--r--"));
            } catch (UnsupportedOperationException ignored) {
                // not a POSIX file system: the default permissions stand
            }
            return tmp;
        } catch (IOException e) {
            Files.deleteIfExists(tmp);
            throw e;
        }
    }
}
