package dev.collsim.scenarios.sweep;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvParser;
import dev.collsim.core.input.InputException;
import dev.collsim.core.input.TextFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Joins the result files of a sweep's shards (all CSV, or all JSON Lines) into one, rows in point
 * order, after checking that they can be joined: each file's record ({@code PREFIX.sweep.json})
 * names the same sweep (command, options, axes) and a shard {@code i/N} of the same N that no other
 * file gives; each row is whole (the header's cells, or the JSON's fields) and is the point its
 * place in the shard says, with that point's axis values. A shard given twice is a mistake (a glob
 * that matches a copy, say) and is refused, naming both files: taken once, its rows would be the same,
 * but the shard meant to be there instead would be missing without a word.
 */
public final class ShardMerge {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final ObjectReader CELLS = new CsvMapper().readerFor(String[].class).with(CsvParser.Feature.WRAP_AS_ARRAY);

    /**
     * The merged file and what it holds.
     *
     * @param text    the merged file's content
     * @param rows    rows in it
     * @param missing what is missing, in words (shards not given, shards not finished), or null when all points are there
     */
    public record Merged(String text, int rows, String missing) {
    }

    private ShardMerge() {
    }

    public static Merged merge(List<Path> files, boolean csv) {
        SweepRecord sweep = null;
        Map<Integer, Path> given = new TreeMap<>();
        Map<Integer, Integer> rowsOf = new LinkedHashMap<>();
        TreeMap<Long, String> rows = new TreeMap<>();
        for (Path f : files) {
            if (f.toString().endsWith(".csv") != csv || !f.toString().endsWith(csv ? ".csv" : ".jsonl")) {
                throw new InputException(f + ": expected a " + (csv ? ".csv" : ".jsonl") + " file like --output");
            }
            List<String> lines = lines(f, csv);
            SweepRecord r = record(f);
            if (sweep == null) {
                sweep = r;
            } else if (!r.sameSweep(sweep)) {
                throw new InputException(f + ": a shard of another sweep than " + files.get(0) + " (" + SweepRecord.beside(f)
                        + " has " + r.differenceFrom(sweep) + "); merge the shards of one sweep");
            } else if (r.shards() != sweep.shards()) {
                throw new InputException(f + ": shard " + r.shard() + "/" + r.shards() + ", but " + files.get(0) + " is shard "
                        + sweep.shard() + "/" + sweep.shards() + "; merge the shards of one --shard i/N run");
            }
            Path twice = given.putIfAbsent(r.shard(), f);
            if (twice != null) {
                throw new InputException(f + ": shard " + r.shard() + "/" + r.shards() + " given twice"
                        + (twice.equals(f) ? "" : " (" + twice + " is that shard too)") + "; give each shard once");
            }
            int first = 0;
            if (csv) {
                String header = String.join(",", r.columns());
                if (!lines.get(0).equals(header)) {
                    throw new InputException(f + ":1: its columns are not those of its sweep (" + SweepRecord.beside(f) + "); expected "
                            + header);
                }
                first = 1;
            }
            for (int i = first; i < lines.size(); i++) {
                long point = r.shard() + (long) (i - first) * r.shards();
                checkRow(f, i + 1, lines.get(i), csv, r, point);
                rows.put(point, lines.get(i));
            }
            rowsOf.put(r.shard(), lines.size() - first);
        }
        StringBuilder sb = new StringBuilder();
        if (csv) {
            sb.append(String.join(",", sweep.columns())).append('\n');
        }
        rows.values().forEach(row -> sb.append(row).append('\n'));
        return new Merged(sb.toString(), rows.size(), missing(sweep, given, rowsOf, rows.size()));
    }

    /** The file's lines: a CSV's header and rows, a JSON Lines file's rows; a last line cut short is refused. */
    private static List<String> lines(Path f, boolean csv) {
        String text = TextFile.read(f);
        if (!text.isEmpty() && !text.endsWith("\n")) {
            throw new InputException(f + ": its last line is cut short; finish the shard (run its sweep again) before merging");
        }
        List<String> lines = text.lines().toList();
        if (csv && lines.isEmpty()) {
            throw new InputException(f + ":1: empty; expected a sweep's CSV with its header");
        }
        if (csv && !lines.get(0).startsWith("point,")) {
            throw new InputException(f + ":1: not a sweep's results (its header does not start with point)");
        }
        return lines;
    }

    private static SweepRecord record(Path f) {
        Path record = SweepRecord.beside(f);
        if (!Files.exists(record)) {
            throw new InputException(f + ": no " + record + " beside it; merge checks each shard against the record its sweep"
                    + " writes (run the shard's sweep again to write it, or copy it with the results)");
        }
        return SweepRecord.read(record);
    }

    /** Refuses a row that is not whole, or is not {@code point} of the sweep with its axis values. */
    private static void checkRow(Path f, int line, String row, boolean csv, SweepRecord r, long point) {
        List<String> columns = r.columns();
        String where = f + ":" + line + ": ";
        if (point >= r.points()) {
            throw new InputException(where + "a row past the shard's last point (its sweep has " + r.points() + " points)");
        }
        Map<String, String> cells = new LinkedHashMap<>();
        if (csv) {
            String[] values;
            try (MappingIterator<String[]> it = CELLS.readValues(row)) {
                values = it.hasNext() ? it.next() : new String[0];
            } catch (IOException | RuntimeException e) {
                values = new String[0]; // a quote left open: not a whole row
            }
            if (values.length != columns.size()) {
                throw new InputException(where + values.length + " cells; its header has " + columns.size()
                        + " (a row cut short or run together); run the shard's sweep again");
            }
            for (int k = 0; k < values.length; k++) {
                cells.put(columns.get(k), values[k]);
            }
        } else {
            JsonNode node;
            try {
                node = JSON.readTree(row);
            } catch (JsonProcessingException e) {
                node = null;
            }
            List<String> fields = new ArrayList<>();
            if (node != null && node.isObject()) {
                node.fieldNames().forEachRemaining(fields::add);
            }
            if (!fields.equals(columns)) {
                throw new InputException(where + "not a whole row of its sweep (expected a JSON object of " + String.join(", ", columns)
                        + "); run the shard's sweep again");
            }
            node.fields().forEachRemaining(e -> cells.put(e.getKey(), e.getValue().asText()));
        }
        if (!cells.get("point").equals(Long.toString(point))) {
            throw new InputException(where + "point " + cells.get("point") + " where shard " + r.shard() + "/" + r.shards()
                    + " has point " + point + " (its points in order, each once)");
        }
        List<String> values = r.axisValues(point);
        int k = 0;
        for (String axis : r.axes().keySet()) {
            if (!values.get(k).equals(cells.get(axis))) {
                throw new InputException(where + axis + " '" + cells.get(axis) + "', but point " + point + " of its sweep has "
                        + axis + " '" + values.get(k) + "'");
            }
            k++;
        }
    }

    /** The shards not given and those not finished, in words; null when every point is there. */
    private static String missing(SweepRecord sweep, Map<Integer, Path> given, Map<Integer, Integer> rowsOf, int rows) {
        long points = sweep.points();
        if (rows == points) {
            return null;
        }
        List<String> why = new ArrayList<>();
        List<String> absent = new ArrayList<>();
        for (int i = 0; i < sweep.shards(); i++) {
            SweepRecord shard = new SweepRecord(sweep.command(), sweep.options(), sweep.axes(), i, sweep.shards());
            if (!given.containsKey(i)) {
                if (shard.shardPoints() > 0) {
                    absent.add(Integer.toString(i));
                }
            } else if (rowsOf.get(i) < shard.shardPoints()) {
                why.add(given.get(i) + " has " + rowsOf.get(i) + " of its " + shard.shardPoints() + " points");
            }
        }
        if (!absent.isEmpty()) {
            why.add(0, (absent.size() == 1 ? "shard " : "shards ") + String.join(", ", absent) + " of " + sweep.shards() + " not given");
        }
        return (points - rows) + " of the sweep's " + points + " points are missing: " + String.join("; ", why);
    }
}
