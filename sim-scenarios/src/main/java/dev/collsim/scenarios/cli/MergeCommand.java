package dev.collsim.scenarios.cli;

import dev.collsim.scenarios.sweep.ShardMerge;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code collsim merge}: a sweep's shards into one result file, in point order ({@link ShardMerge} checks them). */
@Command(name = "merge", mixinStandardHelpOptions = true,
        description = {"Joins the result files of a sweep's shards (all .csv, or all .jsonl) into one, rows in point order.",
            "Each shard's PREFIX.sweep.json must lie beside it: shards of another sweep, a shard given twice and a row",
            "cut short are refused."})
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
        ShardMerge.Merged merged = ShardMerge.merge(files, output.toString().endsWith(".csv")); // else .jsonl, as its option requires
        RunFiles.current().write(output, merged.text());
        spec.commandLine().getOut().printf("%d rows from %d files in %s%n", merged.rows(), files.size(), output);
        if (merged.missing() != null) {
            spec.commandLine().getOut().println(merged.missing());
        }
        spec.commandLine().getOut().flush();
        return 0;
    }
}
