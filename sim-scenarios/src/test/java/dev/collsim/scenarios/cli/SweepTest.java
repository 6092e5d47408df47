package dev.collsim.scenarios.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collsim.scenarios.sweep.Sweep;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Sweeps resume after an interruption without recomputing a point, and shards merge into the whole. */
class SweepTest {
    private static final String SWEEP = """
            version: 1
            name: small
            command: sweep
            sweep:
              command: bench
              axes:
                scale: ["nvlink=0.5", "nvlink=1", "nvlink=2"]
                size: [64K, 1M, 16M, 64M]
            options:
              op: all_reduce
              gpus-per-node: 4
            """;

    private static Sweep sweep(Path dir) throws Exception {
        Path file = dir.resolve("small.yaml");
        Files.writeString(file, SWEEP);
        return new Sweep(Scenarios.load(file));
    }

    private static final class Interrupt extends RuntimeException {
        Interrupt() {
            super("killed", null, false, false);
        }
    }

    @Test
    void anInterruptedSweepResumesWithoutRecomputingAPoint(@TempDir Path dir) throws Exception {
        Sweep s = sweep(dir);
        assertEquals(12, s.size());
        Path whole = dir.resolve("whole");
        s.run(whole, 0, 1, 2, Scenarios::point, (d, t) -> { });

        Path cut = dir.resolve("cut");
        AtomicInteger calls = new AtomicInteger();
        Function<List<String>, dev.collsim.scenarios.sweep.PointResult> dying = args -> {
            if (calls.incrementAndGet() > 5) {
                throw new Interrupt();
            }
            return Scenarios.point(args);
        };
        assertThrows(Interrupt.class, () -> s.run(cut, 0, 1, 1, dying, (d, t) -> { }));
        // The process died while writing the next row: a line cut short.
        Files.writeString(Path.of(cut + ".csv"), "5,nvlink=1,1M,104", java.nio.file.StandardOpenOption.APPEND);
        long written = Files.readAllLines(Path.of(cut + ".jsonl")).size();
        assertEquals(5, written);

        AtomicInteger again = new AtomicInteger();
        int ran = s.run(cut, 0, 1, 2, args -> {
            again.incrementAndGet();
            return Scenarios.point(args);
        }, (d, t) -> { });
        assertEquals(7, ran);
        assertEquals(7, again.get(), "only the points not written run again");
        assertEquals(Files.readString(Path.of(whole + ".csv")), Files.readString(Path.of(cut + ".csv")));
        assertEquals(Files.readString(Path.of(whole + ".jsonl")), Files.readString(Path.of(cut + ".jsonl")));
        assertEquals(0, s.run(cut, 0, 1, 2, args -> { throw new AssertionError("nothing left to run"); }, (d, t) -> { }));
    }

    /**
     * Rows written for one scenario are not resumed under another's point numbering: an axis or an
     * option edited since is refused, with the files untouched; the same scenario goes on.
     */
    /**
     * A decode sweep over the NIC's rate and the system: every what-if knob is an axis of decode as of
     * bench. TP 16 spans two nodes, so the slower NIC slows each system's step.
     */
    @Test
    void aDecodeSweepOverNicRateAndSystemRuns(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("decode-nic.yaml");
        Files.writeString(file, String.join("\n", "version: 1", "name: decode-nic", "command: sweep", "sweep:", "  command: decode",
                "  axes:", "    nic-bw: [100Gb/s, 400Gb/s]", "    system: [hgx-h100, hgx-h200]", "options:", "  model: llama-3-70b",
                "  tp: 16", "  batch: 16", ""));
        String prefix = dir.resolve("out").toString();
        CliRunner r = CliRunner.run("sweep", file.toString(), "--out", prefix);
        assertEquals(0, r.code(), r.err());
        List<String> rows = Files.readAllLines(Path.of(prefix + ".csv"));
        assertEquals(5, rows.size(), String.join("\n", rows));
        List<String> header = List.of(rows.get(0).split(","));
        int comm = header.indexOf("comm_ms");
        int system = header.indexOf("system");
        assertTrue(comm > 0 && system > 0, rows.get(0));
        for (int i = 1; i <= 2; i++) {
            String[] slow = rows.get(i).split(",");
            String[] fast = rows.get(i + 2).split(",");
            assertEquals(slow[system], fast[system]);
            assertTrue(Double.parseDouble(slow[comm]) > Double.parseDouble(fast[comm]), rows.get(i) + " against " + rows.get(i + 2));
        }
    }

    /** Found by EveryCommandPropertyTest: an axis named like a result column (proto) was written once, with the result's value. */
    @Test
    void anAxisNamedLikeAResultKeepsItsValuesBesideWhatRan(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("protos.yaml");
        Files.writeString(file, String.join("\n", "version: 1", "name: protos", "command: sweep", "sweep:", "  command: bench", "  axes:",
                "    size: [64K, 16M]", "    proto: [\"ll,ll128\", simple]", "options:", "  op: reduce_scatter", ""));
        String prefix = dir.resolve("out").toString();
        CliRunner r = CliRunner.run("sweep", file.toString(), "--out", prefix, "--shard", "0/2", "--report", dir.resolve("r.html").toString());
        assertEquals(0, r.code(), r.err());
        List<String> rows = Files.readAllLines(Path.of(prefix + ".csv"));
        assertEquals("point,size,proto,size_bytes,time_us,algbw_GBps,busbw_GBps,algo,proto_chosen,channels,time_us_p99,time_us_ci95,error",
                rows.get(0));
        assertTrue(rows.get(1).startsWith("0,64K,\"ll,ll128\",65536,"), rows.get(1));
        assertTrue(rows.get(2).startsWith("2,16M,\"ll,ll128\",16777216,"), rows.get(2));
        List<String> jsonl = Files.readAllLines(Path.of(prefix + ".jsonl"));
        assertTrue(jsonl.get(0).contains("\"proto\":\"ll,ll128\"") && jsonl.get(0).contains("\"proto_chosen\":\"LL"), jsonl.get(0));
    }

    @Test
    void aScenarioEditedSinceItsResultsIsRefusedNotMixedIn(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("small.yaml");
        Files.writeString(file, SWEEP);
        String prefix = dir.resolve("out").toString();
        CliRunner first = CliRunner.run("sweep", file.toString(), "--out", prefix);
        assertEquals(0, first.code(), first.err());
        String csv = Files.readString(Path.of(prefix + ".csv"));
        for (String edited : List.of(SWEEP.replace("[64K, 1M, 16M, 64M]", "[64K, 4M, 16M, 64M]"),
                SWEEP.replace("op: all_reduce", "op: all_gather"))) {
            Files.writeString(file, edited);
            CliRunner r = CliRunner.run("sweep", file.toString(), "--out", prefix);
            assertEquals(2, r.code(), r.out());
            assertTrue(r.err().contains("holds the results of another sweep"), r.err());
            assertEquals(csv, Files.readString(Path.of(prefix + ".csv")));
        }
        Files.writeString(file, SWEEP);
        CliRunner again = CliRunner.run("sweep", file.toString(), "--out", prefix);
        assertEquals(0, again.code(), again.err());
        assertTrue(again.out().contains(": 0 of 12 points run now"), again.out());
        // Results from before records were kept: their rows' points and axis values are checked.
        Files.delete(Path.of(prefix + ".sweep.json"));
        Files.writeString(file, SWEEP.replace("[64K, 1M, 16M, 64M]", "[64K, 4M, 16M, 64M]"));
        CliRunner legacy = CliRunner.run("sweep", file.toString(), "--out", prefix);
        assertEquals(2, legacy.code(), legacy.out());
        assertTrue(legacy.err().contains("its row 2 is not point 1 of this one"), legacy.err());
    }

    @Test
    void fourShardsMergedEqualTheWholeSweepRowForRow(@TempDir Path dir) throws Exception {
        Sweep s = sweep(dir);
        Path whole = dir.resolve("whole");
        s.run(whole, 0, 1, 2, Scenarios::point, (d, t) -> { });
        for (String ext : List.of(".csv", ".jsonl")) {
            String[] args = new String[4 + 2];
            for (int i = 0; i < 4; i++) {
                Path shard = dir.resolve("shard" + i);
                if (ext.equals(".csv")) {
                    s.run(shard, i, 4, 1, Scenarios::point, (d, t) -> { });
                }
                args[i] = shard + ext;
            }
            args[4] = "-O";
            args[5] = dir.resolve("merged" + ext).toString();
            String[] all = new String[args.length + 1];
            all[0] = "merge";
            System.arraycopy(args, 0, all, 1, args.length);
            CliRunner r = CliRunner.run(all);
            assertEquals(0, r.code(), r.err());
            assertEquals(Files.readString(Path.of(whole + ext)), Files.readString(dir.resolve("merged" + ext)), ext);
        }
    }

    /** Merging some of the shards says how many points are missing, and which shards. */
    @Test
    void aMergeWithAShardLeftOutSaysPointsAreMissing(@TempDir Path dir) throws Exception {
        Sweep s = sweep(dir);
        for (int i = 0; i < 3; i++) {
            s.run(dir.resolve("shard" + i), i, 3, 1, Scenarios::point, (d, t) -> { });
        }
        CliRunner r = CliRunner.run("merge", dir.resolve("shard0.csv").toString(), dir.resolve("shard2.csv").toString(), "-O",
                dir.resolve("m.csv").toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("8 rows from 2 files") && r.out().contains("4 of the sweep's 12 points are missing: shard 1 of 3 not given"), r.out());
        // A shard not finished: its first two rows of four.
        Path shard2 = dir.resolve("shard2.csv");
        Files.write(shard2, Files.readAllLines(shard2).subList(0, 3));
        CliRunner unfinished = CliRunner.run("merge", dir.resolve("shard0.csv").toString(), shard2.toString(), "-O",
                dir.resolve("m.csv").toString());
        assertEquals(0, unfinished.code(), unfinished.err());
        assertTrue(unfinished.out().contains("6 of the sweep's 12 points are missing: shard 1 of 3 not given; " + shard2
                + " has 2 of its 4 points"), unfinished.out());
    }

    /** Shards copied through Windows (CR LF line ends in the rows and the records) merge as they are, row for row. */
    @Test
    void shardsWithWindowsLineEndsMergeRowForRow(@TempDir Path dir) throws Exception {
        Sweep s = sweep(dir);
        Path whole = dir.resolve("whole");
        s.run(whole, 0, 1, 2, Scenarios::point, (d, t) -> { });
        List<String> args = new java.util.ArrayList<>(List.of("merge"));
        for (int i = 0; i < 2; i++) {
            Path shard = dir.resolve("shard" + i);
            s.run(shard, i, 2, 1, Scenarios::point, (d, t) -> { });
            for (String ext : List.of(".csv", ".sweep.json")) {
                Path f = Path.of(shard + ext);
                Files.writeString(f, Files.readString(f).replace("\n", "\r\n"));
            }
            args.add(shard + ".csv");
        }
        args.addAll(List.of("-O", dir.resolve("m.csv").toString()));
        CliRunner r = CliRunner.run(args.toArray(String[]::new));
        assertEquals(0, r.code(), r.err());
        assertEquals("12 rows from 2 files in " + dir.resolve("m.csv") + "\n", r.out().replace("\r\n", "\n"));
        assertEquals(Files.readString(Path.of(whole + ".csv")), Files.readString(dir.resolve("m.csv")));
    }

    @Test
    void theSweepCommandWritesBothFilesAndTheBarCountsPoints(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("small.yaml");
        Files.writeString(file, SWEEP);
        String prefix = dir.resolve("out").toString();
        CliRunner r = CliRunner.run("sweep", file.toString(), "--out", prefix, "--shard", "1/3");
        assertEquals(0, r.code(), r.err());
        assertEquals("", r.err(), "no bar without a terminal");
        // On a terminal: quiet for the first second, then the bar, at most ten times a second, wiped at the end.
        java.io.StringWriter bar = new java.io.StringWriter();
        long[] now = {0};
        ProgressBar progress = new ProgressBar(new java.io.PrintWriter(bar), "sweep", () -> now[0]);
        progress.accept(1, 4);
        assertEquals("", bar.toString(), "a short run shows nothing");
        now[0] = 1500;
        progress.accept(2, 4);
        now[0] = 1550;
        progress.accept(3, 4);
        String line = "sweep [###############               ] 2/4";
        assertEquals("\r" + line, bar.toString(), "drawn once in 100 ms");
        progress.accept(4, 4);
        assertEquals("\r" + line + "\r" + " ".repeat(line.length()) + "\r", bar.toString());
        List<String> rows = Files.readAllLines(Path.of(prefix + ".csv"));
        assertEquals(5, rows.size());
        assertTrue(rows.get(1).startsWith("1,") && rows.get(2).startsWith("4,"), rows.toString());
    }

    /** A sweep's points may be stochastic: the row holds the mean and the tail of the main quantity. */
    @Test
    void replicatedPointsReportTheirTail(@TempDir Path dir) throws Exception {
        Map<String, String> row = firstRow(dir, "decode\n  axes:\n    batch: [8]\noptions:\n"
                + "  model: llama-3-8b\n  tp: 8\n  dp: 9\n  nodes: 9\n  replications: 40\n  straggler: \"1.5\"\n");
        assertTrue(Double.parseDouble(row.get("itl_ms_p99")) > Double.parseDouble(row.get("itl_ms")), row.toString());
    }

    /**
     * A replicated bench point's size comes from its result: the row's size_bytes is the size nccl-tests
     * runs (65536 for 64K), beside the mean time, its P99 and interval.
     */
    @Test
    void aReplicatedBenchPointKeepsItsSize(@TempDir Path dir) throws Exception {
        Map<String, String> row = firstRow(dir, "bench\n  axes:\n    size: [64K]\noptions:\n"
                + "  op: all_reduce\n  replications: 5\n  step-jitter: \"0.2\"\n");
        assertEquals("65536", row.get("size_bytes"));
        assertTrue(Double.parseDouble(row.get("time_us_p99")) >= Double.parseDouble(row.get("time_us")), row.toString());
        assertEquals("", row.get("error"));
    }

    /** A point gives its table to the sweep: asking it for another table or a file is refused, not a silent overwrite. */
    @Test
    void aPointAskingForAnotherTableOrAFileIsRefused(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("bad.yaml");
        Files.writeString(file, "version: 1\ncommand: sweep\nsweep:\n  command: bench\n  axes:\n    size: [1M]\noptions:\n"
                + "  op: all_reduce\n  links: true\n");
        Sweep sweep = new Sweep(Scenarios.load(file));
        dev.collsim.core.input.InputException e = assertThrows(dev.collsim.core.input.InputException.class,
                () -> sweep.run(dir.resolve("bad"), 0, 1, 1, Scenarios::point, (d, t) -> { }));
        assertTrue(e.getMessage().endsWith("point 0: a sweep point gives its table to the sweep; leave out --links, --explain-choice,"
                + " --trace, --measured, --report and --output"), e.getMessage());
    }

    /** Runs a one-point sweep of {@code command} (the scenario text after "command: ") and returns its row by column. */
    private static Map<String, String> firstRow(Path dir, String command) throws Exception {
        Path file = dir.resolve("one.yaml");
        Files.writeString(file, "version: 1\ncommand: sweep\nsweep:\n  command: " + command);
        Path prefix = dir.resolve("one");
        new Sweep(Scenarios.load(file)).run(prefix, 0, 1, 1, Scenarios::point, (d, t) -> { });
        List<String> lines = Files.readAllLines(Path.of(prefix + ".csv"));
        String[] header = lines.get(0).split(",");
        String[] cells = lines.get(1).split(",", -1);
        Map<String, String> row = new java.util.LinkedHashMap<>();
        for (int i = 0; i < header.length; i++) {
            row.put(header[i], cells[i]);
        }
        return row;
    }

    /** Many lines make no chart of lines: with two axes the heat map alone, its cells printing their values. */
    @Test
    void manyLinesBecomeAHeatMapWithValues(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("wide.yaml");
        Files.writeString(file, "version: 1\ncommand: sweep\nsweep:\n  command: bench\n  axes:\n"
                + "    scale: [\"nvlink=0.25\", \"nvlink=0.5\", \"nvlink=0.75\", \"nvlink=1\", \"nvlink=1.5\", \"nvlink=2\", \"nvlink=3\"]\n"
                + "    size: [64K, 1M]\noptions:\n  op: all_reduce\n");
        Path html = dir.resolve("wide.html");
        CliRunner r = CliRunner.run("sweep", file.toString(), "--out", dir.resolve("wide").toString(), "--report", html.toString());
        assertEquals(0, r.code(), r.err());
        String page = Files.readString(html);
        assertTrue(page.contains("\"type\":\"heatmap\"") && page.contains("\"label\":{\"show\":true}"), "a heat map with values");
        assertTrue(!page.contains("\"type\":\"line\""), "seven lines are not drawn under a legend");
        Files.writeString(file, SWEEP);
        CliRunner few = CliRunner.run("sweep", file.toString(), "--out", dir.resolve("few").toString(), "--report", html.toString());
        assertEquals(0, few.code(), few.err());
        assertTrue(Files.readString(html).contains("\"type\":\"line\""), "three lines are");
    }
}
