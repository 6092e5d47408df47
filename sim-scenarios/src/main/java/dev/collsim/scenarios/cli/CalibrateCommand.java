package dev.collsim.scenarios.cli;

import dev.collsim.core.input.InputException;
import dev.collsim.reports.Column;
import dev.collsim.reports.Table;
import dev.collsim.scenarios.bench.BenchSpec;
import dev.collsim.scenarios.bench.SizeSweep;
import dev.collsim.scenarios.validate.Calibration;
import dev.collsim.scenarios.validate.Measured;
import dev.collsim.topologies.systems.WhatIf;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code collsim calibrate}: fits a link class's rate and latency to your own nccl-tests logs. */
@Command(name = "calibrate", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Fits one link class's rate and latency to measured nccl-tests runs.",
            "The class is NVLink on one node, or the network across nodes; the fit is least squares. It prints the fit and",
            "its residuals and writes an override file that --overrides loads."})
public final class CalibrateCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "LOG", arity = "1..*", description = "nccl-tests outputs (or calibration-shaped CSVs) of the operation")
    List<Path> logs;

    @Mixin
    LoggedRunOptions run;

    @Option(names = "--class", paramLabel = "CLASS", description = "the link class to fit: nvlink, pcie or network (default: nvlink on one node, network across)")
    String linkClass;

    @Mixin
    SystemOptions system;

    @Option(names = {"-d", "--datatype"}, paramLabel = "TYPE", defaultValue = "float", description = "data type of the runs (default: ${DEFAULT-VALUE})")
    String dataType;

    @OutputFile
    @Option(names = "--overrides-out", paramLabel = "FILE", description = "write the override file here (atomically)")
    Path output;

    @Mixin
    OutputOptions table;

    @Override
    public Integer call() {
        system.system.requireOne();
        if (system.topology != null) {
            // A topology file's links carry their own rates; the class factors a fit varies do not reach them.
            throw new InputException("--topology: calibrate fits the link classes of a preset (--system); a topology file's"
                    + " rates are its own, so fit against the preset and write the fitted rates into the file");
        }
        if (system.flat()) {
            throw new InputException("--system flat-switch: calibrate fits the link classes of a preset; the flat switch's links"
                    + " are the rate and latency you give it");
        }
        TreeMap<Long, Double> measured = new TreeMap<>();
        for (Path log : logs) {
            measured.putAll(Measured.read(log, run.operation()));
        }
        long smallest = measured.firstKey();
        BenchSpec bench = new BenchSpecBuilder(run.operation(), system.onPreset(), new SizeSweep(smallest, smallest, 1, 1))
                .gpusPerThread(run.gpusPerThread)
                .type(BenchSpecBuilder.type(dataType))
                .algos(BenchSpecBuilder.algos(run.algo))
                .build();
        for (Path log : logs) {
            checkSameRun(log, bench);
        }
        if (measured.size() < 2) {
            // One size gives one equation: any rate would do with a latency to match, and the fit would pick one silently.
            throw new InputException(String.join(", ", logs.stream().map(Path::toString).toList()) + ": one measured size ("
                    + measured.firstKey() + " B); a rate and a latency need two sizes or more, a small and a large one");
        }
        WhatIf.LinkClass c = linkClass != null ? WhatIf.parseScales("--class", linkClass + "=1").keySet().iterator().next()
                : bench.nodes() > 1 ? WhatIf.LinkClass.NETWORK : WhatIf.LinkClass.NVLINK;
        Calibration.Fit fit = Calibration.fit(bench, measured, c);
        String cls = c.name().toLowerCase(Locale.ROOT);
        if (fit.classUnused()) {
            throw new InputException("--class " + cls + ": no " + cls + " link carries these runs on " + bench.system()
                    + " (" + bench.nodes() + " node(s)); fit the class they cross");
        }
        Table t = new Table("collsim calibrate", List.of(Column.number("size_bytes", "size", "(B)", 12, 0),
                Column.number("measured_us", "measured", "(us)", 10, 2), Column.number("before_us", "model", "(us)", 10, 2),
                Column.number("before_pct", "error", "(%)", 7, 1), Column.number("after_us", "fitted", "(us)", 10, 2),
                Column.number("after_pct", "error", "(%)", 7, 1)), Map.of("command", "calibrate"));
        t.note(String.format(Locale.ROOT, "%s on %s: %d measured sizes from %d file(s); fitted %s rate x %.4f and latency x %.4f"
                + " (%d simulations of the sweep)", run.op, bench.system(), measured.size(), logs.size(), cls, fit.rateFactor(),
                fit.latencyFactor(), fit.evaluations()));
        for (Calibration.Point p : fit.points()) {
            t.row(p.sizeBytes(), p.measuredUs(), p.beforeUs(), 100 * (p.beforeUs() - p.measuredUs()) / p.measuredUs(), p.afterUs(),
                    100 * (p.afterUs() - p.measuredUs()) / p.measuredUs());
        }
        if (fit.atBound()) {
            t.footnote(String.format(Locale.ROOT, "a factor reached the fit's bound (x%.0f or 1/%.0f): the %s class alone does not explain"
                    + " these measurements; check the system, the operation and the log", Calibration.RANGE, Calibration.RANGE, cls));
        }
        t.footnote(String.format(Locale.ROOT, "rms error %.1f %% with the model's constants, %.1f %% fitted%s", fit.rmsBeforePct(),
                fit.rmsAfterPct(), output == null ? "; --overrides-out FILE writes the override file" : "; overrides in " + output
                        + " (load with --overrides " + output + ")"));
        if (output != null) {
            RunFiles.current().write(output, fit.overrides(String.join(", ", logs.stream().map(Path::toString).toList())));
        }
        table.emit(table.reportFormat().render(t), spec.commandLine().getOut());
        return 0;
    }

    /** Refuses a log whose header names another run: its nGpus other than -g, or its ranks other than the run's. */
    private void checkSameRun(Path log, BenchSpec bench) {
        Measured.LogHeader h = Measured.header(log);
        if (h.nGpus() != null && h.nGpus() != run.gpusPerThread) {
            throw new InputException(log + ":" + h.nGpusLine() + ": nGpus " + h.nGpus() + ", but the run is -g " + run.gpusPerThread
                    + "; give -g " + h.nGpus() + " as the log's run had");
        }
        int ranks = bench.nodes() * bench.gpusPerNode();
        if (h.ranks() != null && h.ranks() != ranks) {
            throw new InputException(log + ": " + h.ranks() + " '# Rank' lines (ranks), but the run has " + ranks + " (" + bench.nodes()
                    + " node(s) x " + bench.gpusPerNode() + " GPUs of " + bench.system() + "); give the log's --nodes and --gpus-per-node");
        }
    }
}
