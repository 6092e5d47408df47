package dev.collsim.scenarios.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every example under scenarios/ against its golden output (src/test/resources/golden/NAME.txt); the
 * sweep's first of 25 shards. After a deliberate model change, regenerate them with
 * {@code mvn -pl sim-scenarios test -Dtest=GoldenScenariosTest -Dgolden.update=true} and review the diff.
 */
class GoldenScenariosTest {
    @ParameterizedTest
    @ValueSource(strings = {"teaching-ring", "pcie-vs-nvlink-tp", "nvl72-vs-hgx", "rail-whatif-sweep"})
    void exampleMatchesItsGoldenOutput(String name, @TempDir Path dir) throws Exception {
        Path file = Path.of("../scenarios/" + name + ".yaml");
        String actual;
        if (name.endsWith("-sweep")) {
            Path prefix = dir.resolve("out");
            CliRunner r = CliRunner.run("sweep", file.toString(), "--shard", "0/25", "--out", prefix.toString());
            assertEquals(0, r.code(), r.err());
            actual = Files.readString(Path.of(prefix + ".csv"));
        } else {
            CliRunner r = CliRunner.run("run", file.toString());
            assertEquals(0, r.code(), r.err());
            actual = r.out();
        }
        Golden.check(Path.of("src/test/resources/golden/" + name + ".txt"), actual, name);
    }
}
