package dev.collsim.scenarios.cli;

import dev.collsim.core.input.InputException;
import dev.collsim.core.input.TextFile;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code collsim merge}: a sweep's shards into one result file, in point order. */
@Command(name = "merge", mixinStandardHelpOptions = true,
        description = "Joins the result files of a sweep's shards (all .csv, or all .jsonl) into one, rows in point order.")
public final class MergeCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "FILE", arity = "1..*", description = "shard result files")
    List<Path> files;

    @OutputFile(endings = {".csv", ".jsonl"})
    @Option(names = {"-O", "--output"}, paramLabel = "FILE", required = true, description = "the merged file (written atomically)")
    Path output;

    @Override
    public Integer call() {
        boolean csv = output.toString().endsWith(".csv");
        if (!csv && !output.toString().endsWith(".jsonl")) {
            throw new InputException("--output " + output + ": expected a .csv or .jsonl file");
        }
        String header = null;
        TreeMap<Integer, String> rows = new TreeMap<>();
        for (Path f : files) {
            if (f.toString().endsWith(".csv") != csv) {
                throw new InputException(f + ": expected a " + (csv ? ".csv" : ".jsonl") + " file like --output");
            }
            List<String> lines = read(f);
            int first = 0;
            if (csv) {
                if (lines.isEmpty()) {
                    throw new InputException(f + ":1: empty; expected a sweep's CSV with its header");
                }
                if (!lines.get(0).startsWith("point,")) {
                    throw new InputException(f + ":1: not a sweep's results (its header does not start with point)");
                }
                if (header != null && !header.equals(lines.get(0))) {
                    throw new InputException(f + ":1: its columns differ from " + files.get(0) + "'s: shards of another sweep?");
                }
                header = lines.get(0);
                first = 1;
            }
            for (int i = first; i < lines.size(); i++) {
                int point = point(f, i + 1, lines.get(i), csv);
                String before = rows.put(point, lines.get(i));
                if (before != null && !before.equals(lines.get(i))) {
                    throw new InputException(f + ":" + (i + 1) + ": point " + point + " differs from the same point in another file");
                }
            }
        }
        StringBuilder sb = new StringBuilder();
        if (header != null) {
            sb.append(header).append('\n');
        }
        rows.values().forEach(r -> sb.append(r).append('\n'));
        RunFiles.current().write(output, sb.toString());
        spec.commandLine().getOut().printf("%d rows from %d files in %s%n", rows.size(), files.size(), output);
        int missing = rows.isEmpty() ? 0 : rows.lastKey() + 1 - rows.size();
        if (missing > 0) {
            spec.commandLine().getOut().printf("%d points below the last are missing: a shard not given, or not finished%n", missing);
        }
        spec.commandLine().getOut().flush();
        return 0;
    }

    private static List<String> read(Path f) {
        String text = TextFile.read(f);
        if (!text.isEmpty() && !text.endsWith("\n")) {
            throw new InputException(f + ": its last line is cut short; finish the shard (run its sweep again) before merging");
        }
        return text.isEmpty() ? List.of() : List.of(text.split("\n"));
    }

    private static int point(Path f, int line, String row, boolean csv) {
        String cell = csv ? row.split(",", 2)[0] : row.replaceFirst("^\\{\"point\":(\\d+).*", "$1");
        try {
            return Integer.parseInt(cell);
        } catch (NumberFormatException e) {
            throw new InputException(f + ":" + line + ": expected a row starting with its point number");
        }
    }
}
