package dev.collsim.scenarios.cli;

import dev.collsim.core.input.InputException;
import dev.collsim.reports.HtmlReport;
import dev.collsim.scenarios.decode.AllReduceKind;
import dev.collsim.scenarios.decode.DecodeResult;
import dev.collsim.scenarios.decode.DecodeSpec;
import dev.collsim.scenarios.decode.DecodeStep;
import dev.collsim.scenarios.decode.DecodeSystem;
import dev.collsim.scenarios.decode.EngineSetup;
import dev.collsim.scenarios.decode.ModelConfig;
import dev.collsim.scenarios.decode.Overlap;
import dev.collsim.scenarios.replications.Replications;
import dev.collsim.scenarios.stochastic.Variability;
import dev.collsim.scenarios.sweep.PointResult;
import dev.collsim.scenarios.views.DecodeHtml;
import dev.collsim.scenarios.views.DecodeJson;
import dev.collsim.scenarios.views.DecodeReport;
import dev.collsim.scenarios.views.ReplicationsView;
import dev.collsim.scenarios.views.TraceWriter;
import dev.collsim.topologies.systems.SystemPreset;
import dev.collsim.topologies.systems.WhatIf;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code collsim decode}: one decode step of a model on a system, layer by layer. */
@Command(name = "decode", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Simulates one decode step of an LLM, layer by layer.",
            "Every kernel the serving engine launches runs at the efficiency its kind reaches and every collective chunk by",
            "chunk on the system, scheduled on streams, then the engine's host time; it prints per-layer times, the",
            "inter-token latency and tokens/s."})
public final class DecodeCommand implements Callable<Integer>, SweptCommand {
    @Spec
    CommandSpec spec;

    @Mixin
    ModelOptions model;

    @Mixin
    SystemFlag system;

    @Option(names = "--topology", paramLabel = "FILE", description = "a topology file (docs/topology-format.md) instead of --system")
    String topology;

    @Mixin
    NetworkFlag network;

    @Option(names = "--nodes", paramLabel = "N", description = "nodes (default: as many as the layout needs); with --topology, N copies of its node joined through its NICs")
    Integer nodes;

    @Mixin
    GpusPerNodeFlag gpusPerNode;

    @Mixin
    LayoutOptions layout;

    @Option(names = "--dp", paramLabel = "D", defaultValue = "1", description = "data-parallel replicas (default: ${DEFAULT-VALUE})")
    int dp;

    @Mixin
    ContextOption context;

    @Option(names = "--allreduce", paramLabel = "KIND", defaultValue = "auto",
            description = "auto (as vLLM chooses), nccl, oneshot, twoshot or nvls (default: ${DEFAULT-VALUE})")
    String allReduce;

    @Option(names = "--overlap", paramLabel = "MODE", defaultValue = "none", description = "none, two-batch or fused (default: ${DEFAULT-VALUE})")
    String overlap;

    @Option(names = "--cuda-graphs", paramLabel = "auto|on|off", defaultValue = "auto",
            description = "kernels replayed from a CUDA graph (default: ${DEFAULT-VALUE}, as the engine does: on, off for trtllm-tensorrt and lmdeploy)")
    String cudaGraphs;

    @Mixin
    EngineOptions engineOptions;

    @Mixin
    WhatIfOptions whatIf;

    @OutputFile
    @Option(names = "--trace", paramLabel = "FILE", description = "also write the step as a Perfetto (Chrome trace-event) JSON file")
    Path trace;

    @Option(names = "--fabrics", paramLabel = "SYSTEM[@G]", split = ",", splitSynopsisLabel = ",",
            description = "run the same step on each system (G GPUs per node in use, e.g. hgx-h100@1 for TP across nodes)"
                    + " and print one row each: the communication's bandwidth and latency terms")
    List<String> fabrics;

    @Mixin
    StochasticOptions stochastic;

    @Mixin
    ReportOptions output;

    @Override
    public Integer call() {
        String systemName = system.name();
        ModelConfig config = model.config();
        checkTopologyAlone();
        Variability.Spec variability = stochastic.replicated();
        if (variability != null && (trace != null || fabrics != null)) {
            throw new InputException("--replications summarises many steps; leave out --trace and --fabrics");
        }
        if (fabrics != null) {
            if (trace != null) {
                throw new InputException("--trace follows one step; leave it out with --fabrics");
            }
            List<DecodeResult> results = new ArrayList<>();
            for (String entry : fabrics) {
                String[] parts = entry.split("@", -1);
                if (parts.length > 2 || (parts.length == 2 && !parts[1].matches("[1-9][0-9]{0,3}"))) {
                    throw new InputException("--fabrics '" + entry + "': expected SYSTEM or SYSTEM@GPUS_PER_NODE, e.g. hgx-h100@1");
                }
                Integer perNode = parts.length == 2 ? Integer.valueOf(parts[1]) : null;
                results.add(DecodeStep.run(spec(config, parts[0], perNode)));
            }
            output.emit(output.reportFormat().render(DecodeReport.fabrics(results)), spec.commandLine().getOut());
            return 0;
        }
        DecodeSpec decode = spec(config, systemName, gpusPerNode.count);
        if (variability != null) {
            Replications.Result r = Replications.decode(decode, variability, stochastic.seed, stochastic.replications);
            output.emit(() -> ReplicationsView.json(r), ReplicationsView.table(r), spec.commandLine().getOut());
            return 0;
        }
        DecodeResult result = DecodeStep.run(decode);
        if (trace != null) {
            RunFiles.current().write(trace, TraceWriter.json(result));
        }
        output.writeReport(() -> {
            HtmlReport report = new HtmlReport("collsim decode " + result.setup().model());
            DecodeHtml.add(report, result);
            return report;
        });
        output.emitResult(() -> DecodeJson.of(result), DecodeReport.table(result), spec.commandLine().getOut());
        return 0;
    }

    /** This command as a sweep's point: its step, or the step's replications; the flags that write files or other tables are refused. */
    @Override
    public PointResult point() {
        if (fabrics != null || trace != null || output.report != null || output.output != null) {
            throw new InputException("a sweep point gives its step to the sweep; leave out --fabrics, --trace, --report and --output");
        }
        String systemName = system.name();
        ModelConfig config = model.config();
        checkTopologyAlone();
        DecodeSpec decode = spec(config, systemName, gpusPerNode.count);
        Variability.Spec variability = stochastic.replicated();
        return variability != null
                ? new PointResult.Replicated(Replications.decode(decode, variability, stochastic.seed, stochastic.replications))
                : new PointResult.Decode(DecodeStep.run(decode));
    }

    private void checkTopologyAlone() {
        if (topology != null && fabrics != null) {
            throw new InputException("--topology describes the whole system; leave out --fabrics");
        }
        SystemOptions.requireTopologyAlone(topology, system, nodes == null ? 1 : nodes, gpusPerNode, network, whatIf.toWhatIf());
    }

    private DecodeSpec spec(ModelConfig config, String systemName, Integer perNode) {
        WhatIf knobs = whatIf.toWhatIf();
        DecodeSystem where = topology != null
                ? new DecodeSystem.File(Path.of(topology).getFileName().toString(),
                        SystemOptions.topology(topology, nodes == null ? 1 : nodes, network, knobs), knobs.linkEdits())
                : new DecodeSystem.Preset(SystemPreset.byName(systemName), network.preset(),
                        perNode == null ? OptionalInt.empty() : OptionalInt.of(perNode), knobs);
        EngineSetup engine = engineOptions.setup();
        Boolean graphs = Flags.autoOnOff("--cuda-graphs", cudaGraphs);
        layout.checkMoeTp(dp);
        return new DecodeSpec(config, where, nodes == null ? OptionalInt.empty() : OptionalInt.of(nodes), layout.tp, layout.pp, layout.ep,
                dp, layout.batch, context.tokens, model.weights(), AllReduceKind.fromName(allReduce), Overlap.fromName(overlap),
                graphs != null ? graphs : engine.engine().cudaGraphsByDefault(), engine.engine(), engine.kvCache(), engine.overlapScheduler(),
                engine.speculation(), engine.experts());
    }
}
