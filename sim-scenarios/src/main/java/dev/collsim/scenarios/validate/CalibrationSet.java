package dev.collsim.scenarios.validate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvSchema;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.collsim.core.collective.CollectiveOp;
import dev.collsim.core.input.InputException;
import dev.collsim.core.input.TextFile;
import dev.collsim.core.nccl.NcclVersion;
import dev.collsim.scenarios.bench.DataType;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.StreamSupport;

/** Reads the calibration CSV (the bundled copy or a file) and the set-up of each data set. */
public final class CalibrationSet {
    /**
     * The project's calibration files, bundled: the first set, the runs added on 2026-12-01, aiconfigurator's 2, 4 and 8
     * GPUs, and the runs across nodes added on 2026-12-07.
     */
    public static final List<String> BUNDLED_CSVS = List.of("/calibration/nccl_measured_calibration.csv",
            "/calibration/nccl_measured_calibration_2.csv", "/calibration/nccl_measured_calibration_aic.csv",
            "/calibration/nccl_measured_calibration_3.csv", "/calibration/rccl_measured_calibration.csv");
    private static final String SETUPS = "/calibration/datasets.yaml";

    private CalibrationSet() {}

    /** The rows of a calibration CSV; {@code name} labels it in errors. */
    public static List<CalibrationRow> read(Reader reader, String name) {
        CsvMapper mapper = new CsvMapper();
        ObjectReader r = mapper.readerForMapOf(String.class).with(CsvSchema.emptySchema().withHeader());
        List<CalibrationRow> rows = new ArrayList<>();
        int line = 1;
        try (MappingIterator<Map<String, String>> it = r.readValues(reader)) {
            while (it.hasNext()) {
                // The parser stands on the row's first field: its line, not the row count, as a quoted field may span lines.
                line = Math.max(line + 1, it.getParser().currentLocation().getLineNr());
                Map<String, String> m = it.next();
                String dataset = field(m, "dataset_id", name, line);
                String op = field(m, "op", name, line);
                String dtype = m.getOrDefault("dtype", "");
                long size = parseSize(m.getOrDefault("size_bytes", ""), name, line);
                if (size >= 0) {
                    checkKnown(op, dtype, name, line);
                }
                String time = timeColumn(m.keySet(), name);
                rows.add(new CalibrationRow(dataset, op, dtype, size,
                        parseTime(m.get(time), time, name, line), line, parseNodes(m.getOrDefault("nodes", ""), name, line)));
            }
        } catch (IOException | RuntimeException e) {
            if (e instanceof InputException ie) {
                throw ie;
            }
            throw new InputException(name + ": line " + line + ": not a calibration CSV (" + firstLine(e.getMessage()) + ")");
        }
        if (rows.isEmpty()) {
            throw new InputException(name + ": no rows; expected a header (dataset_id,op,dtype,size_bytes,time_us) and a row per measured size");
        }
        return rows;
    }

    /** An nccl-tests row's operation and data type, as nccl-tests names them. */
    private static void checkKnown(String op, String dtype, String name, int line) {
        try {
            CollectiveOp.fromName(op);
            if (!dtype.isBlank()) {
                DataType.fromName(dtype.trim());
            }
        } catch (InputException e) {
            throw e.in(name + ": line " + line);
        }
    }

    public static List<CalibrationRow> bundled() {
        List<CalibrationRow> rows = new ArrayList<>();
        for (String csv : BUNDLED_CSVS) {
            try (InputStream in = CalibrationSet.class.getResourceAsStream(csv)) {
                rows.addAll(read(new InputStreamReader(in, StandardCharsets.UTF_8), "bundled " + csv.substring(csv.lastIndexOf('/') + 1)));
            } catch (IOException e) {
                throw new IllegalStateException("the bundled calibration set cannot be read", e);
            }
        }
        return rows;
    }

    /** A row's node count; blank (or no such column) is 0, its data set's set-up then says. */
    private static int parseNodes(String v, String name, int line) {
        if (v.isBlank()) {
            return 0;
        }
        try {
            int n = Integer.parseInt(v.trim());
            if (n >= 1) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new InputException(name + ": line " + line + ": nodes '" + v + "': expected a whole number of nodes, 1 or more");
    }

    public static List<CalibrationRow> file(Path path) {
        return read(new StringReader(TextFile.read(path)), path.toString());
    }

    /** The set-up of each known data set, by id, in file order. */
    public static Map<String, DatasetSetup> setups() {
        try (InputStream in = CalibrationSet.class.getResourceAsStream(SETUPS)) {
            JsonNode file = new ObjectMapper(new YAMLFactory()).readTree(in);
            if (file.path("version").asInt() != 1) {
                throw new IllegalStateException(SETUPS + ": version " + file.path("version") + ", expected 1");
            }
            Map<String, DatasetSetup> byId = new LinkedHashMap<>();
            for (JsonNode d : file.path("datasets")) {
                d.fieldNames().forEachRemaining(k -> {
                    if (!DatasetSetup.KEYS.contains(k)) {
                        throw new IllegalStateException(SETUPS + ": unknown key '" + k + "' in data set " + d.path("id").asText());
                    }
                });
                if (!d.hasNonNull("id")) {
                    throw new IllegalStateException(SETUPS + ": a data set without an id");
                }
                DatasetSetup setup = new DatasetSetup(d.get("id").asText(), text(d, "system"), d.path("nodes").asInt(0),
                        d.hasNonNull("gpus-per-node") ? d.get("gpus-per-node").asInt() : null, text(d, "network"),
                        d.hasNonNull("gpus-per-thread") ? d.get("gpus-per-thread").asInt() : null, text(d, "algo"),
                        d.hasNonNull("gdr") ? d.get("gdr").asBoolean() : null,
                        d.hasNonNull("gdr-flush") ? d.get("gdr-flush").asBoolean() : null, ncclVersion(d), text(d, "not-yet"), text(d, "inconsistent"),
                        StreamSupport.stream(d.path("inconsistent-nodes").spliterator(), false).map(JsonNode::asInt).toList());
                byId.put(setup.id(), setup);
            }
            return byId;
        } catch (IOException e) {
            throw new IllegalStateException("the bundled data-set set-ups cannot be read", e);
        }
    }

    /** A data set's NCCL release, null where its source does not state one. */
    private static NcclVersion ncclVersion(JsonNode d) {
        String text = text(d, "nccl");
        if (text == null) {
            return null;
        }
        NcclVersion v = NcclVersion.find(text);
        if (v == null) {
            throw new IllegalStateException(SETUPS + ": data set " + d.path("id").asText() + ": nccl '" + text + "': expected one of "
                    + NcclVersion.known());
        }
        return v;
    }

    private static String text(JsonNode node, String key) {
        return node.hasNonNull(key) ? node.get(key).asText() : null;
    }

    private static String field(Map<String, String> m, String key, String name, int line) {
        String v = m.get(key);
        if (v == null || v.isBlank()) {
            throw new InputException(name + ": line " + line + ": missing " + key);
        }
        return v.trim();
    }

    /** nccl-tests' size, or -1 on lines that are not nccl-tests lines (p2pBandwidthLatencyTest summaries). */
    private static long parseSize(String v, String name, int line) {
        if (v.isBlank()) {
            return -1;
        }
        try {
            long size = Long.parseLong(v.trim());
            if (size < 0) {
                throw new NumberFormatException();
            }
            return size;
        } catch (NumberFormatException e) {
            throw new InputException(name + ": line " + line + ": size_bytes '" + v + "' is not a whole number of bytes");
        }
    }

    /** A time column's unit (after {@code time_}) in words, and in microseconds. */
    private record TimeUnit(String words, double micros) {}

    private static final Map<String, TimeUnit> TIME_UNITS = Map.of("ns", new TimeUnit("nanoseconds", 1e-3),
            "us", new TimeUnit("microseconds", 1), "ms", new TimeUnit("milliseconds", 1e3), "s", new TimeUnit("seconds", 1e6));

    /**
     * The header's one time column: time_us as nccl-tests prints it, or time_ns, time_ms or time_s (converted); none, two,
     * or another unit is refused rather than read as no time at all.
     */
    private static String timeColumn(Set<String> header, String name) {
        List<String> times = header.stream().filter(k -> k.startsWith("time_")).toList();
        List<String> known = times.stream().filter(k -> TIME_UNITS.containsKey(k.substring(5))).toList();
        if (known.size() == 1) {
            return known.get(0);
        }
        String expected = "; expected one time column: time_us (or time_ns, time_ms, time_s)";
        throw new InputException(name + ": line 1: " + (known.size() > 1 ? "time columns " + String.join(" and ", known)
                : times.isEmpty() ? "no time column" : "time column " + times.get(0) + " in an unknown unit") + expected);
    }

    private static double parseTime(String v, String column, String name, int line) {
        if (v == null || v.isBlank()) {
            return Double.NaN;
        }
        TimeUnit unit = TIME_UNITS.get(column.substring(5));
        try {
            double t = Double.parseDouble(v.trim()) * unit.micros();
            if (!(t > 0) || Double.isInfinite(t)) {
                throw new NumberFormatException();
            }
            return t;
        } catch (NumberFormatException e) {
            throw new InputException(name + ": line " + line + ": " + column + " '" + v + "' is not a positive number of " + unit.words());
        }
    }

    private static String firstLine(String s) {
        return s == null ? "" : s.split("\n", 2)[0];
    }
}
