package dev.collsim.scenarios.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Scenario files: strict, each error one line with the file and the line. */
class ScenarioFileTest {
    @ParameterizedTest(name = "{1}")
    @CsvSource(delimiter = '|', value = {
        "version: 2\\ncommand: bench                                   | :1: version: version 2 is not supported",
        "version: 1\\ncommand: train                                   | :2: command: unknown command 'train'",
        "version: 1\\ncommand: bench\\nopts: {}                        | :3: opts: unknown field",
        "version: 1\\ncommand: bench\\noptions:\\n  warp: 9            | :4: options.warp: unknown option for bench",
        "version: 1\\ncommand: decode\\noptions:\\n  model: x\\n  model: y | :5: ",
        "version: 1\\ncommand: bench\\nsweep: {command: bench, axes: {size: [1M]}} | :3: sweep: only a sweep has axes",
        "version: 1\\ncommand: sweep\\nsweep: {command: compare, axes: {gpus: [8]}} | :3: sweep.command: a sweep's points run bench or decode",
        "version: 1\\ncommand: sweep\\nsweep: {command: bench, axes: {size: []}} | :3: sweep.axes.size: an axis needs at least one value",
        "version: 1\\ncommand: sweep\\nsweep: {command: bench, axes: {size: 1M}} | :3: sweep.axes.size: expected a list",
        "version: 1\\ncommand: [bench                                  | : not valid YAML or JSON",
        "''                                                               | :1: empty file",
    })
    void badScenariosAreOneLineWithFileAndLine(String text, String expected, @TempDir Path dir) throws Exception {
        Path file = dir.resolve("bad.yaml");
        Files.writeString(file, text.replace("\\n", "\n").replace("''", ""));
        CliRunner r = CliRunner.run("run", file.toString());
        assertEquals(2, r.code(), r.out());
        assertTrue(r.err().startsWith("collsim: " + file) && r.err().contains(expected) && r.err().lines().count() == 1, r.err());
    }

    @Test
    void aScenarioRunsAsItsCommandLine(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("b.yaml");
        Files.writeString(file, "version: 1\ncommand: bench\noptions:\n  op: all_reduce\n  size: 1M\n  gpus-per-node: 4\n  format: csv\n");
        CliRunner fromFile = CliRunner.run("run", file.toString());
        CliRunner direct = CliRunner.run("bench", "all_reduce", "-b", "1M", "-e", "1M", "--gpus-per-node", "4", "--format", "csv");
        assertEquals(0, fromFile.code(), fromFile.err());
        assertEquals(direct.out(), fromFile.out());
    }

    /**
     * True and false mean what they say: a switch ({@code force}) is present or absent; an option
     * that takes on or off gets the value (YAML's false once dropped {@code --nvls}, so NVLS ran).
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "nvls: false | --nvls off",
        "nvls: true  | --nvls on",
        "force: true | --force",
        "force: false | ''",
    })
    void trueAndFalseInAFileAreWhatTheCommandLineMeans(String option, String flags, @TempDir Path dir) throws Exception {
        Path file = dir.resolve("b.yaml");
        Files.writeString(file, "version: 1\ncommand: bench\noptions:\n  op: all_reduce\n  size: 64M\n  format: csv\n  " + option + "\n");
        List<String> direct = new java.util.ArrayList<>(List.of("bench", "all_reduce", "-b", "64M", "-e", "64M", "--format", "csv"));
        if (!flags.isEmpty()) {
            direct.addAll(List.of(flags.split(" ")));
        }
        CliRunner fromFile = CliRunner.run("run", file.toString());
        assertEquals(0, fromFile.code(), fromFile.err());
        assertEquals(CliRunner.run(direct.toArray(String[]::new)).out(), fromFile.out());
    }

    @Test
    void nvlsOffInAFileRunsAnotherAlgorithm(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("b.yaml");
        Files.writeString(file, "version: 1\ncommand: bench\noptions:\n  op: all_reduce\n  size: 64M\n  format: csv\n  nvls: false\n");
        CliRunner r = CliRunner.run("run", file.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(!r.out().contains("NVLS") && r.out().contains("Ring"), r.out());
    }
}
