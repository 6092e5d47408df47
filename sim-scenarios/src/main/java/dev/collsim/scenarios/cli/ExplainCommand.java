package dev.collsim.scenarios.cli;

import dev.collsim.core.collective.CollectiveOp;
import dev.collsim.core.collective.Protocol;
import dev.collsim.core.input.InputException;
import dev.collsim.core.input.Require;
import dev.collsim.core.nccl.AlgorithmId;
import dev.collsim.core.nccl.Communicator;
import dev.collsim.core.nccl.Selection;
import dev.collsim.core.units.DataSize;
import dev.collsim.reports.HtmlReport;
import dev.collsim.reports.Table;
import dev.collsim.scenarios.explain.Explain;
import dev.collsim.scenarios.explain.ExplainSpec;
import dev.collsim.scenarios.views.ExplainHtml;
import dev.collsim.scenarios.views.ExplainView;
import dev.collsim.topologies.file.TopologyFile;
import dev.collsim.topologies.systems.SystemPreset;
import dev.collsim.topologies.systems.WhatIf;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code collsim explain OP}: the teaching view. */
@Command(name = "explain", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Shows how a collective runs, transfer by transfer.",
            "Who sends which bytes to whom, when, and what each transfer carries; then the textbook alpha-beta time beside",
            "the simulated one."})
public final class ExplainCommand implements Callable<Integer> {
    /** A schedule longer than this is summarised, not printed line by line. */
    private static final int MAX_ROWS = 5000;

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "OP", description = "the collective, e.g. all_reduce")
    String op;

    /** Null when not given: alltoall and sendrecv run point to point whatever it says, so giving it is an error there. */
    @Option(names = "--algo", paramLabel = "NAME", description = "ring, tree, nvls, nvlstree, collnetdirect, collnetchain, pat,"
            + " allpairs (RCCL's MSCCL, one 8-GPU Instinct node), oneshot or twoshot (default: ring)")
    String algo;

    @Option(names = "--ranks", paramLabel = "N", defaultValue = "4", description = "GPUs taking part (default: ${DEFAULT-VALUE})")
    int ranks;

    @Option(names = "--nodes", paramLabel = "N", defaultValue = "1",
            description = "nodes the ranks are spread over, --ranks / N on each (default: ${DEFAULT-VALUE}), e.g. --nodes 2 --ranks 16")
    int nodes;

    @Option(names = "--size", paramLabel = "SIZE", defaultValue = "4MiB", description = "message size with its unit, e.g. 4MiB (default: ${DEFAULT-VALUE})")
    String size;

    @Mixin
    SystemFlag system;

    @Option(names = "--topology", paramLabel = "FILE", description = "a topology file instead of --system and --ranks (all its GPUs take part)")
    Path topology;

    @Option(names = "--proto", paramLabel = "NAME", defaultValue = "auto", description = "LL, LL128, Simple or auto (default: ${DEFAULT-VALUE})")
    String proto;

    @Option(names = "--channels", paramLabel = "N", defaultValue = "1",
            description = "channels; 1 keeps the schedule readable, 0 chooses as NCCL does (default: ${DEFAULT-VALUE})")
    int channels;

    @Mixin
    NcclFlag nccl;

    @Mixin
    ReportOptions output;

    @Override
    public Integer call() {
        String systemName = system.name();
        CollectiveOp collective = CollectiveOp.fromName(op);
        Communicator comm;
        if (topology != null) {
            if (system.given()) {
                throw new InputException("--topology describes the whole system; leave out --system");
            }
            comm = TopologyFile.load(topology);
            ranks = comm.nRanks();
        } else {
            SystemPreset preset = SystemPreset.byName(systemName);
            Require.atLeastOne("--nodes", nodes);
            if (nodes > 1 && preset.family().maxNodes() == 1) {
                throw new InputException("--nodes " + nodes + ": " + preset.id() + " is one server");
            }
            if (nodes == 1 && (ranks < 1 || ranks > preset.gpusPerNode())) {
                throw new InputException("--ranks " + ranks + ": explain runs on one " + preset.id() + " node of " + preset.gpusPerNode()
                        + " GPUs; expected 1 to " + preset.gpusPerNode() + " (--nodes N spreads more over N nodes)");
            }
            if (ranks < 1 || ranks % nodes != 0 || ranks / nodes > preset.gpusPerNode()) {
                throw new InputException("--ranks " + ranks + ": explain puts the same number of ranks on each of its " + nodes + " "
                        + preset.id() + " nodes of " + preset.gpusPerNode() + " GPUs; expected a multiple of " + nodes + " up to "
                        + nodes * preset.gpusPerNode());
            }
            comm = preset.build(nodes, ranks / nodes, null, WhatIf.NONE);
        }
        comm = comm.runBy(nccl.release(), "--nccl");
        DataSize message = Flags.parse("--size", () -> DataSize.parse(size));
        if (collective.pointToPoint() && algo != null) {
            throw new InputException("--algo " + algo + ": " + collective.ncclName() + " runs point to point; leave out --algo");
        }
        ExplainSpec explain = new ExplainSpec(comm, collective, message,
                Flags.parse("--algo", () -> Selection.parse(algo == null ? "ring" : algo, AlgorithmId.class, AlgorithmId::label, "algorithm")),
                Flags.parse("--proto", () -> Selection.parse(proto, Protocol.class, Protocol::label, "protocol")), channels);
        if (explain.bytes() == 0) {
            throw new InputException("--size " + size + ": nothing to move on " + ranks + " ranks");
        }
        Explain.Run run = Explain.run(explain);
        if (run.result().schedule().transferCount() > MAX_ROWS) {
            throw new InputException("the schedule has " + run.result().schedule().transferCount() + " transfers, more than "
                    + MAX_ROWS + " lines; use a smaller --size, fewer --ranks or --channels 1");
        }
        Table table = ExplainView.table(run);
        output.writeReport(() -> {
            HtmlReport report = new HtmlReport(table.title());
            ExplainHtml.add(report, table, run);
            return report;
        });
        output.emit(output.reportFormat().render(table), spec.commandLine().getOut());
        return 0;
    }
}
