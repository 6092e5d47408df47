package dev.collsim.scenarios.cli;

import dev.collsim.core.input.InputException;
import dev.collsim.reports.HtmlReport;
import dev.collsim.scenarios.scenario.Scenario;
import dev.collsim.scenarios.sweep.Sweep;
import dev.collsim.scenarios.views.SweepHtml;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.function.BiConsumer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code collsim sweep FILE}: every point of a sweep scenario, resumable and shardable. */
@Command(name = "sweep", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Runs every point of a sweep scenario on all cores, going on where an interrupted run stopped.",
            "The scenario's format is docs/scenario-format.md. Each point appends one row to PREFIX.csv and PREFIX.jsonl",
            "as it ends."})
public final class SweepCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "FILE", description = "a scenario file whose command is sweep")
    Path file;

    @Option(names = "--out", paramLabel = "PREFIX", description = "results go to PREFIX.csv and PREFIX.jsonl (default: the scenario's name, with the shard)")
    String out;

    @Option(names = "--shard", paramLabel = "i/N", description = "run the i-th of N disjoint slices (0 <= i < N), e.g. $SLURM_ARRAY_TASK_ID/8")
    String shard;

    @Option(names = "--threads", paramLabel = "T", description = "points run at once (default: the cores)")
    Integer threads;

    @OutputFile(endings = ".html")
    @Option(names = "--report", paramLabel = "FILE.html", description = "also write an HTML report of the results (lines, and a heat map for two axes)")
    Path report;

    @Override
    public Integer call() {
        Scenario scenario = Scenarios.load(file);
        if (!scenario.isSweep()) {
            throw new InputException(file + ": its command is " + scenario.command() + ", not sweep; run it with 'collsim run'");
        }
        int i = 0;
        int n = 1;
        if (shard != null) {
            String[] parts = shard.split("/", -1);
            if (parts.length != 2 || !parts[0].matches("\\d{1,6}") || !parts[1].matches("\\d{1,6}")) {
                throw new InputException("--shard '" + shard + "': expected i/N, e.g. 0/4");
            }
            i = Integer.parseInt(parts[0]);
            n = Integer.parseInt(parts[1]);
        }
        int t = Flags.threads(threads);
        String prefix = out != null ? out : scenario.name() + (shard == null ? "" : ".shard-" + i + "-of-" + n);
        for (String written : new String[] {".csv", ".jsonl", ".sweep.json"}) {
            RunFiles.current().declareOutput(Path.of(prefix + written), "--out");
        }
        BiConsumer<Integer, Integer> progress = ProgressBar.onTerminal(spec.commandLine().getErr(), "sweep");
        Sweep sweep;
        int ran;
        try {
            sweep = new Sweep(scenario);
            ran = sweep.run(Path.of(prefix), i, n, t, Scenarios::point, progress);
        } catch (InputException e) {
            throw e.in(file.toString()); // the whole sweep's problem, in this file
        }
        if (report != null) {
            ReportOptions.writeHtml(report, () -> {
                HtmlReport html = new HtmlReport("collsim sweep " + scenario.name());
                SweepHtml.add(html, scenario, Path.of(prefix + ".jsonl"));
                return html;
            });
        }
        spec.commandLine().getOut().printf("%s: %d of %d points run now; results in %s.csv and %s.jsonl%n", file, ran,
                sweep.size(), prefix, prefix);
        spec.commandLine().getOut().flush();
        return 0;
    }
}
