package dev.collsim.scenarios.cli;

import dev.collsim.core.input.InputException;
import dev.collsim.reports.HtmlReport;
import dev.collsim.reports.ReportFormat;
import dev.collsim.scenarios.decode.DecodeSystem;
import dev.collsim.scenarios.decode.EngineSetup;
import dev.collsim.scenarios.decode.ModelConfig;
import dev.collsim.scenarios.load.Deployment;
import dev.collsim.scenarios.load.EngineScheduler;
import dev.collsim.scenarios.load.LoadOutcome;
import dev.collsim.scenarios.load.LoadSimulation;
import dev.collsim.scenarios.load.LoadSpec;
import dev.collsim.scenarios.load.workload.Lengths;
import dev.collsim.scenarios.load.workload.WorkloadBuilder;
import dev.collsim.scenarios.serve.KvTransfer;
import dev.collsim.scenarios.serve.ServingPlan;
import dev.collsim.scenarios.serve.ServingSearch;
import dev.collsim.scenarios.serve.ServingSpec;
import dev.collsim.scenarios.serve.Slo;
import dev.collsim.scenarios.serveload.PercentileSearch;
import dev.collsim.scenarios.views.Json;
import dev.collsim.scenarios.views.LoadHtml;
import dev.collsim.scenarios.views.LoadTrace;
import dev.collsim.scenarios.views.LoadView;
import dev.collsim.scenarios.views.ServeHtml;
import dev.collsim.scenarios.views.ServeView;
import dev.collsim.topologies.catalog.NetworkPreset;
import dev.collsim.topologies.systems.SystemPreset;
import dev.collsim.topologies.systems.WhatIf;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.Callable;
import java.util.function.BiConsumer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code collsim serve}: aggregated against disaggregated serving of a model at a TTFT and an ITL target;
 * with {@code --deployment}, one deployment under load, request by request.
 */
@Command(name = "serve", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Plans a model's serving at a time-to-first-token and an inter-token latency target, aggregated and disaggregated.",
            "For each system it searches the instances (TP, PP, EP, batch) that fit, simulates their decode steps and prefills, and finds",
            "the aggregated deployment (prefill chunks inside the decode steps) and the disaggregated one (xP prefill and yD decode",
            "instances, the KV cache moved between them) with the most output tokens/s per GPU at both targets, the GPUs a request",
            "rate needs, and a verdict per system.",
            "With --deployment SPEC it simulates that deployment under a workload instead, request by request on one clock (the",
            "engine's scheduler, KV-cache blocks, CUDA graphs, router and KV moves), and prints what vllm bench serve prints."})
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

    @Mixin
    LoadWorkloadOptions workload;

    @Mixin
    LoadRunOptions load;

    @Option(names = "--ttft-slo", paramLabel = "[pN:]TIME", defaultValue = "2s",
            description = "time-to-first-token target: a time is the mean, pN:TIME the N-th percentile (p99:2s), which simulated load runs"
                    + " decide (default: ${DEFAULT-VALUE})")
    String ttftSlo;

    @Option(names = "--itl-slo", paramLabel = "[pN:]TIME", defaultValue = "50ms",
            description = "inter-token latency target: a time is the mean time per output token, pN:TIME the N-th percentile of the gaps"
                    + " between tokens (p90:50ms) (default: ${DEFAULT-VALUE})")
    String itlSlo;

    @Option(names = "--kv-transfer", paramLabel = "WHEN", defaultValue = "after-prefill",
            description = "when a disaggregated prefill's KV cache moves: after-prefill (vLLM NIXL, TensorRT-LLM, SGLang) or layer-by-layer"
                    + " (default: ${DEFAULT-VALUE})")
    String kvTransfer;

    @Mixin
    EngineOptions engineOptions;

    @Mixin
    RequestOverheadFlag requestOverhead;

    @Mixin
    WhatIfOptions whatIf;

    @Option(names = "--threads", paramLabel = "T", description = "a plan's steps and load runs simulated at once (default: the cores); a --deployment run is one event after another")
    Integer threads;

    @Mixin
    ReportOptions output;

    /** The plan's own flags, which a load run of one deployment does not take. */
    private static final List<String> PLAN_ONLY = List.of("--gpus", "--ttft-slo", "--itl-slo");
    /** The workload's flags that a plan takes too: its one prompt and output length, and the rate it sizes for. */
    private static final List<String> SHARED = List.of("--isl", "--osl", "--rate");

    @Override
    public Integer call() {
        systems.requireGiven();
        return load.deployment != null ? runLoad() : plan();
    }

    /** Without --deployment: the search over deployments at the mean targets. */
    private Integer plan() {
        for (String flag : loadOnlyFlags()) {
            if (given(flag)) {
                throw new InputException(flag + " goes with --deployment SPEC (a load run of one deployment); serve without it plans at one"
                        + " --isl and --osl");
            }
        }
        int isl = tokens("--isl", workload.isl);
        int osl = tokens("--osl", workload.osl);
        WhatIf knobs = whatIf.toWhatIf();
        NetworkPreset net = network.preset();
        List<DecodeSystem> where = systems.presets().stream()
                .<DecodeSystem>map(p -> new DecodeSystem.Preset(p, net, OptionalInt.empty(), knobs))
                .toList();
        new WorkloadBuilder().rate(workload.rate); // the same bounds as a load run's rate
        ServingSpec serving = new ServingSpec(model.config(), where, gpus, isl, osl, Slo.parse("--ttft-slo", ttftSlo), Slo.parse("--itl-slo", itlSlo),
                workload.rate, model.weights(), engine(), KvTransfer.byName(kvTransfer));
        BiConsumer<Integer, Integer> steps = ProgressBar.onTerminal(spec.commandLine().getErr(), "serve: decode steps");
        ServingPlan plan = serving.atPercentiles()
                ? PercentileSearch.run(serving, Flags.threads(threads), steps, ProgressBar.onTerminal(spec.commandLine().getErr(), "serve: load runs"))
                : ServingSearch.run(serving, Flags.threads(threads), EngineScheduler.room(serving.engine().engine()), steps);
        output.writeReport(() -> {
            HtmlReport report = new HtmlReport("collsim serve " + plan.model());
            ServeHtml.add(report, plan);
            return report;
        });
        ReportFormat format = output.reportFormat();
        output.emit(format == ReportFormat.JSON ? Json.pretty(ServeView.json(plan)) : format.render(ServeView.tables(plan)), spec.commandLine().getOut());
        return 0;
    }

    /** With --deployment: that deployment under the workload, request by request. */
    private Integer runLoad() {
        for (String flag : PLAN_ONLY) {
            if (given(flag)) {
                throw new InputException(flag + " goes with planning; a --deployment's GPUs are its own, and its targets are --goodput's"
                        + " (e.g. --goodput 'ttft:2000 tpot:50')");
            }
        }
        List<SystemPreset> presets = systems.presets();
        if (presets.size() > 1) {
            throw new InputException("--system given " + presets.size() + " times: a --deployment runs on one system; plan without"
                    + " --deployment to compare several");
        }
        ModelConfig config = model.config();
        DecodeSystem where = new DecodeSystem.Preset(presets.get(0), network.preset(), OptionalInt.empty(), whatIf.toWhatIf());
        Deployment deployment = Deployment.parse(load.deployment);
        for (Deployment.Role role : deployment.roles()) {
            if (presets.get(0).family().maxNodes() == 1 && role.gpus() > presets.get(0).gpusPerNode()) {
                throw new InputException("--deployment '" + load.deployment + "': an instance of " + role.label() + " takes " + role.gpus()
                        + " GPUs; " + presets.get(0).id() + " is one server of " + presets.get(0).gpusPerNode());
            }
        }
        double[] percentiles = load.percentiles();
        LoadSpec loadSpec = new LoadSpec(config, where, model.weights(), engine(), deployment,
                workload.build(config.maxContext() > 0 ? config.maxContext() : Lengths.MAX_TOKENS), load.knobs(), load.router(),
                KvTransfer.byName(kvTransfer), load.goodput(), workload.seed, load.perfetto != null);
        LoadOutcome outcome = LoadSimulation.run(loadSpec,
                ProgressBar.onTerminal(spec.commandLine().getErr(), "serve: requests"));
        if (load.perfetto != null) {
            RunFiles.current().write(load.perfetto, out -> LoadTrace.write(outcome, out));
        }
        output.writeReport(() -> {
            HtmlReport report = new HtmlReport("collsim serve " + outcome.setup().model() + " under load");
            LoadHtml.add(report, outcome, percentiles);
            return report;
        });
        output.emitResult(() -> LoadView.json(outcome, percentiles), LoadView.table(outcome, percentiles), spec.commandLine().getOut());
        return 0;
    }

    /** The flags of a load run that a plan does not take. */
    /** The engine as set, with the server's time per request given or its own. */
    private EngineSetup engine() {
        return engineOptions.setup().withRequestOverhead(requestOverhead.orEngines());
    }

    private List<String> loadOnlyFlags() {
        return spec.mixins().entrySet().stream().filter(m -> m.getKey().equals("workload") || m.getKey().equals("load"))
                .flatMap(m -> m.getValue().options().stream()).map(OptionSpec::longestName).filter(f -> !SHARED.contains(f)).toList();
    }

    private boolean given(String flag) {
        return spec.commandLine().getParseResult().hasMatchedOption(flag);
    }

    /** A plan's one length: a token count, required. */
    private int tokens(String flag, String text) {
        if (text == null) {
            throw new InputException("Missing required option: '" + flag + "=TOKENS' (see '" + spec.qualifiedName() + " --help')");
        }
        if (text.indexOf(':') >= 0) {
            throw new InputException(flag + " '" + text + "': serve plans at one length; a distribution goes with --deployment SPEC");
        }
        return new Tokens().convert(text);
    }
}
