package dev.collsim.scenarios.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A run's files: all of a good run's outputs are written, a failed run changes no file, and no name
 * of an input (a link to it included) can be an output. The refusals themselves are cases of the
 * bad-input corpus.
 */
class RunFilesTest {
    @TempDir
    Path dir;

    @Test
    void aGoodRunWritesEveryOutputItWasGiven() throws IOException {
        CliRunner r = CliRunner.run("bench", "all_reduce", "-b", "1M", "-e", "1M", "-O", dir.resolve("table.txt").toString(),
                "--trace", dir.resolve("deep/trace.json").toString(), "--report", dir.resolve("report.html").toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(Files.readString(dir.resolve("table.txt")).contains("all_reduce"));
        assertTrue(Files.readString(dir.resolve("deep/trace.json")).startsWith("{"));
        assertTrue(Files.readString(dir.resolve("report.html")).contains("<html"));
        assertEquals(List.of("deep", "report.html", "table.txt"), names(dir), "no temporary file left");
    }

    @Test
    void aRunThatFailsLeavesAnEarlierOutputAsItWas() throws IOException {
        Path trace = Files.writeString(dir.resolve("trace.json"), "yesterday's trace");
        CliRunner r = CliRunner.run("decode", "--model", "llama-3-8b", "--tp", "8", "--trace", trace.toString(), "--format", "xml");
        assertEquals(2, r.code());
        assertEquals("yesterday's trace", Files.readString(trace));
        assertEquals(List.of("trace.json"), names(dir));
    }

    @Test
    void anOutputThroughALinkToAnInputIsTheInput() throws IOException {
        Path log = Files.copy(Path.of("src/test/resources/logs/all_reduce_perf.txt"), dir.resolve("log.txt"));
        Path link = Files.createSymbolicLink(dir.resolve("same.txt"), log);
        String before = Files.readString(log);
        CliRunner r = CliRunner.run("bench", "all_reduce", "--measured", log.toString(), "-O", link.toString());
        assertEquals(2, r.code());
        assertTrue(r.err().contains("that is the input --measured " + log), r.err());
        assertEquals(before, Files.readString(log));
    }

    private static List<String> names(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }
}
