package dev.collsim.scenarios.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The error table docs/validation.md publishes is what collsim validate prints today. */
class PublishedTablesTest {
    @Test
    void validationTableMatchesTheDocs() throws Exception {
        CliRunner r = CliRunner.run("validate", "--detail", "--format", "markdown");
        assertEquals(0, r.code(), r.err());
        assertEquals(Files.readString(Path.of("../docs/validation.md")), r.out(),
                "regenerate it: ./collsim validate --detail --format markdown --output docs/validation.md");
    }
}
