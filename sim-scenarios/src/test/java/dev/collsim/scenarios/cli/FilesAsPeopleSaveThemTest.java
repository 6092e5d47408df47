package dev.collsim.scenarios.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A byte-order mark and Windows line ends read as the plain file, whatever reads it (issue #40 item 4). */
class FilesAsPeopleSaveThemTest {
    @TempDir
    Path dir;

    /** The file as Excel or a Windows editor saves it: a byte-order mark, then CR LF line ends. */
    private Path windows(Path plain) throws IOException {
        String text = Files.readString(plain, StandardCharsets.UTF_8);
        Path out = dir.resolve(plain.getFileName());
        Files.writeString(out, "\uFEFF" + text.replace("\n", "\r\n"), StandardCharsets.UTF_8);
        return out;
    }

    private static void sameAs(String[] plain, String[] saved) {
        CliRunner a = CliRunner.run(plain);
        CliRunner b = CliRunner.run(saved);
        assertEquals(0, a.code(), a.err());
        assertEquals(a.code(), b.code(), b.err());
        assertEquals(a.out().replace(plain[plain.length - 1], ""), b.out().replace(saved[saved.length - 1], ""));
    }

    @Test
    void nvidiaSmiTopoMatrix() throws IOException {
        Path plain = Path.of("../topologies/seeds-4gpu.topo-m.txt");
        sameAs(new String[] {"topo", "import", plain.toString()}, new String[] {"topo", "import", windows(plain).toString()});
    }

    @Test
    void ncclTestsLogToCalibrate() throws IOException {
        Path plain = Path.of("src/test/resources/logs/all_reduce_perf.txt");
        sameAs(new String[] {"calibrate", "-g", "8", plain.toString()}, new String[] {"calibrate", "-g", "8", windows(plain).toString()});
    }

    @Test
    void topologyYaml() throws IOException {
        Path plain = Path.of("../topologies/hgx-h100.yaml");
        sameAs(new String[] {"bench", "all_reduce", "-b", "1M", "-e", "1M", "--topology", plain.toString()},
                new String[] {"bench", "all_reduce", "-b", "1M", "-e", "1M", "--topology", windows(plain).toString()});
    }

    /** A config.json saved with a byte-order mark loads as the plain file (it had been refused as "not valid JSON"). */
    @Test
    void modelConfigWithAByteOrderMark() {
        Path bom = Path.of("src/test/resources/saved-files/llama-config-with-bom.json");
        CliRunner r = CliRunner.run("decode", "--model", bom.toString(), "--tp", "2");
        assertEquals(0, r.code(), r.err());
    }
}
