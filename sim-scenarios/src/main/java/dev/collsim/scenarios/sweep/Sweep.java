package dev.collsim.scenarios.sweep;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.collsim.core.input.InputException;
import dev.collsim.reports.AtomicFiles;
import dev.collsim.reports.PreciseNumbers;
import dev.collsim.scenarios.bench.BenchRow;
import dev.collsim.scenarios.decode.DecodeResult;
import dev.collsim.scenarios.metrics.DecodeMetrics;
import dev.collsim.scenarios.metrics.Metric;
import dev.collsim.scenarios.replications.Replications;
import dev.collsim.scenarios.replications.Summary;
import dev.collsim.scenarios.scenario.Scenario;
import java.io.BufferedWriter;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * Runs every point of a sweep (the product of its axes, the first axis slowest) and appends its row
 * to a CSV file and a JSON Lines file as it goes, in point order, so that:
 * <ul>
 *   <li>an interrupted sweep resumes: rows already written are kept and their points skipped (a last
 *       line cut short is dropped and redone);</li>
 *   <li>{@code --shard i/N} runs the points whose number is i modulo N, for a cluster scheduler's
 *       array jobs, and merging the shards gives the whole sweep's rows, row for row.</li>
 * </ul>
 * Beside the results, {@code PREFIX.sweep.json} records what they are the results of (the command,
 * its options, the axes and the shard): resuming with a scenario edited since is refused rather than
 * mixing rows of two sweeps under one point numbering.
 * A point runs its command in-process and hands back its typed result ({@link PointResult}); a point
 * the command refuses (a layout that does not fit, say) is a row with its error, not the end of the
 * sweep. Numbers go into the rows as the command's CSV and JSON write them ({@link PreciseNumbers}
 * for bench's table, the records' own values for the rest).
 */
public final class Sweep {
    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * The result columns of each command, after {@code point} and the axes. With {@code replications}
     * among the options, the main quantity (bench: the time, decode: the inter-token latency) is the
     * mean over replications, with its P99 and 95 % interval in the last two columns; the columns a
     * stochastic run does not summarise stay empty.
     */
    static final Map<String, List<String>> RESULTS = Map.of(
            "bench", List.of("size_bytes", "time_us", "algbw_GBps", "busbw_GBps", "algo", "proto", "channels", "time_us_p99",
                    "time_us_ci95"),
            "decode", decodeColumns());

    /** The swept decode metrics' keys, then the main one's P99 and interval over replications. */
    private static List<String> decodeColumns() {
        List<String> keys = new ArrayList<>(DecodeMetrics.SWEPT.stream().map(Metric::key).toList());
        keys.add(DecodeMetrics.ITL.key() + "_p99");
        keys.add(DecodeMetrics.ITL.key() + "_ci95");
        return List.copyOf(keys);
    }

    /** Ten days of points at a second each: a larger product of axes is a mistake in the file. */
    public static final int MAX_POINTS = 1_000_000;
    private final Scenario scenario;
    private final List<List<String>> points;

    public Sweep(Scenario scenario) {
        if (!scenario.isSweep()) {
            throw new IllegalArgumentException("not a sweep");
        }
        this.scenario = scenario;
        long count = 1;
        for (List<String> axis : scenario.axes().values()) {
            count = Math.min(Long.MAX_VALUE / 2, count * axis.size());
        }
        if (count > MAX_POINTS) {
            throw new InputException("sweep.axes: " + (count >= Long.MAX_VALUE / 2 ? "too many" : count) + " points ("
                    + scenario.axes().size() + " axes); a sweep runs at most " + MAX_POINTS + ": split it into several files");
        }
        if (scenario.command().equals("bench") && !scenario.axes().containsKey("size") && !scenario.args().contains("-b")) {
            throw new InputException("a bench sweep's point runs one size: give 'size' as an option or an axis");
        }
        this.points = product(new ArrayList<>(scenario.axes().values()));
    }

    public int size() {
        return points.size();
    }

    /** The header: point, the axes, the command's results, error. */
    public List<String> columns() {
        return columns(scenario.command(), scenario.axes().keySet());
    }

    static List<String> columns(String command, Collection<String> axes) {
        List<String> c = new ArrayList<>(List.of("point"));
        c.addAll(axes);
        RESULTS.get(command).forEach(key -> c.add(resultColumn(key, axes)));
        c.add("error");
        return c;
    }

    /**
     * A result's column: its key, or the key with {@code _chosen} where an axis has its name (bench's {@code algo},
     * {@code proto} and {@code channels} swept: the axis holds what the point allowed, the result what ran), so the two
     * are two columns, not one header twice with the axis's value lost under the result's.
     */
    static String resultColumn(String key, Collection<String> axes) {
        return axes.contains(key) ? key + "_chosen" : key;
    }

    private String resultColumn(String key) {
        return resultColumn(key, scenario.axes().keySet());
    }

    /** The command line of point {@code i}. */
    public List<String> args(int i) {
        List<String> args = new ArrayList<>(List.of(scenario.command()));
        args.addAll(scenario.args());
        int k = 0;
        for (String axis : scenario.axes().keySet()) {
            args.addAll(scenario.axisArg(axis, points.get(i).get(k++)));
        }
        args.addAll(List.of("--format", "json"));
        return args;
    }

    /**
     * Runs the shard's points not yet in {@code prefix}.csv / .jsonl, {@code threads} at a time.
     *
     * @param runner   runs a command line in-process: its result, or throws the command's InputException
     * @param progress told (done, total) after each point
     * @return points run now
     */
    public int run(Path prefix, int shard, int shards, int threads, Function<List<String>, PointResult> runner,
                   BiConsumer<Integer, Integer> progress) {
        if (shards < 1 || shard < 0 || shard >= shards) {
            throw new InputException("--shard " + shard + "/" + shards + ": expected i/N with 0 <= i < N");
        }
        Path csv = Path.of(prefix + ".csv");
        Path jsonl = Path.of(prefix + ".jsonl");
        Path record = Path.of(prefix + ".sweep.json");
        String header = String.join(",", columns());
        ResultFile csvBefore = new ResultFile(csv, header);
        ResultFile jsonlBefore = new ResultFile(jsonl, null);
        int doneBefore = Math.min(csvBefore.completeRows(), jsonlBefore.completeRows());
        String what = recordOf(shard, shards);
        if (doneBefore > 0) {
            checkSameSweep(record, what, jsonlBefore, shard, shards, csv);
        }
        AtomicFiles.write(record, what);
        csvBefore.keep(doneBefore);
        jsonlBefore.keep(doneBefore);
        List<Integer> mine = new ArrayList<>();
        for (int i = shard; i < points.size(); i += shards) {
            mine.add(i);
        }
        List<Integer> todo = mine.subList(Math.min(doneBefore, mine.size()), mine.size());
        boolean newFile = !Files.exists(csv) || csv.toFile().length() == 0;
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, threads));
        String firstError = null;
        int failed = 0;
        try (BufferedWriter c = Files.newBufferedWriter(csv, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
             BufferedWriter j = Files.newBufferedWriter(jsonl, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND)) {
            if (newFile) {
                c.write(header + "\n");
                c.flush();
            }
            List<Future<ObjectNode>> futures = new ArrayList<>();
            for (int i : todo) {
                futures.add(pool.submit(() -> row(i, runner)));
            }
            int done = doneBefore;
            for (Future<ObjectNode> f : futures) {
                ObjectNode row = f.get();
                if (!row.get("error").isNull()) {
                    failed++;
                    firstError = firstError == null ? row.get("error").asText() : firstError;
                }
                // One line per point, flushed before the next: an interruption loses at most the points in flight.
                c.write(csvLine(row) + "\n");
                c.flush();
                j.write(JSON.writeValueAsString(row) + "\n");
                j.flush();
                progress.accept(++done, mine.size());
            }
        } catch (IOException e) {
            throw new InputException(prefix + ": cannot write the results (" + e.getMessage() + ")");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
        } finally {
            pool.shutdownNow();
        }
        if (newFile && !todo.isEmpty() && failed == todo.size()) {
            // Every point failed: the options they share are wrong, and a file of error rows helps no one.
            deleteQuietly(csv, jsonl, record);
            throw new InputException("every point failed, e.g. point " + todo.get(0) + ": " + firstError);
        }
        return todo.size();
    }

    /** What the rows of one shard are the results of, as {@code PREFIX.sweep.json} keeps it. */
    private String recordOf(int shard, int shards) {
        return new SweepRecord(scenario.command(), scenario.args(), scenario.axes(), shard, shards).json();
    }

    /**
     * Refuses to go on from rows another sweep wrote: its record differs, or (rows written before
     * records were kept) a row's point or axis values are not this sweep's.
     */
    private void checkSameSweep(Path record, String what, ResultFile jsonl, int shard, int shards, Path csv) {
        String another = csv + " holds the results of another sweep (%s); move them away or choose another --out";
        if (Files.exists(record)) {
            String before;
            try {
                before = Files.readString(record, StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new InputException(record + ": cannot read (" + e.getMessage() + ")");
            }
            if (!before.equals(what)) {
                throw new InputException(String.format(another, record + " names other options, axes or shard"));
            }
            return;
        }
        List<String> rows = jsonl.rows();
        for (int k = 0; k < rows.size(); k++) {
            int i = shard + k * shards;
            JsonNode row;
            try {
                row = JSON.readTree(rows.get(k));
            } catch (IOException e) {
                throw new InputException(String.format(another, "row " + (k + 1) + " is not JSON"));
            }
            boolean same = i < points.size() && row.path("point").asInt(-1) == i;
            int a = 0;
            for (String axis : scenario.axes().keySet()) {
                same &= i < points.size() && points.get(i).get(a++).equals(row.path(axis).asText(null));
            }
            if (!same) {
                throw new InputException(String.format(another, "its row " + (k + 1) + " is not point " + i + " of this one"));
            }
        }
    }

    private static void deleteQuietly(Path... files) {
        for (Path f : files) {
            try {
                Files.deleteIfExists(f);
            } catch (IOException ignored) {
                // the error that brought us here matters more than a leftover file
            }
        }
    }

    /** A point's row: its axes and the command's results, or the error the command gave for it. */
    private ObjectNode row(int i, Function<List<String>, PointResult> runner) {
        ObjectNode row = JSON.createObjectNode();
        row.put("point", i);
        int k = 0;
        for (String axis : scenario.axes().keySet()) {
            row.put(axis, points.get(i).get(k++));
        }
        PointResult result;
        try {
            result = runner.apply(args(i));
        } catch (InputException e) {
            RESULTS.get(scenario.command()).forEach(key -> row.putNull(resultColumn(key)));
            row.put("error", e.getMessage());
            return row;
        }
        if (result instanceof PointResult.Replicated r) {
            return stochasticRow(row, r.result());
        }
        JsonNode values;
        if (result instanceof PointResult.Bench b) {
            if (b.rows().size() != 1) {
                throw new InputException("a bench sweep's point runs one size: give 'size' as an option or an axis");
            }
            values = benchValues(b.rows().get(0));
        } else {
            values = decodeValues(((PointResult.Decode) result).result());
        }
        for (String key : RESULTS.get(scenario.command())) {
            row.set(resultColumn(key), values.get(key));
        }
        row.putNull("error");
        return row;
    }

    /** A decode step's swept metrics under their keys, each number as the kind it is. */
    private static ObjectNode decodeValues(DecodeResult r) {
        ObjectNode v = JSON.createObjectNode();
        for (Metric<DecodeResult> m : DecodeMetrics.SWEPT) {
            v.set(m.key(), JSON.valueToTree(m.of(r)));
        }
        return v;
    }

    /** A bench row's values under the table's column keys, numbers as its CSV and JSON write them. */
    private static ObjectNode benchValues(BenchRow r) {
        ObjectNode v = JSON.createObjectNode();
        v.put("size_bytes", r.sizeBytes());
        v.set("time_us", precise(r.timeMicros()));
        v.set("algbw_GBps", precise(r.algBwGBps()));
        v.set("busbw_GBps", precise(r.busBwGBps()));
        v.put("algo", r.algo());
        v.put("proto", r.proto());
        v.put("channels", r.channels());
        return v;
    }

    private static JsonNode precise(double d) {
        BigDecimal v = PreciseNumbers.of(d);
        return v == null ? JSON.nullNode() : JSON.getNodeFactory().numberNode(v.doubleValue());
    }

    /** A replicated point: each summarised quantity's mean in its column, the main one's P99 and interval too. */
    private ObjectNode stochasticRow(ObjectNode row, Replications.Result result) {
        RESULTS.get(scenario.command()).forEach(key -> row.putNull(resultColumn(key)));
        boolean bench = scenario.command().equals("bench");
        if (bench && result.sizes().size() != 1) {
            throw new InputException("a bench sweep's point runs one size: give 'size' as an option or an axis");
        }
        if (bench) {
            row.put("size_bytes", result.sizes().get(0));
        }
        List<String> names = bench ? Replications.BENCH_QUANTITIES : List.copyOf(result.quantities().keySet());
        List<Summary> summaries = List.copyOf(result.quantities().values());
        for (int q = 0; q < names.size(); q++) {
            String column = resultColumn(names.get(q));
            if (row.has(column)) {
                row.put(column, summaries.get(q).mean());
            }
            if (column.equals(bench ? "time_us" : DecodeMetrics.ITL.key())) {
                row.put(column + "_p99", summaries.get(q).p99());
                row.put(column + "_ci95", summaries.get(q).ci95HalfWidth());
            }
        }
        row.putNull("error");
        return row;
    }

    private String csvLine(ObjectNode row) {
        List<String> cells = new ArrayList<>();
        for (String column : columns()) {
            JsonNode v = row.get(column);
            String text = v == null || v.isNull() ? "" : v.asText();
            cells.add(text.contains(",") || text.contains("\"") ? "\"" + text.replace("\"", "\"\"") + "\"" : text);
        }
        return String.join(",", cells);
    }

    private static List<List<String>> product(List<List<String>> axes) {
        List<List<String>> out = new ArrayList<>();
        out.add(List.of());
        for (List<String> axis : axes) {
            List<List<String>> next = new ArrayList<>();
            for (List<String> prefix : out) {
                for (String v : axis) {
                    List<String> p = new ArrayList<>(prefix);
                    p.add(v);
                    next.add(p);
                }
            }
            out = next;
        }
        return out;
    }

}
