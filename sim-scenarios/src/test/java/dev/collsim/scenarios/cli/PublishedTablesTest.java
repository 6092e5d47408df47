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

    /** A user's own nccl-tests log joins the table as a data set, run on the system the options name. */
    @Test
    void aLogGivenIsADataSet() {
        CliRunner r = CliRunner.run("validate", "src/test/resources/logs/all_reduce_perf.txt", "-g", "8", "--algo", "ring", "--format", "csv");
        assertEquals(0, r.code(), r.err());
        String row = r.out().lines().filter(l -> l.startsWith("all_reduce_perf.txt,")).findFirst().orElseThrow();
        String[] c = row.split(",");
        assertEquals("4", c[2], row);
        org.junit.jupiter.api.Assertions.assertTrue(Double.parseDouble(c[5]) < 20, "max error " + row);
    }
}
