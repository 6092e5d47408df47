package dev.collsim.scenarios.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Identical inputs and seed give byte-identical outputs: across runs, and across 1 and 2 threads where a
 * command runs its work in parallel (sweep points, compare's layouts). Every output file is compared,
 * the HTML reports and traces too.
 */
class DeterminismTest {
    private static final String SWEEP = """
            version: 1
            name: det
            command: sweep
            sweep:
              command: decode
              axes:
                batch: [1, 8, 32]
                allreduce: [nccl, twoshot]
            options:
              model: llama-3-8b
              tp: 4
              gpus-per-node: 4
              replications: 3
              launch-jitter: 0.1
              seed: 7
            """;

    /**
     * Runs a command whose output files land in {@code dir}; returns stdout (with {@code dir} itself, which
     * it may name, written DIR) followed by every file's name and bytes.
     */
    private static List<byte[]> outputs(Path dir, String... args) throws Exception {
        CliRunner r = CliRunner.run(args);
        assertEquals(0, r.code(), r.err());
        List<byte[]> out = new ArrayList<>(List.of(r.out().replace(dir.toString(), "DIR").getBytes()));
        try (var files = Files.list(dir)) {
            for (Path f : files.sorted().toList()) {
                out.add(f.getFileName().toString().getBytes());
                out.add(Files.readAllBytes(f));
            }
        }
        assertTrue(out.size() > 1, "the run wrote files to compare");
        return out;
    }

    private static void assertSame(List<byte[]> a, List<byte[]> b) {
        assertEquals(a.size(), b.size());
        for (int i = 0; i < a.size(); i++) {
            assertArrayEquals(a.get(i), b.get(i), "output " + i + " differs");
        }
    }

    @Test
    void aSweepIsTheSameOnOneAndTwoThreads(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("det.yaml");
        Files.writeString(file, SWEEP);
        Path one = Files.createDirectory(dir.resolve("one"));
        Path two = Files.createDirectory(dir.resolve("two"));
        List<byte[]> a = outputs(one, "sweep", file.toString(), "--threads", "1", "--out", one.resolve("r").toString(),
                "--report", one.resolve("r.html").toString());
        List<byte[]> b = outputs(two, "sweep", file.toString(), "--threads", "2", "--out", two.resolve("r").toString(),
                "--report", two.resolve("r.html").toString());
        assertSame(a, b);
    }

    @Test
    void compareIsTheSameOnOneAndTwoThreads(@TempDir Path dir) throws Exception {
        Path one = Files.createDirectory(dir.resolve("one"));
        Path two = Files.createDirectory(dir.resolve("two"));
        String[] common = {"compare", "--model", "llama-3-8b", "--system", "hgx-h100", "--system", "pcie-l40s-8x", "--gpus", "8",
            "--itl-slo", "30ms", "--format", "json"};
        List<String> a = new ArrayList<>(List.of(common));
        a.addAll(List.of("--threads", "1", "--report", one.resolve("c.html").toString()));
        List<String> b = new ArrayList<>(List.of(common));
        b.addAll(List.of("--threads", "2", "--report", two.resolve("c.html").toString()));
        assertSame(outputs(one, a.toArray(String[]::new)), outputs(two, b.toArray(String[]::new)));
    }

    @Test
    void stochasticBenchAndDecodeRepeatByteForByte(@TempDir Path dir) throws Exception {
        for (String[] args : List.of(
                new String[] {"bench", "all_reduce", "--nodes", "2", "-b", "1M", "-e", "16M", "-f", "4", "--replications", "5",
                    "--seed", "11", "--step-jitter", "0.2", "--outage", "random-nic@10us+20us", "--format", "json"},
                new String[] {"decode", "--model", "mixtral-8x7b", "--tp", "2", "--ep", "8", "--dp", "4", "--batch", "16",
                    "--replications", "5", "--seed", "3", "--straggler", "1.3", "--format", "json"},
                new String[] {"decode", "--model", "llama-3-8b", "--tp", "8", "--overlap", "fused", "--batch", "8"})) {
            Path one = Files.createDirectory(dir.resolve("a" + args.length + args[0]));
            Path two = Files.createDirectory(dir.resolve("b" + args.length + args[0]));
            List<String> a = new ArrayList<>(List.of(args));
            List<String> b = new ArrayList<>(List.of(args));
            if (args[0].equals("decode") && !List.of(args).contains("--replications")) {
                a.addAll(List.of("--trace", one.resolve("t.json").toString(), "--report", one.resolve("t.html").toString()));
                b.addAll(List.of("--trace", two.resolve("t.json").toString(), "--report", two.resolve("t.html").toString()));
            } else {
                a.addAll(List.of("--output", one.resolve("o.json").toString()));
                b.addAll(List.of("--output", two.resolve("o.json").toString()));
            }
            assertSame(outputs(one, a.toArray(String[]::new)), outputs(two, b.toArray(String[]::new)));
        }
    }
}
