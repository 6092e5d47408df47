package dev.collsim.scenarios.cli;

import dev.collsim.core.collective.CollectiveOp;
import dev.collsim.core.input.InputException;
import dev.collsim.core.nccl.Communicator;
import dev.collsim.reports.HtmlReport;
import dev.collsim.scenarios.bench.Bench;
import dev.collsim.scenarios.bench.BenchRow;
import dev.collsim.scenarios.bench.BenchSpec;
import dev.collsim.scenarios.bench.ReduceOp;
import dev.collsim.scenarios.bench.SizeSweep;
import dev.collsim.scenarios.replications.Replications;
import dev.collsim.scenarios.stochastic.Variability;
import dev.collsim.scenarios.sweep.PointResult;
import dev.collsim.scenarios.validate.Measured;
import dev.collsim.scenarios.views.BenchReport;
import dev.collsim.scenarios.views.BenchTable;
import dev.collsim.scenarios.views.BenchTrace;
import dev.collsim.scenarios.views.ChoiceTable;
import dev.collsim.scenarios.views.LinkTable;
import dev.collsim.scenarios.views.ReplicationsView;
import dev.collsim.topologies.catalog.NetworkPreset;
import dev.collsim.topologies.systems.WhatIf;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code collsim bench OP}: nccl-tests' {@code OP_perf}, simulated. */
@Command(name = "bench", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Simulates nccl-tests' OP_perf: one collective over a sweep of sizes, chunk by chunk.",
            "OP: all_reduce, all_gather, reduce_scatter, broadcast, reduce, alltoall, sendrecv."})
public final class BenchCommand implements Callable<Integer>, SweptCommand {
    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "OP", description = "the collective, as nccl-tests names it")
    String op;

    @Mixin
    SystemOptions system;

    @Option(names = {"-b", "--minbytes"}, paramLabel = "SIZE", defaultValue = "32M", description = "smallest size, e.g. 8, 1M (default: ${DEFAULT-VALUE})")
    String minBytes;

    @Option(names = {"-e", "--maxbytes"}, paramLabel = "SIZE", defaultValue = "32M", description = "largest size (default: ${DEFAULT-VALUE})")
    String maxBytes;

    @Option(names = {"-f", "--stepfactor"}, paramLabel = "F", defaultValue = "1", description = "multiply the size by F each step (default: ${DEFAULT-VALUE})")
    long stepFactor;

    @Option(names = {"-i", "--stepbytes"}, paramLabel = "SIZE", defaultValue = "1M", description = "add SIZE each step when -f is 1 (default: ${DEFAULT-VALUE})")
    String stepBytes;

    @Option(names = {"-g", "--ngpus"}, paramLabel = "G", defaultValue = "1",
            description = "GPUs driven by one host thread, as nccl-tests' -g (default: ${DEFAULT-VALUE})")
    int gpusPerThread;

    @Option(names = {"-d", "--datatype"}, paramLabel = "TYPE", defaultValue = "float", description = "data type (default: ${DEFAULT-VALUE})")
    String dataType;

    @Option(names = {"-o", "--op"}, paramLabel = "REDOP", defaultValue = "sum", description = "reduction (default: ${DEFAULT-VALUE})")
    String redop;

    @Option(names = {"-r", "--root"}, paramLabel = "RANK", defaultValue = "0", description = "root of broadcast and reduce (default: ${DEFAULT-VALUE})")
    int root;

    @Option(names = "--algo", paramLabel = "LIST", defaultValue = "auto",
            description = "algorithms as NCCL_ALGO takes them: auto, ring, nvls, or a list such as ^nvls; auto includes allpairs, which RCCL's MSCCL"
                    + " runs on one 8-GPU Instinct node; alltoall and sendrecv always run point to point (default: ${DEFAULT-VALUE})")
    String algo;

    @Option(names = "--proto", paramLabel = "LIST", defaultValue = "auto",
            description = "protocols as NCCL_PROTO takes them: auto, ll, ll128, simple, or a list such as ^ll (default: ${DEFAULT-VALUE})")
    String proto;

    @Option(names = "--channels", paramLabel = "N", description = "fixed channel count (default: as NCCL chooses)")
    Integer channels;

    @Option(names = "--nvls", paramLabel = "on|off", defaultValue = "on",
            description = "allow NVLS where the NVSwitch supports it, as NCCL_NVLS_ENABLE (default: ${DEFAULT-VALUE})")
    String nvls;

    @Option(names = "--collnet", paramLabel = "on|off", defaultValue = "off",
            description = "allow CollNet (in-network reduction, SHARP) on InfiniBand, as NCCL_COLLNET_ENABLE (default: ${DEFAULT-VALUE})")
    String collnet;

    @Mixin
    NcclFlag nccl;

    @Option(names = "--links", description = "print the links that limit the largest size, busiest first, instead of the table")
    boolean links;

    @Option(names = "--explain-choice",
            description = "print NCCL's cost-model prediction for every candidate algorithm and protocol beside the choice, instead of the table")
    boolean explainChoice;

    @Option(names = "--force", description = "run even when the estimate says the simulation would take more than five minutes or more memory than the Java heap")
    boolean force;

    @Option(names = "--measured", paramLabel = "FILE",
            description = "measured times to compare with: nccl-tests' output, or a CSV shaped like the calibration set")
    Path measured;

    @OutputFile
    @Option(names = "--trace", paramLabel = "FILE.json",
            description = "also write the largest size's collective as a Perfetto (Chrome trace-event) file: GPUs, channels, transfers, link use")
    Path trace;

    @Mixin
    WhatIfOptions whatIf;

    @Mixin
    StochasticOptions stochastic;

    @Mixin
    ReportOptions output;

    @Override
    public Integer call() {
        BenchSpec benchSpec = benchSpec();
        Variability.Spec variability = stochastic.replicated();
        if (variability != null && (links || explainChoice)) {
            throw new InputException("--replications summarises many runs; leave out --links and --explain-choice");
        }
        if ((variability != null || links || explainChoice) && (trace != null || measured != null)) {
            throw new InputException((trace != null ? "--trace" : "--measured") + " goes with the table of one run; leave out "
                    + (variability != null ? "--replications" : links ? "--links" : "--explain-choice"));
        }
        if (variability == null && (explainChoice || links)) {
            output.emit(output.reportFormat().render(explainChoice ? ChoiceTable.of(benchSpec) : LinkTable.of(benchSpec)),
                    spec.commandLine().getOut());
            return 0;
        }
        Map<Long, Double> measuredTimes = measured == null || variability != null ? null
                : Measured.read(measured, benchSpec.op());
        Communicator comm = communicator(benchSpec, variability);
        if (variability != null) {
            Replications.Result r = Replications.bench(benchSpec, comm, variability, stochastic.seed, stochastic.replications);
            output.emit(() -> ReplicationsView.json(r), ReplicationsView.table(r), spec.commandLine().getOut());
            return 0;
        }
        String description = system.description(benchSpec.whatIf());
        List<BenchRow> rows = Bench.run(benchSpec, comm, ProgressBar.onTerminal(spec.commandLine().getErr(), "bench: sizes"));
        if (trace != null && !rows.isEmpty()) {
            long largest = rows.get(rows.size() - 1).sizeBytes();
            RunFiles.current().write(trace, BenchTrace.json(comm, Bench.plan(benchSpec, comm, largest)));
        }
        output.writeReport(() -> {
            HtmlReport report = new HtmlReport("collsim bench " + benchSpec.op().ncclName());
            BenchReport.add(report, benchSpec, description, rows, measuredTimes);
            return report;
        });
        output.emit(output.reportFormat().render(BenchTable.of(benchSpec, description, rows, measuredTimes)), spec.commandLine().getOut());
        return 0;
    }

    /** The system the run needs, checked to run some size and, unless --force, not to take too long. */
    private Communicator communicator(BenchSpec benchSpec, Variability.Spec variability) {
        Communicator comm = Bench.communicator(benchSpec);
        Bench.checkSomeSizeRuns(benchSpec, comm.nRanks());
        if (!force) {
            Bench.checkNotTooLarge(benchSpec, comm, variability == null ? 1 : stochastic.replications, variability != null);
        }
        return comm;
    }

    /** This command as a sweep's point: its rows, or their replications; the flags that write files or other tables are refused. */
    @Override
    public PointResult point() {
        if (links || explainChoice || trace != null || measured != null || output.report != null || output.output != null) {
            throw new InputException("a sweep point gives its table to the sweep; leave out --links, --explain-choice, --trace,"
                    + " --measured, --report and --output");
        }
        BenchSpec benchSpec = benchSpec();
        Variability.Spec variability = stochastic.replicated();
        Communicator comm = communicator(benchSpec, variability);
        return variability != null
                ? new PointResult.Replicated(Replications.bench(benchSpec, comm, variability, stochastic.seed, stochastic.replications))
                : new PointResult.Bench(Bench.run(benchSpec, comm));
    }

    /** The flags as a spec, read in the order that decides which of two mistakes is reported. */
    private BenchSpec benchSpec() {
        system.system.requireOne();
        WhatIf knobs = whatIf.toWhatIf();
        Communicator whole = system.whole(knobs);
        CollectiveOp collective = CollectiveOp.fromName(op);
        SizeSweep sizes = new SizeSweep(SizeSweep.parseSize("-b", minBytes), SizeSweep.parseSize("-e", maxBytes), stepFactor,
                SizeSweep.parseSize("-i", stepBytes));
        BenchSystem on = system.on(whole);
        boolean collNet = Flags.onOff("--collnet", collnet);
        if (collNet && on.network() != null && !NetworkPreset.byName(on.network()).sharp()) {
            throw new InputException("--collnet on: " + on.network() + " has no in-network reduction (SHARP is InfiniBand's);"
                    + " CollNet needs an InfiniBand network, e.g. --network ib-ndr");
        }
        return new BenchSpecBuilder(collective, on, sizes)
                .whatIf(knobs)
                .gpusPerThread(gpusPerThread)
                .type(BenchSpecBuilder.type(dataType))
                .redop(Flags.parse("-o", () -> ReduceOp.fromName(redop)))
                .root(root)
                .algos(BenchSpecBuilder.algos(algo))
                .protocols(BenchSpecBuilder.protocols(proto))
                .channels(channels == null ? 0 : channels)
                .nvls(Flags.onOff("--nvls", nvls))
                .collNet(collNet)
                .nccl(nccl.release())
                .build();
    }
}
