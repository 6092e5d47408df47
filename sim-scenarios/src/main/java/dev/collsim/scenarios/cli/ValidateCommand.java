package dev.collsim.scenarios.cli;

import dev.collsim.core.collective.CollectiveOp;
import dev.collsim.core.input.InputException;
import dev.collsim.reports.ReportFormat;
import dev.collsim.scenarios.validate.DatasetSetup;
import dev.collsim.scenarios.validate.Measured;
import dev.collsim.scenarios.validate.DecodeValidation;
import dev.collsim.scenarios.validate.EngineChoice;
import dev.collsim.scenarios.validate.KernelValidation;
import dev.collsim.scenarios.validate.ServingValidation;
import dev.collsim.scenarios.validate.Validation;
import dev.collsim.scenarios.validate.ValidationSpec;
import dev.collsim.scenarios.views.DecodeValidationView;
import dev.collsim.scenarios.views.KernelHtml;
import dev.collsim.scenarios.views.KernelValidationView;
import dev.collsim.scenarios.views.ServingValidationView;
import dev.collsim.scenarios.views.ValidationHtml;
import dev.collsim.scenarios.views.ValidationView;
import dev.collsim.topologies.systems.SystemPreset;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.BiConsumer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code collsim validate}: the simulator's error against the measured calibration set. */
@Command(name = "validate", mixinStandardHelpOptions = true,
        description = {"Simulates measured nccl-tests runs and prints the model's error per data set.",
            "The runs are every line of the calibration set that the model covers, and of any log given (run on --system);",
            "with --decode, every measured decode run of the decode calibration file (or --measured CSV);",
            "with --serving, every measured serving run of the serving calibration file (or --measured CSV), simulated request by request."})
public final class ValidateCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--calibration", paramLabel = "CSV",
            description = "a calibration CSV shaped like the bundled one (default: the bundled copy of the project's calibration set)")
    Path calibration;

    @Option(names = "--detail", description = "also list every measured line with its simulated time")
    boolean detail;

    @Parameters(paramLabel = "LOG", arity = "0..*",
            description = "your own nccl-tests outputs (or calibration-shaped CSVs) to add, each a data set run on the system below")
    List<Path> logs = List.of();

    @Mixin
    SystemFlag system;

    @Option(names = "--nodes", paramLabel = "N", defaultValue = "1", description = "its nodes (default: ${DEFAULT-VALUE})")
    int nodes;

    @Mixin
    GpusPerNodeFlag gpusPerNode;

    @Mixin
    NetworkFlag network;

    @Option(names = "--decode", description = "validate decode steps instead: every row of a measured decode CSV, simulated")
    boolean decode;

    @Option(names = "--serving", description = "validate serving runs instead: every run of a measured serving CSV, simulated request by request")
    boolean serving;

    @Option(names = "--kernels", description = "validate the step model's kernels instead: every row of the measured kernel tables"
            + " (aiconfigurator's GEMM, attention, MLA and MoE, bundled), priced as a step prices it")
    boolean kernels;

    @Option(names = "--measured", paramLabel = "CSV",
            description = "with --decode or --serving: a CSV shaped like decode_measured_calibration.csv (or serving_measured_calibration.csv),"
                    + " its models/ beside it (default: the bundled file)")
    Path measured;

    @Option(names = "--threads", paramLabel = "T", description = "with --serving: runs simulated at once (default: the cores)")
    Integer threads;

    @Mixin
    EngineFlag engine;

    @Mixin
    RequestOverheadFlag requestOverhead;

    @Mixin
    LoggedRunOptions run;

    @Mixin
    ReportOptions output;

    @Override
    public Integer call() {
        output.withoutReport = "validate writes one for the collectives and with --kernels, not with --decode or --serving";
        String systemName = system.name();
        if ((decode ? 1 : 0) + (serving ? 1 : 0) + (kernels ? 1 : 0) > 1) {
            throw new InputException("--decode, --serving and --kernels are three validations; give one");
        }
        if (threads != null && !serving) {
            throw new InputException("--threads goes with --serving");
        }
        if (requestOverhead.given() && !decode && !serving) {
            throw new InputException("--request-overhead goes with --decode or --serving, whose client-side runs it is part of");
        }
        if (decode) {
            return decode();
        }
        if (serving) {
            return serving();
        }
        if (kernels) {
            return kernels();
        }
        if (measured != null || engine.given()) {
            throw new InputException((measured != null ? "--measured CSV" : "--engine") + " goes with --decode or --serving;"
                    + " nccl-tests logs are given as arguments");
        }
        ValidationSpec validation = ValidationSpec.calibration(calibration);
        CollectiveOp operation = run.operation();
        for (Path log : logs) {
            int perNode = SystemPreset.byName(systemName).gpusPerNode(gpusPerNode.count);
            // The release the log's header names, the newest where it names none.
            validation = validation.withLog(log, operation, new DatasetSetup(log.getFileName().toString(), systemName, nodes, perNode, network.name,
                    run.gpusPerThread, run.algo, null, Measured.header(log).nccl(), null));
        }
        Validation v = Validation.run(validation);
        ReportFormat format = output.reportFormat();
        StringBuilder text = new StringBuilder();
        if (format == ReportFormat.MARKDOWN) {
            text.append("# Validation against measured nccl-tests runs\n\n")
                    .append("Generated by `./collsim validate --detail --format markdown` followed by ")
                    .append("`./collsim validate --decode --format markdown` (the decode steps), ")
                    .append("`./collsim validate --serving --format markdown` (the serving runs) and ")
                    .append("`./collsim validate --kernels --format markdown` (the kernels, at the end): `").append(REGENERATE).append("`; ")
                    .append("do not edit by hand. The measured data and its sources: `sim-scenarios/src/main/resources/calibration/`.\n\n");
        }
        text.append(format.render(detail ? List.of(ValidationView.summary(v), ValidationView.detail(v)) : List.of(ValidationView.summary(v))));
        output.writeReport(() -> ValidationHtml.report(v));
        output.emit(text.toString(), spec.commandLine().getOut());
        return 0;
    }

    private EngineChoice engines() {
        return new EngineChoice(engine.forced(), requestOverhead.orEngines());
    }

    private Integer decode() {
        if (!logs.isEmpty() || calibration != null) {
            throw new InputException("--decode validates a measured decode CSV (--measured); leave out nccl-tests logs and --calibration");
        }
        EngineChoice engines = engines();
        DecodeValidation v = measured == null ? DecodeValidation.bundled(engines) : DecodeValidation.file(measured, engines);
        String source = measured == null ? "decode calibration" : measured.getFileName().toString();
        if (v.simulated().isEmpty() && v.simulatedTtft().isEmpty()) {
            // An error over no rows would print as 0.0 %: say that nothing was validated, and why the first row was not.
            DecodeValidation.Outcome first = v.outcomes().get(0);
            throw new InputException((measured == null ? source : measured.toString()) + ": none of its " + v.outcomes().size()
                    + " rows could be simulated, so nothing was validated (row " + first.id() + ": " + first.skipped() + ")");
        }
        ReportFormat format = output.reportFormat();
        StringBuilder text = new StringBuilder();
        if (format == ReportFormat.MARKDOWN) {
            text.append("### Decode steps and times to first token against measured serving runs\n\n")
                    .append("Generated by `./collsim validate --decode --format markdown`; the measured runs and their sources: ")
                    .append("`sim-scenarios/src/main/resources/calibration/decode_measured_calibration.csv` and ")
                    .append("`ttft_measured_calibration.csv` beside it.\n\n");
        }
        text.append(format.render(DecodeValidationView.tables(v, source)));
        if (measured == null) {
            // Instinct nodes run other engines' builds and kernels: scored apart, so that neither set's error hides the other's.
            DecodeValidation instinct = DecodeValidation.bundledInstinct(engines);
            if (format == ReportFormat.MARKDOWN) {
                text.append("\n#### AMD Instinct nodes (vLLM and SGLang on ROCm)\n\nThe runs of ")
                        .append("`decode_measured_calibration_instinct.csv`, scored apart from the NVIDIA runs above.\n\n");
            } else {
                text.append("\n");
            }
            text.append(format.render(DecodeValidationView.tables(instinct, "instinct decode calibration")));
        }
        output.emit(text.toString(), spec.commandLine().getOut());
        return 0;
    }
    /** The heading and prose of docs/validation.md's serving section, printed before its tables. */
    static final String SERVING_MARKDOWN = """
            ## Serving

            Generated by `./collsim validate --serving --format markdown`; the measured runs and their sources: \
            `sim-scenarios/src/main/resources/calibration/serving_measured_calibration.csv` (aiconfigurator's public silicon \
            data: closed-loop concurrency, fixed ISL and OSL, mean TTFT and mean TPOT of each run) and the model \
            configs in `models/` beside it.

            Each run is simulated request by request as it was run (`collsim serve --deployment`'s simulation) and \
            scored against its measured figures, TTFT and TPOT apart. A run is the rows that share every column \
            the simulation reads; each row is one figure of it (metric and stat). The mapping:

            - model: the catalogue (DeepSeek-R1 runs as DeepSeek-V3's architecture, Llama-3.1-70B as Llama-3-70B's) or \
            a `config.json` under `models/` beside the CSV; one that cannot be read is that run's reason, not the end \
            of the validation;
            - system: the system and GPU columns as `validate --decode` maps them (8-GPU HGX H100 node: `hgx-h100`, \
            B300 SXM 288GB: `hgx-b300`); a GPU without a preset is the run's reason;
            - engine: the framework column (vLLM: `vllm`, SGLang: `sglang`, TensorRT-LLM: `trtllm`), and its version \
            where it changed a default: vLLM from 0.14.0 schedules the next step while the GPU runs this one \
            (async scheduling, on by default since its #27614; not with pipeline stages); precision: `dtype`;
            - deployment: `mode` agg is one instance of the row's tp, pp, ep and dp (`tp8`, `tp4 dp4 ep16`; an ep below \
            tp x dp splits each expert over tp / ep ranks, MoE TP inside EP); disagg is \
            `NP ... + MD ...` from `prefill_workers` and `decode_workers` and each role's tp, pp, ep and dp, \
            `prefill_batch` and `decode_batch` the roles' maximum batch (`1P tp1 dp16 ep16 b1 + 3D tp16 ep16 b2`);
            - workload: a closed loop of `batch_or_concurrency` requests in flight, every prompt ISL and every output \
            OSL tokens, 2 x concurrency requests of warm-up and then 10 x concurrency measured, as aiconfigurator's \
            benchmark runs them (AIPerf's `--warmup-request-count 2C --request-count 10C`: the warm-up a phase of its own, \
            the measured requests sent C at once when its last request has ended), seed 0;
            - the engine's scheduler as aiconfigurator's generator deploys it (`rule_plugin/<engine>.rule`): CUDA-graph \
            padding on; a step's tokens ISL + 1,500, and in an aggregated vLLM or TensorRT-LLM instance its batch (the \
            requests in flight per replica) besides; SGLang's aggregated prompt chunks mixed into its decode steps; the \
            other settings the engine's defaults; requests routed to instances and DP replicas in turn (Dynamo's frontend \
            and SGLang's DP attention default); a disaggregated request's KV cache sent once its prefill is done \
            (TensorRT-LLM, SGLang and vLLM's NixlConnector).

            A run collsim cannot simulate keeps every row, listed with the reasons; geomean |err| and bias are over \
            the rows simulated, per metric and stat, system, engine and mode (and per model where a group holds \
            several).

            """;

    private Integer kernels() {
        if (!logs.isEmpty() || calibration != null || measured != null || engine.given() || detail) {
            throw new InputException("--kernels validates the bundled kernel tables, a line per kernel, GPU, format and band;"
                    + " leave out nccl-tests logs, --calibration, --measured, --engine and --detail");
        }
        ReportFormat format = output.reportFormat();
        KernelValidation v = KernelValidation.bundled();
        String text = (format == ReportFormat.MARKDOWN ? KERNELS_MARKDOWN : "") + format.render(KernelValidationView.tables(v));
        output.writeReport(() -> KernelHtml.report(v));
        output.emit(text, spec.commandLine().getOut());
        return 0;
    }

    /** The command that writes docs/validation.md. */
    static final String REGENERATE = "(./collsim validate --detail --format markdown; echo; ./collsim validate --decode --format markdown; echo;"
            + " ./collsim validate --serving --format markdown; echo; ./collsim validate --kernels --format markdown) > docs/validation.md";

    /** The heading of docs/validation.md's kernel section, printed before its table. */
    private static final String KERNELS_MARKDOWN = """
            ## Kernels

            Generated by `./collsim validate --kernels --format markdown`; the measured tables and where they come from: \
            `sim-scenarios/src/main/resources/calibration/kernels/` and `tools/aic/README.md`.

            """;

    private Integer serving() {
        if (!logs.isEmpty() || calibration != null) {
            throw new InputException("--serving validates a measured serving CSV (--measured); leave out nccl-tests logs and --calibration");
        }
        EngineChoice engines = engines();
        int t = Flags.threads(threads);
        BiConsumer<Integer, Integer> progress = ProgressBar.onTerminal(spec.commandLine().getErr(), "validate --serving");
        ServingValidation v = measured == null ? ServingValidation.bundled(engines, t, progress)
                : ServingValidation.file(measured, engines, t, progress);
        String source = measured == null ? "serving calibration" : measured.getFileName().toString();
        if (v.simulated().isEmpty()) {
            ServingValidation.Outcome first = v.outcomes().get(0);
            throw new InputException((measured == null ? source : measured.toString()) + ": none of its " + v.outcomes().size()
                    + " rows could be simulated, so nothing was validated (row " + first.row().id() + ": " + first.skipped() + ")");
        }
        ReportFormat format = output.reportFormat();
        String text = (format == ReportFormat.MARKDOWN ? SERVING_MARKDOWN : "") + format.render(ServingValidationView.tables(v, source));
        output.emit(text, spec.commandLine().getOut());
        return 0;
    }
}
