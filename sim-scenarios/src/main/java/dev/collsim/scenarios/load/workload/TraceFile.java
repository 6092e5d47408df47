package dev.collsim.scenarios.load.workload;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.collsim.core.input.InputException;
import dev.collsim.core.input.TextFile;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoField;
import java.time.temporal.TemporalAccessor;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * A published request trace, read as it is published; the format is told by the content (a JSON
 * object per line, or a CSV):
 * <ul>
 *   <li>the Azure LLM inference trace (Azure/AzurePublicDataset, AzureLLMInferenceDataset2023 and 2024):
 *       a CSV with the header {@code TIMESTAMP,ContextTokens,GeneratedTokens} and a row per request,
 *       the time as {@code 2023-11-16 18:15:46.6805900} (100 ns digits; an offset such as {@code +00:00}
 *       is read too);</li>
 *   <li>the Mooncake trace (kvcache-ai/Mooncake, FAST25-release/traces): a JSON object per line,
 *       {@code {"timestamp": ms, "input_length": n, "output_length": n, "hash_ids": [...]}}, where
 *       {@code hash_ids} names the prompt's blocks of 512 tokens, one per started block, equal ids
 *       for equal blocks.</li>
 * </ul>
 * Times are kept relative to the first request, which is sent at 0. Every error names the file, the
 * line and the field.
 *
 * @param name   the file as the user named it, for errors and descriptions
 * @param format which published format it is
 * @param rows   the requests in file order (their times never decrease)
 */
public record TraceFile(String name, Format format, List<Row> rows) {
    public TraceFile {
        rows = List.copyOf(rows);
    }

    /** The formats, with the names their files give a request's lengths. */
    public enum Format {
        AZURE("Azure LLM inference trace", "ContextTokens", "GeneratedTokens", 0),
        MOONCAKE("Mooncake trace", "input_length", "output_length", 512);

        private final String title;
        private final String islField;
        private final String oslField;
        private final int blockTokens;

        Format(String title, String islField, String oslField, int blockTokens) {
            this.title = title;
            this.islField = islField;
            this.oslField = oslField;
            this.blockTokens = blockTokens;
        }

        public String title() {
            return title;
        }

        public String islField() {
            return islField;
        }

        public String oslField() {
            return oslField;
        }

        /** Tokens per block of the trace's {@code hash_ids}; 0 where the format has none. */
        public int blockTokens() {
            return blockTokens;
        }
    }

    /**
     * One request of the trace.
     *
     * @param line    its line in the file, for errors
     * @param timeMs  when it is sent, ms after the first request
     * @param isl     prompt tokens
     * @param osl     output tokens
     * @param hashIds the trace's ids of the prompt's blocks, as written (empty where the trace has none)
     */
    public record Row(int line, double timeMs, int isl, int osl, long[] hashIds) {}

    private static final String AZURE_HEADER = "TIMESTAMP,ContextTokens,GeneratedTokens";
    private static final Set<String> MOONCAKE_KEYS = Set.of("timestamp", "input_length", "output_length", "hash_ids");
    /** ISO date, a space (or T), the time with 0 to 9 decimals, then an optional offset. */
    private static final DateTimeFormatter AZURE_TIME = new DateTimeFormatterBuilder().append(DateTimeFormatter.ISO_LOCAL_DATE)
            .optionalStart().appendLiteral(' ').optionalEnd().optionalStart().appendLiteral('T').optionalEnd()
            .append(DateTimeFormatter.ISO_LOCAL_TIME).optionalStart().appendOffset("+HH:MM", "Z").optionalEnd().toFormatter();
    private static final ObjectMapper JSON = new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    /** The trace in {@code path}. */
    public static TraceFile read(Path path) {
        return parse(TextFile.read(path), path.toString());
    }

    /** A trace's text (byte-order mark and CR line ends already dropped, as {@link TextFile} gives it); errors call it {@code name}. */
    public static TraceFile parse(String text, String name) {
        String[] lines = text.split("\n", -1);
        int first = 0;
        while (first < lines.length && lines[first].isBlank()) {
            first++;
        }
        if (first == lines.length) {
            throw new InputException(name + ": line 1: empty; expected the Azure LLM inference trace's CSV (header " + AZURE_HEADER
                    + ") or the Mooncake trace's JSON lines ({\"timestamp\": ms, \"input_length\": n, \"output_length\": n, \"hash_ids\": [...]})");
        }
        List<Row> rows = lines[first].trim().startsWith("{") ? mooncake(lines, name) : azure(lines, first, name);
        if (rows.isEmpty()) {
            throw new InputException(name + ": line " + (first + 2) + ": no requests after the header; expected a row per request");
        }
        return new TraceFile(name, lines[first].trim().startsWith("{") ? Format.MOONCAKE : Format.AZURE, rows);
    }

    private static List<Row> azure(String[] lines, int headerAt, String name) {
        String[] header = lines[headerAt].split(",", -1);
        int time = -1;
        int isl = -1;
        int osl = -1;
        for (int c = 0; c < header.length; c++) {
            String h = header[c].trim();
            switch (h) {
                case "TIMESTAMP" -> time = c;
                case "ContextTokens" -> isl = c;
                case "GeneratedTokens" -> osl = c;
                default -> throw new InputException(name + ": line " + (headerAt + 1) + ": unknown column '" + h + "'; the Azure LLM inference trace's header is "
                        + AZURE_HEADER + " (a Mooncake trace has a JSON object per line)");
            }
        }
        for (String[] column : new String[][] {{"TIMESTAMP", "" + time}, {"ContextTokens", "" + isl}, {"GeneratedTokens", "" + osl}}) {
            if (column[1].equals("-1")) {
                throw new InputException(name + ": line " + (headerAt + 1) + ": missing column " + column[0] + "; the Azure LLM inference trace's header is " + AZURE_HEADER);
            }
        }
        List<Row> rows = new ArrayList<>();
        long firstNanos = 0;
        double last = 0;
        for (int i = headerAt + 1; i < lines.length; i++) {
            if (lines[i].isBlank()) {
                continue;
            }
            int line = i + 1;
            String[] f = lines[i].split(",", -1);
            if (f.length != header.length) {
                throw new InputException(name + ": line " + line + ": " + f.length + " fields; expected " + header.length + " (" + AZURE_HEADER + ")");
            }
            long nanos = azureNanos(f[time].trim(), name, line);
            if (rows.isEmpty()) {
                firstNanos = nanos;
            }
            double ms = (nanos - firstNanos) / 1e6;
            if (ms < last) {
                throw new InputException(name + ": line " + line + ": TIMESTAMP " + f[time].trim() + " is before the line above's; expected times in order");
            }
            last = ms;
            rows.add(new Row(line, ms, length(f[isl].trim(), "ContextTokens", name, line, 1),
                    length(f[osl].trim(), "GeneratedTokens", name, line, 1), new long[0]));
        }
        return rows;
    }

    /** Nanoseconds since 1970 (UTC where the time has no offset): 100 ns digits stay exact in a long. */
    private static long azureNanos(String v, String name, int line) {
        try {
            TemporalAccessor t = AZURE_TIME.parse(v);
            long seconds = LocalDateTime.from(t).toEpochSecond(ZoneOffset.UTC)
                    - (t.isSupported(ChronoField.OFFSET_SECONDS) ? t.get(ChronoField.OFFSET_SECONDS) : 0);
            return seconds * 1_000_000_000L + t.get(ChronoField.NANO_OF_SECOND);
        } catch (DateTimeParseException e) {
            throw new InputException(name + ": line " + line + ": TIMESTAMP '" + v + "': expected a date and time such as 2023-11-16 18:15:46.6805900");
        }
    }

    private static List<Row> mooncake(String[] lines, String name) {
        List<Row> rows = new ArrayList<>();
        double first = 0;
        double last = 0;
        for (int i = 0; i < lines.length; i++) {
            if (lines[i].isBlank()) {
                continue;
            }
            int line = i + 1;
            JsonNode o;
            try {
                o = JSON.readTree(lines[i]);
            } catch (JsonProcessingException e) {
                throw new InputException(name + ": line " + line + ": not JSON (" + e.getOriginalMessage().lines().findFirst().orElse("")
                        + "); the Mooncake trace has one JSON object per line");
            }
            if (!o.isObject()) {
                throw new InputException(name + ": line " + line + ": expected a JSON object {\"timestamp\": ms, \"input_length\": n, \"output_length\": n, \"hash_ids\": [...]}");
            }
            for (Iterator<String> keys = o.fieldNames(); keys.hasNext(); ) {
                String k = keys.next();
                if (!MOONCAKE_KEYS.contains(k)) {
                    throw new InputException(name + ": line " + line + ": unknown field '" + k + "'; the Mooncake trace has timestamp, input_length, output_length and hash_ids");
                }
            }
            JsonNode ts = o.get("timestamp");
            if (ts == null || !ts.isNumber() || !(ts.asDouble() >= 0) || Double.isInfinite(ts.asDouble())) {
                throw new InputException(name + ": line " + line + ": timestamp " + (ts == null ? "missing" : "'" + ts + "'") + ": expected ms, 0 or more");
            }
            double ms = ts.asDouble();
            if (rows.isEmpty()) {
                first = ms;
            } else if (ms - first < last) {
                throw new InputException(name + ": line " + line + ": timestamp " + ts + " is before the line above's; expected times in order");
            }
            last = ms - first;
            int isl = length(o.get("input_length"), "input_length", name, line);
            int osl = length(o.get("output_length"), "output_length", name, line);
            rows.add(new Row(line, last, isl, osl, hashIds(o.get("hash_ids"), isl, name, line)));
        }
        return rows;
    }

    private static int length(JsonNode v, String field, String name, int line) {
        if (v == null) {
            throw new InputException(name + ": line " + line + ": " + field + " missing; expected a whole number of tokens, 1 or more");
        }
        return length(v.isIntegralNumber() ? v.asText() : "'" + v + "'", field, name, line, 1);
    }

    private static int length(String v, String field, String name, int line, int min) {
        long n = v.matches("-?\\d{1,10}") ? Long.parseLong(v) : Long.MIN_VALUE;
        if (n < min || n > Lengths.MAX_TOKENS) {
            throw new InputException(name + ": line " + line + ": " + field + " " + (v.isEmpty() ? "missing" : v)
                    + ": expected a whole number of tokens from " + min + " to " + Lengths.MAX_TOKENS);
        }
        return (int) n;
    }

    /** The ids as written: one per started block of 512 tokens, as the published traces have them, each a whole number. */
    private static long[] hashIds(JsonNode ids, int isl, String name, int line) {
        if (ids == null) {
            return new long[0];
        }
        int blocks = (isl + Format.MOONCAKE.blockTokens() - 1) / Format.MOONCAKE.blockTokens();
        if (!ids.isArray() || ids.size() != blocks) {
            throw new InputException(name + ": line " + line + ": hash_ids " + (ids.isArray() ? "has " + ids.size() + " ids" : "is not a list")
                    + "; expected " + blocks + ", one per block of 512 tokens of input_length " + isl);
        }
        long[] out = new long[blocks];
        for (int k = 0; k < blocks; k++) {
            JsonNode id = ids.get(k);
            if (!id.isIntegralNumber() || !id.canConvertToLong()) {
                throw new InputException(name + ": line " + line + ": hash_ids[" + k + "] '" + id + "': expected a whole number");
            }
            out[k] = id.asLong();
        }
        return out;
    }

    /** Whether the trace names its prompts' blocks (Mooncake's {@code hash_ids}). */
    public boolean hasBlocks() {
        return rows.stream().anyMatch(r -> r.hashIds().length > 0);
    }

    /** As the outputs say it, e.g. "Mooncake trace conversation_trace.jsonl (12,031 requests)". */
    public String describe() {
        return format.title() + " " + Path.of(name).getFileName() + " (" + String.format(Locale.ROOT, "%,d", rows.size()) + " requests)";
    }
}
