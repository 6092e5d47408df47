package dev.collsim.scenarios.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * An approval check: {@code actual} must equal the file to the byte. With {@code -Dgolden.update=true}
 * the file is written first, so that a change meant to move outputs re-records them for review.
 */
final class Golden {
    private Golden() {}

    static void check(Path golden, String actual, String what) {
        try {
            if (Boolean.getBoolean("golden.update")) {
                Files.writeString(golden, actual);
            }
            assertEquals(Files.readString(golden), actual, what + " differs from " + golden);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
