package dev.collsim.scenarios.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The error tables docs/validation.md publishes are what collsim validate prints today, nccl-tests runs then decode steps,
 * then the serving runs (every run of the serving calibration simulated request by request: about half a minute), then the
 * kernels against the measured kernel tables.
 */
class PublishedTablesTest {
    @Test
    void validationTableMatchesTheDocs() throws Exception {
        CliRunner nccl = CliRunner.run("validate", "--detail", "--format", "markdown");
        assertEquals(0, nccl.code(), nccl.err());
        CliRunner decode = CliRunner.run("validate", "--decode", "--format", "markdown");
        assertEquals(0, decode.code(), decode.err());
        CliRunner serving = CliRunner.run("validate", "--serving", "--format", "markdown");
        assertEquals(0, serving.code(), serving.err());
        assertTrue(serving.out().startsWith(ValidateCommand.SERVING_MARKDOWN), "the serving section opens with its prose");
        CliRunner kernels = CliRunner.run("validate", "--kernels", "--format", "markdown");
        assertEquals(0, kernels.code(), kernels.err());
        assertEquals(Files.readString(Path.of("../docs/validation.md")), nccl.out() + "\n" + decode.out() + "\n" + serving.out() + "\n" + kernels.out(),
                "regenerate it: " + ValidateCommand.REGENERATE);
    }

    /** A user's own nccl-tests log joins the table as a data set, run on the system the options name. */
    @Test
    void aLogGivenIsADataSet() {
        CliRunner r = CliRunner.run("validate", "src/test/resources/logs/all_reduce_perf.txt", "-g", "8", "--algo", "ring", "--format", "csv");
        assertEquals(0, r.code(), r.err());
        java.util.List<String> header = java.util.List.of(r.out().lines().findFirst().orElseThrow().split(","));
        String row = r.out().lines().filter(l -> l.startsWith("all_reduce_perf.txt,")).findFirst().orElseThrow();
        String[] c = row.split(",");
        assertEquals("4", c[header.indexOf("rows")], row);
        org.junit.jupiter.api.Assertions.assertTrue(Double.parseDouble(c[header.indexOf("max_abs_err_pct")]) < 20, "max error " + row);
    }
}
