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

    /** A 100,000-character value (a pasted list) makes a readable line: its start, its end, and how much is left out. */
    @Test
    void aHugeValueIsCutToOneReadableLine() {
        String values = String.join(",", java.util.stream.IntStream.range(0, 20_000).mapToObj(i -> "sys" + i).toList());
        CliRunner r = CliRunner.run("bench", "all_reduce", "--system", values);
        assertEquals(2, r.code());
        String err = r.err().strip();
        assertTrue(err.length() <= Main.LONGEST_LINE + 100, err.length() + " characters");
        assertTrue(err.startsWith("collsim: unknown system 'sys0,sys1,") && err.contains("characters left out"), err);
        assertTrue(err.endsWith("pcie-2080ti-2x, mi300x-8x, mi325x-8x, mi355x-8x"), "the end kept: " + err);
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
