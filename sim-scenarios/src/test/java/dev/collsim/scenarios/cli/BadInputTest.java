package dev.collsim.scenarios.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.Test;

/** Bad input beyond the corpus (BadInputCorpusTest): files written on the fly, and nothing left behind. */
class BadInputTest {
    @Test
    void malformedCalibrationFileNamesFileAndLine(@TempDir Path dir) throws Exception {
        Path csv = dir.resolve("bad.csv");
        Files.writeString(csv, "dataset_id,op,dtype,size_bytes,time_us\nX,all_reduce,float,12ab,3.0\n");
        CliRunner r = CliRunner.run("validate", "--calibration", csv.toString());
        assertEquals(2, r.code());
        assertTrue(r.err().contains(csv + ": line 2: size_bytes '12ab'"), r.err());
    }

    @Test
    void failedOutputLeavesNoFileBehind(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("table.csv");
        CliRunner r = CliRunner.run("bench", "all_reduce", "-b", "1X", "--format", "csv", "--output", out.toString());
        assertEquals(2, r.code());
        assertFalse(Files.exists(out));
        try (var files = Files.list(dir)) {
            assertEquals(0, files.count(), "no temporary file either");
        }
    }
}
