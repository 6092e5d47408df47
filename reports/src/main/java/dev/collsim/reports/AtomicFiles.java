package dev.collsim.reports;

import dev.collsim.core.input.InputException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;

/** Writes output files so that a reader sees the old file or the whole new one, never half of it. */
public final class AtomicFiles {
    private AtomicFiles() {}

    public static void write(Path target, String content) {
        Path dir = target.toAbsolutePath().getParent();
        Path tmp = null;
        try {
            Files.createDirectories(dir);
            tmp = Files.createTempFile(dir, "." + target.getFileName(), ".tmp");
            Files.writeString(tmp, content, StandardCharsets.UTF_8);
            try {
                // A temporary file is private to its owner; the output is an ordinary file.
                Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-r--r--"));
            } catch (UnsupportedOperationException ignored) {
                // not a POSIX file system: the default permissions stand
            }
            try {
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            if (tmp != null) {
                try {
                    Files.deleteIfExists(tmp);
                } catch (IOException ignored) {
                    // the write already failed; that is the error to report
                }
            }
            throw new InputException(target + ": cannot write (" + e.getMessage() + ")");
        }
    }
}
