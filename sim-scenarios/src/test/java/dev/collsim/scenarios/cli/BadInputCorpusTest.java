package dev.collsim.scenarios.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The bad-input corpus (test resources, bad-input/cases.txt, and sim-topologies' bad topology files):
 * every case ends with one line on standard error naming the input, where and what is wrong, exit
 * code 2, nothing on standard output, no stack trace and no file left behind.
 */
class BadInputCorpusTest {
    static final Path CORPUS = Path.of("src", "test", "resources", "bad-input");
    static final Path BAD_TOPOLOGIES = Path.of("..", "sim-topologies", "src", "test", "resources", "topology", "bad");
    static final int AT_LEAST = 200;

    record Case(String args, String expected) {
        @Override
        public String toString() {
            return args;
        }
    }

    static List<Case> cases() {
        List<Case> cases = new ArrayList<>();
        try {
            for (String line : Files.readAllLines(CORPUS.resolve("cases.txt"))) {
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                int bar = line.indexOf(" | ");
                assertTrue(bar > 0, "cases.txt: expected 'ARGS | EXPECTED' in: " + line);
                cases.add(new Case(line.substring(0, bar).strip(), line.substring(bar + 3).strip()));
            }
            try (Stream<Path> files = Files.list(BAD_TOPOLOGIES)) {
                for (Path file : files.sorted().toList()) {
                    String expected = Files.readAllLines(file).get(0).replaceFirst("^# expect: ", "");
                    cases.add(new Case("topo validate " + file, expected));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return cases;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void everyCaseIsOneLineWithExitCode2AndLeavesNothingBehind(Case c, @TempDir Path out) throws IOException {
        String[] args = CliRunner.words(c.args().replace("{corpus}", CORPUS.toString()).replace("{out}", out.toString()));
        CliRunner r = CliRunner.run(args);
        String err = r.err().strip();
        assertEquals(2, r.code(), err);
        assertEquals("", r.out(), "nothing on stdout");
        assertFalse(err.contains("\n"), "one line: " + err);
        assertTrue(err.startsWith("collsim: "), err);
        String expected = c.expected().replace("{corpus}", CORPUS.toString());
        assertTrue(err.contains(expected), "expected '" + expected + "' in: " + err);
        assertFalse(err.contains("Exception") || err.contains("\tat "), err);
        try (Stream<Path> left = Files.list(out)) {
            assertEquals(List.of(), left.toList(), "files left behind");
        }
    }

    /** A shard's record (PREFIX.sweep.json) is used by the cases that name its PREFIX.csv or PREFIX.jsonl. */
    @Test
    void theCorpusHoldsAtLeast200CasesAndNoUnusedFile() throws IOException {
        List<Case> cases = cases();
        assertTrue(cases.size() >= AT_LEAST, "the corpus holds " + cases.size() + " cases, fewer than " + AT_LEAST);
        assertEquals(cases.size(), new TreeSet<>(cases.stream().map(Case::args).toList()).size(), "a case is repeated");
        Set<String> unused = new TreeSet<>();
        try (Stream<Path> files = Files.walk(CORPUS)) {
            files.filter(Files::isRegularFile).map(p -> CORPUS.relativize(p).toString().replace('\\', '/'))
                    .filter(name -> !name.equals("cases.txt"))
                    .filter(name -> cases.stream().noneMatch(c -> c.args().contains("{corpus}/" + name)
                            || name.endsWith(".sweep.json") && c.args().contains("{corpus}/" + name.replace(".sweep.json", "."))))
                    .forEach(unused::add);
        }
        assertEquals(Set.of(), unused, "files in bad-input/ that no case uses");
    }
}
