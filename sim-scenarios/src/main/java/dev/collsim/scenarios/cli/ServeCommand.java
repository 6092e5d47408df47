package dev.collsim.scenarios.cli;

import dev.collsim.core.input.InputException;
import dev.collsim.core.units.TimeSpan;
import dev.collsim.reports.HtmlReport;
import dev.collsim.reports.ReportFormat;
import dev.collsim.scenarios.decode.DecodeSystem;
import dev.collsim.scenarios.serve.KvTransfer;
import dev.collsim.scenarios.serve.ServingPlan;
import dev.collsim.scenarios.serve.ServingSearch;
import dev.collsim.scenarios.serve.ServingSpec;
import dev.collsim.scenarios.views.Json;
import dev.collsim.scenarios.views.ServeHtml;
import dev.collsim.scenarios.views.ServeView;
import dev.collsim.topologies.catalog.NetworkPreset;
import dev.collsim.topologies.systems.WhatIf;
import java.util.List;
import java.util.Locale;
import java.util.OptionalInt;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code collsim serve}: aggregated against disaggregated serving of a model at a TTFT and an ITL target. */
@Command(name = "serve", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Plans a model's serving at a time-to-first-token and an inter-token latency target, aggregated and disaggregated.",
            "For each system it searches the instances (TP, PP, EP, batch) that fit, simulates their decode steps and prefills, and finds",
            "the aggregated deployment (prefill chunks inside the decode steps) and the disaggregated one (xP prefill and yD decode",
            "instances, the KV cache moved between them) with the most output tokens/s per GPU at both targets, the GPUs a request",
            "rate needs, and a verdict per system."})
public final class ServeCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    ModelOptions model;

    @Mixin
    SystemFlag systems = SystemFlag.several();

    @Mixin
    NetworkFlag network;

    @Option(names = "--gpus", paramLabel = "N", defaultValue = "72",
            description = "GPUs of each system a deployment's unit may use (default: ${DEFAULT-VALUE})")
    int gpus;

    @Option(names = "--isl", paramLabel = "TOKENS", converter = Tokens.class, required = true, description = "prompt tokens per request")
    int isl;

    @Option(names = "--osl", paramLabel = "TOKENS", converter = Tokens.class, required = true, description = "output tokens per request")
    int osl;

    @Option(names = "--ttft-slo", paramLabel = "TIME", defaultValue = "2s", description = "mean time-to-first-token target (default: ${DEFAULT-VALUE})")
    String ttftSlo;

    @Option(names = "--itl-slo", paramLabel = "TIME", defaultValue = "50ms", description = "mean inter-token latency target (default: ${DEFAULT-VALUE})")
    String itlSlo;

    /** A million requests a second: past any one service's traffic, and the GPUs it needs stay countable. */
    private static final double MAX_RATE = 1e6;

    @Option(names = "--rate", paramLabel = "REQ/S", description = "requests per second to size each deployment for (GPUs needed)")
    Double rate;

    @Option(names = "--kv-transfer", paramLabel = "WHEN", defaultValue = "after-prefill",
            description = "when a disaggregated prefill's KV cache moves: after-prefill (vLLM NIXL, TensorRT-LLM, SGLang) or layer-by-layer"
                    + " (default: ${DEFAULT-VALUE})")
    String kvTransfer;

    @Mixin
    EngineOptions engineOptions;

    @Mixin
    WhatIfOptions whatIf;

    @Option(names = "--threads", paramLabel = "T", description = "steps simulated at once (default: the cores)")
    Integer threads;

    @Mixin
    ReportOptions output;

    @Override
    public Integer call() {
        systems.requireGiven();
        if (rate != null && !(rate > 0 && rate <= MAX_RATE)) {
            throw new InputException(String.format(Locale.ROOT, "--rate %s: expected requests per second above 0 and at most %,.0f", rate, MAX_RATE));
        }
        WhatIf knobs = whatIf.toWhatIf();
        NetworkPreset net = network.preset();
        List<DecodeSystem> where = systems.presets().stream()
                .<DecodeSystem>map(p -> new DecodeSystem.Preset(p, net, OptionalInt.empty(), knobs))
                .toList();
        ServingSpec serving = new ServingSpec(model.config(), where, gpus, isl, osl,
                Flags.parse("--ttft-slo", () -> TimeSpan.parse(ttftSlo)).picos() / 1e9,
                Flags.parse("--itl-slo", () -> TimeSpan.parse(itlSlo)).picos() / 1e9, rate, model.weights(), engineOptions.setup(),
                KvTransfer.byName(kvTransfer));
        ServingPlan plan = ServingSearch.run(serving, Flags.threads(threads), ProgressBar.onTerminal(spec.commandLine().getErr(),
                "serve: decode steps"));
        output.writeReport(() -> {
            HtmlReport report = new HtmlReport("collsim serve " + plan.model());
            ServeHtml.add(report, plan);
            return report;
        });
        ReportFormat format = output.reportFormat();
        output.emit(format == ReportFormat.JSON ? Json.pretty(ServeView.json(plan)) : format.render(ServeView.tables(plan)), spec.commandLine().getOut());
        return 0;
    }
}
