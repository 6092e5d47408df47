package dev.collsim.scenarios.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Approval tests of what users read: every command of {@code golden/commands.txt} runs through
 * {@link Main} in-process, and its exit code, standard output and standard error must equal
 * {@code golden/commands/NAME.txt} to the byte. A change meant to move numbers re-records them with
 * {@code -Dgolden.update=true} in a commit of its own, so that every moved number is a reviewed diff.
 */
class GoldenCommandsTest {
    private static final Path LIST = Path.of("src/test/resources/golden/commands.txt");
    private static final Path DIR = Path.of("src/test/resources/golden/commands");

    static Stream<Arguments> commands() throws IOException {
        return Files.readAllLines(LIST).stream()
                .filter(l -> !l.isBlank() && !l.startsWith("#"))
                .map(l -> {
                    int bar = l.indexOf('|');
                    if (bar < 0) {
                        throw new IllegalArgumentException(LIST + ": no 'NAME | arguments' in: " + l);
                    }
                    return Arguments.of(l.substring(0, bar).trim(), l.substring(bar + 1).trim());
                });
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("commands")
    void outputMatchesItsGolden(String name, String args) {
        CliRunner r = CliRunner.run(CliRunner.words(args));
        String actual = "exit " + r.code() + "\n--- stdout\n" + r.out() + "--- stderr\n" + r.err();
        Golden.check(DIR.resolve(name + ".txt"), actual, name + " (" + args + ")");
    }
}
