package dev.collsim.scenarios.validate;

import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvSchema;
import dev.collsim.core.input.InputException;
import dev.collsim.core.input.TextFile;
import dev.collsim.scenarios.decode.DecodeSystem;
import dev.collsim.scenarios.decode.EngineSetup;
import dev.collsim.scenarios.decode.ExpertParallel;
import dev.collsim.scenarios.decode.ModelConfig;
import dev.collsim.scenarios.decode.Overlap;
import dev.collsim.scenarios.decode.Precision;
import dev.collsim.scenarios.decode.ServingEngine;
import dev.collsim.scenarios.decode.Speculation;
import dev.collsim.scenarios.load.Deployment;
import dev.collsim.scenarios.load.Distribution;
import dev.collsim.scenarios.load.EngineScheduler;
import dev.collsim.scenarios.load.LoadOutcome;
import dev.collsim.scenarios.load.LoadSimulation;
import dev.collsim.scenarios.load.LoadSpec;
import dev.collsim.scenarios.load.Router;
import dev.collsim.scenarios.load.SchedulerKnobs;
import dev.collsim.scenarios.load.workload.RequestSpec;
import dev.collsim.scenarios.load.workload.Workload;
import dev.collsim.scenarios.validate.DecodeValidation.Fields;
import dev.collsim.scenarios.validate.ServingRow.Role;
import dev.collsim.scenarios.serve.KvTransfer;
import dev.collsim.scenarios.validate.ServingRow.Run;
import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * {@code validate --serving}: every measured serving run of a CSV (the serving calibration file's
 * columns) simulated request by request as it was run, and its TTFT, TPOT and the other figures
 * scored apart.
 *
 * <p>A run is the rows that share every column the simulation reads (framework, GPU, model, dtype,
 * the deployment, the load, ISL and OSL); each row is one figure of it (a metric and a stat) and the
 * run is simulated once. The run becomes a load: the model from the catalogue or a {@code config.json}
 * under {@code models/} beside the CSV; the system from the system and GPU columns as {@code validate
 * --decode} maps them; the engine from the framework; the deployment from {@code mode} (agg: one
 * instance of tp, pp, ep, dp; disagg: {@code NP ... + MD ...} from the prefill_* and decode_* columns,
 * each role's batch its maximum batch); the workload a closed loop of the concurrency, fixed ISL and
 * OSL, {@value #WARMUP_PER_USER} x concurrency requests of warm-up and then {@value #MEASURED_PER_USER}
 * x concurrency measured, as aiconfigurator's benchmark runs them (AIPerf's {@code --warmup-request-count 2C
 * --request-count 10C}: the warm-up a phase of its own, the measured requests sent C at once when it has ended), seed 0;
 * the engine's scheduler as aiconfigurator's generator deploys it ({@link #knobs}), requests routed in turn ({@link #ROUTER}), a disaggregated request's KV cache sent once its prefill is done (as
 * TensorRT-LLM, SGLang and vLLM's NixlConnector do). A run collsim cannot simulate keeps its rows,
 * each listed with the reasons.
 */
public final class ServingValidation {
    public static final String BUNDLED = "/calibration/serving_measured_calibration.csv";
    /** Measured requests per request in flight, as aiconfigurator's genai-perf runs send them. */
    public static final int MEASURED_PER_USER = 10;
    /** Warm-up requests per request in flight, sent first and left out of the figures. */
    public static final int WARMUP_PER_USER = 2;
    /** Tokens aiconfigurator's generator adds to the ISL for a step's token budget ({@code SlaConfig.isl + 1500}). */
    public static final int BUDGET_ABOVE_ISL = 1500;

    /**
     * The scheduler as aiconfigurator's generator deploys a run's engine ({@code generator/rule_plugin/<engine>.rule}):
     * <ul>
     * <li>CUDA-graph padding on (TensorRT-LLM's own default leaves it off; vLLM and SGLang pad by default);</li>
     * <li>a step's tokens the ISL and {@value #BUDGET_ABOVE_ISL} more (vLLM's max_num_batched_tokens, TensorRT-LLM's
     * max_num_tokens rounded up to its blocks, SGLang's max_prefill_tokens), and an aggregated vLLM or TensorRT-LLM
     * instance's batch besides (its max_batch_size, the requests in flight per replica as the benchmark sizes it); a
     * decode worker's its batch, which no run's ISL budget falls short of;</li>
     * <li>SGLang's aggregated instances mix prompt chunks into the decode steps ({@code enable_mixed_chunk = true}).</li>
     * </ul>
     */
    static SchedulerKnobs knobs(Run run, ServingEngine engine, Deployment deployment, int concurrency) {
        boolean aggregated = !run.disaggregated();
        int budget = run.isl() + BUDGET_ABOVE_ISL;
        if (aggregated && engine != ServingEngine.SGLANG) {
            Deployment.Role agg = deployment.roles().get(0);
            budget += (int) Math.ceil((double) concurrency / (agg.instances() * agg.dp()));
        } else if (!aggregated) {
            budget = Math.max(budget, run.decode().batch());
        }
        if (engine == ServingEngine.TRTLLM) {
            int block = EngineScheduler.TRTLLM_BLOCK_TOKENS;
            budget = (budget + block - 1) / block * block;
        }
        Boolean mixed = aggregated && engine == ServingEngine.SGLANG ? Boolean.TRUE : null;
        return new SchedulerKnobs(null, budget, null, null, null, null, null, true, mixed);
    }

    /**
     * How requests pick an instance and a DP replica: in turn, as Dynamo's frontend and SGLang's DP attention do by
     * default; in a closed loop of equal requests the least-loaded choice spreads them the same way.
     */
    static final Router ROUTER = Router.ROUND_ROBIN;
    /** The most requests in flight a run may ask for (then 12 times as many requests are simulated). */
    static final int MAX_CONCURRENCY = 100_000;

    /** The metrics a row may give, in the order the tables show them. */
    static final List<String> METRICS = List.of("ttft_ms", "tpot_ms", "itl_ms", "e2el_ms", "output_tok_s");
    /** The stats a latency row may give; {@code pNN} for any other percentile. */
    static final List<String> STATS = List.of("mean", "median", "p90", "p99");

    /**
     * One row scored: its measured and simulated figure, or why it was not simulated.
     *
     * @param system     the preset the run ran on, or the GPU column where there is none
     * @param engine     the engine's label, or the framework column where it names none
     * @param deployment the deployment as serve prints it
     * @param simulated  the simulated figure in the row's unit, NaN where skipped
     * @param skipped    the reasons, or null where simulated
     */
    public record Outcome(ServingRow row, String system, String engine, String deployment, double simulated, String skipped) {
        public double measured() {
            return row.value();
        }

        public double ratio() {
            return simulated / measured();
        }

        public String model() {
            return row.run().model();
        }

        public String mode() {
            return row.run().mode();
        }
    }

    /**
     * Rows of one metric and stat, of one system, engine and mode (null: every one) and of one model
     * (null: every one), scored: geomean |error| and the signed bias over the simulated rows.
     */
    public record Group(String metric, String stat, String system, String engine, String mode, String model, List<Outcome> rows) {
        public List<Outcome> simulated() {
            return rows.stream().filter(o -> o.skipped() == null).toList();
        }

        public int skipped() {
            return rows.size() - simulated().size();
        }

        /** exp(mean |ln(sim/meas)|) - 1; NaN where nothing was simulated. */
        public double geomeanAbsError() {
            return LogError.geomeanAbs(simulated().stream().map(Outcome::ratio).toList());
        }

        /** exp(mean ln(sim/meas)) - 1: negative when the simulated figure is below the measured one. */
        public double bias() {
            return LogError.bias(simulated().stream().map(Outcome::ratio).toList());
        }

        /** The simulated row of the largest |ln(sim/meas)|, or null. */
        public Outcome worst() {
            return simulated().stream().max(Comparator.comparingDouble(o -> Math.abs(Math.log(o.ratio())))).orElse(null);
        }
    }

    private final List<Outcome> outcomes;
    private final int runs;
    private final int simulatedRuns;

    private ServingValidation(List<Outcome> outcomes, int runs, int simulatedRuns) {
        this.outcomes = List.copyOf(outcomes);
        this.runs = runs;
        this.simulatedRuns = simulatedRuns;
    }

    /** Every row, simulated or skipped, in the file's order. */
    public List<Outcome> outcomes() {
        return outcomes;
    }

    /** The runs of the file (rows of one run share its simulation). */
    public int runs() {
        return runs;
    }

    /** The runs simulated. */
    public int simulatedRuns() {
        return simulatedRuns;
    }

    /** The rows simulated. */
    public List<Outcome> simulated() {
        return outcomes.stream().filter(o -> o.skipped() == null).toList();
    }

    /** The calibration file the project ships, each run under the engine {@code engines} picks. */
    public static ServingValidation bundled(EngineChoice engines, int threads, BiConsumer<Integer, Integer> progress) {
        String text;
        try (InputStream in = ServingValidation.class.getResourceAsStream(BUNDLED)) {
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("the bundled calibration " + BUNDLED + " cannot be read", e);
        }
        return run(read(new StringReader(text), BUNDLED.substring(BUNDLED.lastIndexOf('/') + 1)), null, engines, ServingValidation::simulate,
                threads, progress);
    }

    /** A measured serving CSV; models outside the catalogue are looked up in {@code models/} beside it. */
    public static ServingValidation file(Path csv, EngineChoice engines, int threads, BiConsumer<Integer, Integer> progress) {
        return file(csv, engines, ServingValidation::simulate, threads, progress);
    }

    /** As {@link #file(Path, EngineChoice, int, BiConsumer)}, each load run by {@code runner}. */
    static ServingValidation file(Path csv, EngineChoice engines, Function<LoadSpec, LoadOutcome> runner, int threads,
                                  BiConsumer<Integer, Integer> progress) {
        String text = TextFile.read(csv, csv.toString());
        Path models = csv.toAbsolutePath().getParent().resolve("models");
        return run(read(new StringReader(text), csv.toString()), models, engines, runner, threads, progress);
    }

    private static LoadOutcome simulate(LoadSpec spec) {
        return LoadSimulation.run(spec, (done, total) -> { });
    }

    /**
     * Simulates each run once, {@code threads} at a time, and scores every row against its run's
     * figures; {@code progress} hears (runs done, runs to simulate).
     */
    static ServingValidation run(List<ServingRow> rows, Path models, EngineChoice engines, Function<LoadSpec, LoadOutcome> runner, int threads,
                                 BiConsumer<Integer, Integer> progress) {
        Map<Run, List<ServingRow>> byRun = new LinkedHashMap<>();
        rows.forEach(r -> byRun.computeIfAbsent(r.run(), k -> new ArrayList<>()).add(r));
        Map<String, Object> modelCache = new HashMap<>();
        Map<Run, Mapped> mapped = new LinkedHashMap<>();
        byRun.forEach((run, itsRows) -> mapped.put(run, map(run, models, engines, modelCache)));
        List<Run> toSimulate = byRun.entrySet().stream()
                .filter(e -> mapped.get(e.getKey()).spec() != null && e.getValue().stream().anyMatch(r -> rowProblem(r) == null))
                .map(Map.Entry::getKey).toList();

        Map<Run, Simulated> results = new HashMap<>();
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, Math.min(threads, Math.max(1, toSimulate.size()))));
        try {
            AtomicInteger done = new AtomicInteger();
            Map<Run, Future<Simulated>> futures = new LinkedHashMap<>();
            for (Run run : toSimulate) {
                LoadSpec spec = mapped.get(run).spec();
                futures.put(run, pool.submit(() -> {
                    try {
                        return Simulated.of(runner.apply(spec));
                    } catch (InputException e) {
                        return new Simulated(null, e.getMessage());
                    } finally {
                        progress.accept(done.incrementAndGet(), toSimulate.size());
                    }
                }));
            }
            for (Map.Entry<Run, Future<Simulated>> f : futures.entrySet()) {
                results.put(f.getKey(), await(f.getValue()));
            }
        } finally {
            pool.shutdownNow();
        }
        progress.accept(toSimulate.size(), toSimulate.size());

        List<Outcome> out = new ArrayList<>();
        int simulatedRuns = 0;
        for (Run run : byRun.keySet()) {
            Simulated s = results.get(run);
            simulatedRuns += s != null && s.summary() != null ? 1 : 0;
        }
        for (ServingRow r : rows) {
            Mapped m = mapped.get(r.run());
            Simulated s = results.get(r.run());
            String skip = m.skipped() != null ? m.skipped() : rowProblem(r) != null ? rowProblem(r) : s.failure();
            double simulated = skip == null ? figure(s.summary(), r.metric(), r.stat()) : Double.NaN;
            out.add(new Outcome(r, m.system(), m.engine(), m.deployment(), simulated, skip));
        }
        return new ServingValidation(out, byRun.size(), simulatedRuns);
    }

    private static Simulated await(Future<Simulated> f) {
        try {
            return f.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while simulating the serving runs", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            if (e.getCause() instanceof Error err) {
                throw err;
            }
            throw new IllegalStateException(e.getCause());
        }
    }

    /** A run's simulated figures, or why they are not there. */
    private record Simulated(LoadOutcome.Summary summary, String failure) {
        static Simulated of(LoadOutcome outcome) {
            LoadOutcome.Summary s = outcome.summary();
            if (s.failed() > 0 || s.completed() == 0) {
                return new Simulated(null, "the simulation failed " + s.failed() + " of its " + (s.completed() + s.failed())
                        + " measured requests (a prompt and its output do not fit the KV cache)");
            }
            return new Simulated(s, null);
        }
    }

    /** A run made a load to simulate (spec null where it cannot be, with the reasons in {@code skipped}). */
    record Mapped(LoadSpec spec, String system, String engine, String deployment, String skipped) {}

    /** The load a run describes, or every reason it cannot be simulated. */
    static Mapped map(Run run, Path models, EngineChoice engines, Map<String, Object> modelCache) {
        List<String> why = new ArrayList<>();
        String system = DecodeValidation.systemFor((run.system() + " " + run.gpu()).trim());
        if (system == null) {
            why.add("GPU '" + run.gpu() + "' has no preset system");
        }
        ServingEngine engine = engines.engineFor(run.framework());
        if (engine == null) {
            why.add("framework '" + run.framework() + "' is not one of the engines (" + ServingEngine.names() + ")");
        }
        Precision precision = DecodeValidation.precisionFor(run.dtype());
        if (precision == null) {
            why.add("dtype '" + run.dtype() + "': collsim runs bf16, fp8 or fp4 weights");
        }
        Object model = modelCache.computeIfAbsent(run.model(), name -> model(name, models));
        if (model instanceof String reason) {
            why.add(reason);
        }
        Deployment deployment = deployment(run);
        if (run.gpus() > 0 && run.gpus() != deployment.gpus()) {
            why.add("the row's " + run.gpus() + " GPUs are not the deployment's " + deployment.gpus());
        }
        String kind = DecodeValidation.loadKind(run.loadKind());
        int concurrency = (int) Math.min(Integer.MAX_VALUE, run.load());
        if (!kind.equals("concurrency")) {
            why.add("batch_kind '" + run.loadKind() + "': only closed-loop runs (concurrency) are simulated so far");
        } else if (run.load() != Math.rint(run.load())) {
            why.add("concurrency " + run.load() + " is not a whole number of requests");
        } else if (run.load() > MAX_CONCURRENCY) {
            why.add("concurrency " + concurrency + ": at most " + MAX_CONCURRENCY + " requests in flight are simulated");
        }
        Speculation speculation = Speculation.NONE;
        try {
            speculation = SpecDecodeColumn.read(run.specDecode(), run.notes());
        } catch (InputException e) {
            why.add(e.getMessage());
        }
        String systemLabel = system != null ? system : run.gpu();
        String engineLabel = engine != null ? engine.label() : run.framework();
        if (!why.isEmpty()) {
            return new Mapped(null, systemLabel, engineLabel, deployment.label(), String.join("; ", why));
        }
        EngineSetup setup = new EngineSetup(engine, null, overlapSchedulerFor(run.framework(), engine, deployment), engines.requestOverhead(),
                speculation, ExpertParallel.DEFAULT);
        LoadSpec spec = new LoadSpec((ModelConfig) model, DecodeSystem.preset(system), DecodeValidation.asServed(precision, (ModelConfig) model),
                setup, deployment,
                workload(concurrency, run.isl(), run.osl()), knobs(run, engine, deployment, concurrency), ROUTER, KvTransfer.AFTER_PREFILL, null, 0, false);
        return new Mapped(spec, systemLabel, engineLabel, deployment.label(), null);
    }

    /** The first vLLM release that schedules the next step while the GPU runs this one by default (its release notes: #27614). */
    static final int VLLM_ASYNC_SCHEDULING_MINOR = 14;

    /**
     * The host overlap a run's engine version had by default, or null for the engine's own default: vLLM from 0.14.0
     * on, unless a role runs pipeline stages (async scheduling excludes pipeline parallelism there).
     */
    static Boolean overlapSchedulerFor(String framework, ServingEngine engine, Deployment deployment) {
        if (engine != ServingEngine.VLLM) {
            return null;
        }
        int minor = DecodeValidation.vllmMinor(framework);
        boolean pipelined = deployment.roles().stream().anyMatch(r -> r.pp() > 1);
        return minor != Integer.MAX_VALUE && minor >= VLLM_ASYNC_SCHEDULING_MINOR && !pipelined ? Boolean.TRUE : null;
    }

    /** The model a name describes, or why there is none: an unreadable config.json is its rows' reason, not the run's end. */
    private static Object model(String name, Path models) {
        try {
            ModelConfig m = DecodeValidation.modelFor(name, models);
            return m != null ? m : "model '" + name + "' is neither in the catalogue nor a config.json under models/";
        } catch (InputException e) {
            return "model '" + name + "': " + e.getMessage();
        }
    }

    /**
     * The deployment as the columns give it: agg, one instance of the row's tp, pp, ep and dp (a dense
     * model's dp its replicas, an MoE model's its attention replicas); disagg, the prefill workers and
     * the decode workers, each role's batch its maximum batch.
     */
    static Deployment deployment(Run run) {
        if (!run.disaggregated()) {
            return new Deployment(List.of(role(Deployment.Kind.AGGREGATED, run.agg())));
        }
        return new Deployment(List.of(role(Deployment.Kind.PREFILL, run.prefill()), role(Deployment.Kind.DECODE, run.decode())));
    }

    private static Deployment.Role role(Deployment.Kind kind, Role r) {
        return new Deployment.Role(kind, r.workers(), r.tp(), r.pp(), r.ep(), r.dp(), r.batch(), 0, 0, Overlap.NONE, null);
    }

    /** A closed loop of {@code concurrency}: warm-up, then the measured requests, every one of ISL and OSL tokens. */
    static Workload workload(int concurrency, int isl, int osl) {
        int warmup = WARMUP_PER_USER * concurrency;
        int measured = MEASURED_PER_USER * concurrency;
        List<RequestSpec> requests = new ArrayList<>(warmup + measured);
        for (int i = 0; i < warmup + measured; i++) {
            requests.add(new RequestSpec(i, 0, isl, osl));
        }
        return new Workload(concurrency, requests, warmup, "closed loop of " + concurrency + ", ISL " + isl + ", OSL " + osl + ": " + warmup
                + " warm-up then " + measured + " measured requests");
    }

    /** Why a row's figure cannot be read off a simulated run (a metric or stat collsim does not report), else null. */
    static String rowProblem(ServingRow r) {
        String metric = r.metric().toLowerCase(Locale.ROOT);
        if (!METRICS.contains(metric)) {
            return "metric '" + r.metric() + "': expected one of " + String.join(", ", METRICS);
        }
        if (metric.equals("output_tok_s")) {
            return r.stat().equalsIgnoreCase("mean") ? null : "output_tok_s '" + r.stat() + "': a run's output throughput is one figure (stat mean)";
        }
        return Double.isNaN(percentileOf(r.stat())) ? "stat '" + r.stat() + "': expected one of " + String.join(", ", STATS) + " or pNN" : null;
    }

    /** The row's figure from a simulated run, in the row's unit. */
    static double figure(LoadOutcome.Summary s, String metric, String stat) {
        Distribution d = switch (metric.toLowerCase(Locale.ROOT)) {
            case "ttft_ms" -> s.ttft();
            case "tpot_ms" -> s.tpot();
            case "itl_ms" -> s.itl();
            case "e2el_ms" -> s.e2el();
            case "output_tok_s" -> null;
            default -> throw new IllegalArgumentException(metric);
        };
        if (d == null) {
            return s.outputThroughput();
        }
        double p = percentileOf(stat);
        return p < 0 ? d.mean() : d.percentile(p);
    }

    /** -1 for the mean, the percentile for median or pNN, NaN for a stat collsim does not report. */
    private static double percentileOf(String stat) {
        String s = stat.toLowerCase(Locale.ROOT).trim();
        if (s.equals("mean") || s.equals("avg")) {
            return -1;
        }
        if (s.equals("median") || s.equals("p50")) {
            return 50;
        }
        if (s.matches("p\\d{1,2}(\\.\\d+)?")) {
            return Double.parseDouble(s.substring(1));
        }
        return Double.NaN;
    }

    /**
     * The scores: for each metric and stat (in {@link #METRICS} order), a group per system, engine and
     * mode, followed by one per model where the group holds several, and then all of its rows.
     */
    public List<Group> groups() {
        Map<String, Map<String, List<Outcome>>> byFigure = new TreeMap<>(Comparator.comparing(ServingValidation::metricOrder)
                .thenComparing(Comparator.naturalOrder()));
        for (Outcome o : outcomes) {
            String figure = o.row().metric().toLowerCase(Locale.ROOT) + " " + o.row().stat().toLowerCase(Locale.ROOT);
            String group = o.system() + "\u0000" + o.engine() + "\u0000" + o.mode();
            byFigure.computeIfAbsent(figure, k -> new TreeMap<>()).computeIfAbsent(group, k -> new ArrayList<>()).add(o);
        }
        List<Group> out = new ArrayList<>();
        byFigure.forEach((figure, groups) -> {
            String metric = figure.substring(0, figure.indexOf(' '));
            String stat = figure.substring(figure.indexOf(' ') + 1);
            List<Outcome> all = new ArrayList<>();
            groups.forEach((key, rows) -> {
                String[] k = key.split("\u0000", -1);
                out.add(new Group(metric, stat, k[0], k[1], k[2], null, rows));
                Map<String, List<Outcome>> byModel = rows.stream().collect(Collectors.groupingBy(Outcome::model, TreeMap::new, Collectors.toList()));
                if (byModel.size() > 1) {
                    byModel.forEach((model, its) -> out.add(new Group(metric, stat, k[0], k[1], k[2], model, its)));
                }
                all.addAll(rows);
            });
            out.add(new Group(metric, stat, null, null, null, null, all));
        });
        return out;
    }

    /** Every row of one metric and stat, scored together. */
    public Group overall(String metric, String stat) {
        return groups().stream().filter(g -> g.system() == null && g.metric().equals(metric) && g.stat().equals(stat)).findFirst()
                .orElse(new Group(metric, stat, null, null, null, null, List.of()));
    }

    /** Known metrics first, in their order, then the rest by name (their rows are skipped with the reason). */
    private static String metricOrder(String figure) {
        String metric = figure.substring(0, figure.indexOf(' '));
        String stat = figure.substring(figure.indexOf(' ') + 1);
        int m = METRICS.indexOf(metric);
        int s = STATS.indexOf(stat);
        return (m < 0 ? "9" : Integer.toString(m)) + (s < 0 ? "9" : Integer.toString(s)) + figure;
    }

    /** The role columns of a disaggregated run, in the order they are checked. */
    private static final List<String> ROLE_COLUMNS = List.of("workers", "tp", "pp", "ep", "dp", "batch");

    /** Reads a serving CSV: the decode CSV's columns plus mode and the prefill_* and decode_* columns. */
    static List<ServingRow> read(Reader reader, String name) {
        List<ServingRow> rows = new ArrayList<>();
        int line = 1;
        try (MappingIterator<Map<String, String>> it = new CsvMapper().readerForMapOf(String.class)
                .with(CsvSchema.emptySchema().withHeader()).readValues(reader)) {
            while (it.hasNext()) {
                line = Math.max(line + 1, it.getParser().currentLocation().getLineNr());
                rows.add(row(new Fields(it.next(), name, line)));
            }
        } catch (IOException | RuntimeException e) {
            if (e instanceof InputException ie) {
                throw ie;
            }
            throw new InputException(name + ": line " + line + ": not a measured serving CSV (" + e.getMessage().lines().findFirst().orElse("")
                    + ")");
        }
        if (rows.isEmpty()) {
            throw new InputException(name + ": no rows; expected the columns of serving_measured_calibration.csv and a row per measured figure");
        }
        return rows;
    }

    private static ServingRow row(Fields f) {
        String mode = f.text("mode").toLowerCase(Locale.ROOT);
        Role agg = null;
        Role prefill = null;
        Role decode = null;
        switch (mode) {
            case "agg" -> {
                for (String role : List.of("prefill", "decode")) {
                    for (String c : ROLE_COLUMNS) {
                        String v = f.optional(role + "_" + c);
                        if (v != null && !v.isBlank()) {
                            throw new InputException(f.file() + ": line " + f.line() + ": " + role + "_" + c + " '" + v.trim()
                                    + "' in an agg row: the prefill_* and decode_* columns are a disagg run's; expected them blank or mode disagg");
                        }
                    }
                }
                agg = new Role(1, f.optionalCount("tp", 1), f.optionalCount("pp", 1), f.optionalCount("ep", 1), f.optionalCount("dp", 1), 0);
            }
            case "disagg" -> {
                prefill = role(f, "prefill");
                decode = role(f, "decode");
            }
            default -> throw new InputException(f.file() + ": line " + f.line() + ": mode '" + f.text("mode")
                    + "': expected agg (one instance: tp, pp, ep, dp) or disagg (the prefill_* and decode_* columns)");
        }
        String system = Objects.requireNonNullElse(f.optional("system"), "").trim();
        Run run = new Run(f.text("framework"), f.text("gpu"), system, f.optionalCount("gpus", 0), f.text("model"), f.text("dtype"), mode, agg,
                prefill, decode, f.number("batch_or_concurrency"), f.text("batch_kind"), f.whole("isl", "tokens"), f.whole("osl", "tokens"),
                f.optional("spec_decode"), f.optional("notes"));
        return new ServingRow(f.text("row_id"), f.line(), run, f.text("metric"), f.text("stat"), f.number("value"));
    }

    /** A disaggregated role: its workers and tp must be given; pp, ep and dp are 1 and the batch the engine's where blank. */
    private static Role role(Fields f, String role) {
        for (String c : List.of("workers", "tp")) {
            String v = f.optional(role + "_" + c);
            if (v == null || v.isBlank()) {
                throw new InputException(f.file() + ": line " + f.line() + ": missing '" + role + "_" + c
                        + "': a disagg row gives each role's workers and tp (prefill_workers, prefill_tp, decode_workers, decode_tp)");
            }
        }
        String batch = f.optional(role + "_batch");
        return new Role(f.whole(role + "_workers", "instances"), f.count(role + "_tp"), f.optionalCount(role + "_pp", 1),
                f.optionalCount(role + "_ep", 1), f.optionalCount(role + "_dp", 1),
                batch == null || batch.isBlank() ? 0 : f.whole(role + "_batch", "sequences"));
    }
}
