package dev.collsim.topologies.file;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.core.input.InputException;
import dev.collsim.core.nccl.Communicator;
import dev.collsim.core.nccl.LinkType;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class TopologyFileTest {
    static Stream<Path> badFiles() throws IOException, URISyntaxException {
        Path dir = Path.of(TopologyFileTest.class.getResource("/topology/bad").toURI());
        List<Path> files;
        try (Stream<Path> s = Files.list(dir)) {
            files = s.sorted().toList();
        }
        assertTrue(files.size() >= 30, "the corpus holds at least 30 bad files, not " + files.size());
        return files.stream();
    }

    /** Every bad file: one line naming the file, the line and the problem its first comment expects. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("badFiles")
    void everyBadFileGetsAOneLineErrorWithFileAndLine(Path file) throws IOException {
        String expected = Files.readAllLines(file).get(0).replaceFirst("^# expect: ", "");
        InputException e = assertThrows(InputException.class, () -> TopologyFile.load(file));
        String message = e.getMessage();
        assertFalse(message.contains("\n"), message);
        assertTrue(message.matches(java.util.regex.Pattern.quote(file.toString()) + ":\\d+: .*"), "file and line: " + message);
        assertTrue(message.contains(expected), "expected '" + expected + "' in: " + message);
    }

    private static Path example(String name) {
        Path p = Path.of("..", "topologies", name);
        assertTrue(Files.exists(p), p.toAbsolutePath().toString());
        return p;
    }

    @Test
    void theHgxExampleIsTheSameNodeAsThePreset() {
        Communicator c = TopologyFile.load(example("hgx-h100.yaml"));
        assertEquals(8, c.nRanks());
        assertEquals(LinkType.NVLINK, c.nccl().intraLink());
        assertEquals(24, c.nccl().ring().channels());
        assertEquals(16, c.nccl().nvlsGraph().channels());
    }

    @Test
    void theSeedsFourGpuBoxIsPciBetweenPairs() {
        Communicator c = TopologyFile.load(example("nvlink-pairs-4gpu.yaml"));
        assertEquals(4, c.nRanks());
        assertEquals(3, c.fabric().router().route(c.placement().devices()[1], c.placement().devices()[2]).links().length, "GPU1 -> CPU0 -> CPU1 -> GPU2");
        assertEquals(1, c.fabric().router().route(c.placement().devices()[0], c.placement().devices()[1]).links().length, "the NVLink pair");
        assertTrue(c.nccl().nvlsGraph() == null);
        assertEquals(LinkType.PCI, c.nccl().intraLink(), "NCCL sees PCI: not every pair is on NVLink");
    }
}
