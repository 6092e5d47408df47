package dev.collsim.scenarios.cli;

import dev.collsim.core.input.InputException;
import dev.collsim.core.units.TimeSpan;
import dev.collsim.reports.HtmlReport;
import dev.collsim.reports.ReportFormat;
import dev.collsim.scenarios.compare.CompareSpec;
import dev.collsim.scenarios.compare.Comparison;
import dev.collsim.scenarios.decode.DecodeSystem;
import dev.collsim.scenarios.views.CompareHtml;
import dev.collsim.scenarios.views.CompareView;
import dev.collsim.scenarios.views.Json;
import dev.collsim.topologies.systems.WhatIf;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code collsim compare}: systems against an inter-token latency target for one model. */
@Command(name = "compare", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Finds each system's best layout of a model on N GPUs within an inter-token latency target.",
            "It searches every layout (TP, PP, DP, EP, batch, overlap) that fits in memory, simulates each decode step,",
            "and prints each system's Pareto frontier of tokens/s per GPU against tokens/s per user and the best layout",
            "within the target."})
public final class CompareCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    ModelOptions model;

    @Mixin
    SystemFlag systems = SystemFlag.several();

    @Option(names = "--topology", paramLabel = "FILE", description = "a topology file (docs/topology-format.md): your own machine,"
            + " compared after the presets; repeatable")
    List<String> topologies = List.of();

    @Option(names = "--nodes", paramLabel = "N", defaultValue = "1", description = "with --topology, N copies of each file's node joined"
            + " through its NICs on --network (default: ${DEFAULT-VALUE})")
    int nodes;

    @Option(names = "--gpus", paramLabel = "N", defaultValue = "72", description = "GPUs of each system (default: ${DEFAULT-VALUE})")
    int gpus;

    @Mixin
    ContextOption context;

    @Option(names = "--itl-slo", paramLabel = "TIME", defaultValue = "50ms", description = "inter-token latency target (default: ${DEFAULT-VALUE})")
    String itlSlo;

    @Mixin
    NetworkFlag network;

    @Mixin
    GpusPerNodeFlag gpusPerNode;

    @Mixin
    WhatIfOptions whatIf;

    @Mixin
    EngineOptions engineOptions;

    @Option(names = "--threads", paramLabel = "T", description = "layouts simulated at once (default: the cores)")
    Integer threads;

    @Mixin
    ReportOptions output;

    @Override
    public Integer call() {
        int t = Flags.threads(threads);
        WhatIf knobs = whatIf.toWhatIf();
        if (topologies.isEmpty() && nodes != 1) {
            throw new InputException("--nodes " + nodes + ": joins copies of a --topology file's node; a preset's layouts take the nodes"
                    + " they need");
        }
        if (!topologies.isEmpty() && knobs.changesNode()) {
            throw new InputException("--topology describes its node: leave out the knobs that change a preset's node (--scale nvlink and"
                    + " pcie, --gdr) or edit the file; --network and its knobs act on the copies' network");
        }
        List<DecodeSystem.File> files = new ArrayList<>();
        for (String file : topologies) {
            files.add(new DecodeSystem.File(Path.of(file).getFileName().toString() + (nodes > 1 ? " x" + nodes : ""),
                    SystemOptions.topology(file, nodes, network, knobs), knobs.linkEdits()));
        }
        CompareSpec compare = new CompareSpec(model.config(), systems.presets(), gpus, context.tokens,
                model.weights(), Flags.parse("--itl-slo", () -> TimeSpan.parse(itlSlo)), engineOptions.setup(),
                network.preset(), knobs,
                gpusPerNode.inUse(), files);
        Comparison c = Comparison.run(compare, t, ProgressBar.onTerminal(spec.commandLine().getErr(), "compare: layouts"));
        if (c.systems().stream().allMatch(r -> r.layouts() == 0)) {
            throw new InputException("no layout of " + c.model() + " fits in memory on " + gpus + " GPUs of " + String.join(" or ", c.systems().stream().map(Comparison.SystemResult::system).toList())
                    + " at context " + context.tokens + " in " + model.weights().label() + ": give more --gpus, a smaller --dtype or a shorter --context");
        }
        output.writeReport(() -> {
            HtmlReport report = new HtmlReport("collsim compare " + c.model());
            CompareHtml.add(report, c);
            return report;
        });
        ReportFormat format = output.reportFormat();
        String text = format == ReportFormat.JSON ? Json.pretty(CompareView.json(c)) : format.render(CompareView.tables(c));
        output.emit(text, spec.commandLine().getOut());
        return 0;
    }
}
