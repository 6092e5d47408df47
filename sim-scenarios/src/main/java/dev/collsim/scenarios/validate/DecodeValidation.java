package dev.collsim.scenarios.validate;

import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvSchema;
import dev.collsim.core.input.InputException;
import dev.collsim.core.input.TextFile;
import dev.collsim.scenarios.decode.AllReduceKind;
import dev.collsim.scenarios.decode.CommModel;
import dev.collsim.scenarios.decode.DecodeSpec;
import dev.collsim.scenarios.decode.DecodeStep;
import dev.collsim.scenarios.decode.DecodeSystem;
import dev.collsim.scenarios.decode.ModelConfig;
import dev.collsim.scenarios.decode.ModelNames;
import dev.collsim.scenarios.decode.Overlap;
import dev.collsim.scenarios.decode.Precision;
import dev.collsim.scenarios.decode.Prefill;
import dev.collsim.scenarios.decode.PrefillResult;
import dev.collsim.scenarios.decode.ServingEngine;
import dev.collsim.scenarios.decode.Speculation;
import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code validate --decode}: every row of a measured decode CSV (the calibration file's columns)
 * simulated as the decode step it describes, and the error scored without hiding a bias.
 *
 * <p>A row becomes a step as the calibration README says: with concurrency C (or a static batch B)
 * spread over the replicas, each replica decodes C / dp sequences; at a request rate, Little's law
 * gives the sequences in flight (rate x OSL x the simulated step, iterated to its fixed point); the
 * mean context is ISL + OSL / 2. The engine comes from the framework column, the system from the
 * GPU, the model from the catalogue or a {@code config.json} in {@code models/} beside the CSV.
 * A row collsim cannot simulate is listed with the reason, never dropped.
 *
 * <p>A serving benchmark's TPOT also holds the prefills of the requests that arrive while a
 * sequence decodes: in steady state each replica starts batch / OSL requests a step, each a prompt
 * of ISL tokens, so a step carries batch / OSL prompt forwards on average ({@link
 * DecodeStep#prefillMs}); the simulated time is the decode step plus that share, shown apart. A
 * static batch (benchmark_latency) prefills once before its OSL steps and gets none.
 */
public final class DecodeValidation {
    public static final String BUNDLED = "/calibration/decode_measured_calibration.csv";
    /** Measured times to first token, in the same columns (metric ttft_ms). */
    public static final String BUNDLED_TTFT = "/calibration/ttft_measured_calibration.csv";
    /** Public decode runs on AMD Instinct nodes, scored apart from the NVIDIA file's rows. */
    public static final String BUNDLED_INSTINCT = "/calibration/decode_measured_calibration_instinct.csv";
    /** The trust of a TTFT measured at a client (HTTP, tokeniser and server in it); A is in-process. */
    static final String CLIENT_SIDE = "B";
    private static final String BUNDLED_MODELS = "/calibration/models/";

    /** One measured decode run, the columns the mapping reads. */
    record Row(String id, String framework, String gpu, int gpus, String model, String dtype, int tp, int pp, int ep, int dp, double load,
               String loadKind, String isl, String osl, String cudaGraphs, String specDecode, String notes, String metric, double value, String trust,
               int line) {}

    /** A row simulated: the measured and simulated step, or why it was not simulated. */
    public record Outcome(String id, String model, String system, String engine, String layout, int batch, int context, double measuredMs,
                          double simulatedMs, double prefillMs, String skipped, boolean ttft, String trust) {
        Outcome(String id, String model, String system, String engine, String layout, int batch, int context, double measuredMs,
                double simulatedMs, double prefillMs, String skipped) {
            this(id, model, system, engine, layout, batch, context, measuredMs, simulatedMs, prefillMs, skipped, false, "");
        }

        public double ratio() {
            return simulatedMs / measuredMs;
        }
    }

    private final List<Outcome> outcomes;
    /** What the summary calls the TTFT rows' source where it is not the decode rows' (the bundled files), else null. */
    private final String ttftSource;

    private DecodeValidation(List<Outcome> outcomes, String ttftSource) {
        this.outcomes = outcomes;
        this.ttftSource = ttftSource;
    }

    /** Every row, simulated or skipped, in the file's order. */
    public List<Outcome> outcomes() {
        return outcomes;
    }

    /** The bundled calibration file, each row under the engine {@code engines} picks. */
    public static DecodeValidation bundled(EngineChoice engines) {
        List<Row> rows = new ArrayList<>(bundledRows(BUNDLED));
        rows.addAll(bundledRows(BUNDLED_TTFT));
        return run(rows, null, engines, "ttft calibration");
    }

    /** The bundled runs on AMD Instinct nodes (vLLM and SGLang on ROCm), each row under the engine {@code engines} picks. */
    public static DecodeValidation bundledInstinct(EngineChoice engines) {
        return run(bundledRows(BUNDLED_INSTINCT), null, engines, null);
    }

    private static List<Row> bundledRows(String resource) {
        try (InputStream in = DecodeValidation.class.getResourceAsStream(resource)) {
            return read(new StringReader(new String(in.readAllBytes(), StandardCharsets.UTF_8)), resource.substring(resource.lastIndexOf('/') + 1));
        } catch (IOException e) {
            throw new IllegalStateException("the bundled calibration " + resource + " cannot be read", e);
        }
    }

    /** A measured decode CSV; models outside the catalogue are looked up in {@code models/} beside it. */
    public static DecodeValidation file(Path csv, EngineChoice engines) {
        String text = TextFile.read(csv, csv.toString());
        Path models = csv.toAbsolutePath().getParent().resolve("models");
        return run(read(new StringReader(text), csv.toString()), models, engines, null);
    }

    private static DecodeValidation run(List<Row> rows, Path models, EngineChoice engines, String ttftSource) {
        List<Outcome> out = new ArrayList<>();
        CommModel.Cache cache = new CommModel.Cache();
        for (Row r : rows) {
            out.add(simulate(r, models, cache, engines));
        }
        return new DecodeValidation(out, ttftSource);
    }

    static List<Row> read(Reader reader, String name) {
        List<Row> rows = new ArrayList<>();
        int line = 1;
        try (MappingIterator<Map<String, String>> it = new CsvMapper().readerForMapOf(String.class)
                .with(CsvSchema.emptySchema().withHeader()).readValues(reader)) {
            while (it.hasNext()) {
                line = Math.max(line + 1, it.getParser().currentLocation().getLineNr());
                Map<String, String> m = it.next();
                Fields f = new Fields(m, name, line);
                rows.add(new Row(f.text("row_id"), f.text("framework"), f.text("gpu"), f.optionalCount("gpus", 0), f.text("model"), f.text("dtype"),
                        f.optionalCount("tp", 1), f.optionalCount("pp", 1), f.optionalCount("ep", 1), f.optionalCount("dp", 1),
                        f.number("batch_or_concurrency"), f.text("batch_kind"), f.text("isl"),
                        f.text("osl"), f.optional("cuda_graphs"), f.optional("spec_decode"), f.optional("notes"), f.text("metric"), f.number("value"),
                        f.optional("trust"), line));
            }
        } catch (IOException | RuntimeException e) {
            if (e instanceof InputException ie) {
                throw ie;
            }
            throw new InputException(name + ": line " + line + ": not a measured decode CSV (" + e.getMessage().lines().findFirst().orElse("")
                    + ")");
        }
        if (rows.isEmpty()) {
            throw new InputException(name + ": no rows; expected the columns of decode_measured_calibration.csv and a row per run");
        }
        return rows;
    }

    private static Outcome simulate(Row given, Path models, CommModel.Cache cache, EngineChoice engines) {
        Row r = asRun(given);
        String layout = "tp" + r.tp + (r.pp > 1 ? " pp" + r.pp : "") + (r.ep > 1 ? " ep" + r.ep : "") + (r.dp > 1 ? " dp" + r.dp : "");
        String system = systemFor(r.gpu);
        ServingEngine engine = engines.engineFor(r.framework);
        String engineLabel = engine == null ? "?" : engine.label();
        int context = firstInt(r.isl) + firstInt(r.osl) / 2;
        String skip = null;
        ModelConfig model = null;
        Precision precision = precisionFor(r.dtype);
        if (r.gpus > 0 && r.tp * r.pp * r.dp > r.gpus) {
            skip = "tp " + r.tp + " x pp " + r.pp + " x dp " + r.dp + " needs more GPUs than the row's " + r.gpus;
        } else if (system == null) {
            skip = "GPU '" + r.gpu + "' has no preset system";
        } else if (engine == null) {
            skip = "framework '" + r.framework + "' is not one of the engines (" + ServingEngine.names() + ")";
        } else if (precision == null) {
            skip = "dtype '" + r.dtype + "': collsim runs bf16, fp8 or fp4 weights";
        } else if (firstInt(r.osl) < 1) {
            skip = "no output length in '" + r.osl + "'";
        } else {
            model = modelFor(r.model, models);
            if (model == null) {
                skip = "model '" + r.model + "' is neither in the catalogue nor a config.json under models/";
            }
        }
        Speculation speculation = Speculation.NONE;
        try {
            speculation = SpecDecodeColumn.read(r.specDecode, r.notes);
        } catch (InputException e) {
            skip = skip == null ? e.getMessage() : skip;
        }
        if (skip != null) {
            return new Outcome(r.id, r.model, system == null ? "-" : system, engineLabel, layout, 0, context, Double.NaN, Double.NaN, 0, skip);
        }
        if (isTtft(r.metric)) {
            return timeToFirstToken(r, model, system, precision, engine, speculation, layout, engines.requestMs(engine));
        }
        boolean graphs = r.cudaGraphs == null || r.cudaGraphs.toLowerCase(Locale.ROOT).startsWith("n/a") ? engine.cudaGraphsByDefault()
                : !r.cudaGraphs.toLowerCase(Locale.ROOT).matches("(off|no|false|disabled).*");
        try {
            int batch;
            double step;
            String kind = loadKind(r.loadKind);
            int isl = firstInt(r.isl);
            int osl = firstInt(r.osl);
            // One prompt's forward on the same layout, and the share of it each serving step carries.
            double prompt = kind.equals("batch") || isl < 1 ? 0
                    : DecodeStep.prefillMs(spec(r, model, system, precision, engine, speculation, graphs, isl, isl), cache);
            switch (kind) {
                case "concurrency", "batch" -> {
                    batch = Math.max(1, (int) Math.ceil(r.load / r.dp));
                    step = DecodeStep.run(spec(r, model, system, precision, engine, speculation, graphs, batch, context), cache).itl().ms();
                }
                case "qps" -> {
                    // Little's law: sequences in flight = arrival rate x time each spends decoding.
                    batch = 1;
                    step = DecodeStep.run(spec(r, model, system, precision, engine, speculation, graphs, batch, context), cache).itl().ms();
                    for (int i = 0; i < 8; i++) {
                        int next = Math.max(1, (int) Math.round(r.load / r.dp * osl * (step + prompt / osl) / 1000));
                        if (next == batch) {
                            break;
                        }
                        batch = next;
                        step = DecodeStep.run(spec(r, model, system, precision, engine, speculation, graphs, batch, context), cache).itl().ms();
                    }
                }
                default -> {
                    return new Outcome(r.id, r.model, system, engineLabel, layout, 0, context, Double.NaN, Double.NaN, 0,
                            "batch_kind '" + r.loadKind + "': expected batch, concurrency or qps");
                }
            }
            double prefills = prompt * batch / osl;
            double measured = measuredStepMs(r, batch);
            if (Double.isNaN(measured)) {
                return new Outcome(r.id, r.model, system, engineLabel, layout, batch, context, Double.NaN, Double.NaN, 0,
                        "metric '" + r.metric + "' is not a per-step figure (tpot_ms, itl_ms, tok_s_per_user, tok_s_total, tok_s_per_gpu)");
            }
            return new Outcome(r.id, r.model, system, engineLabel, layout, batch, context, measured, step + prefills, prefills, null);
        } catch (InputException e) {
            return new Outcome(r.id, r.model, system, engineLabel, layout, 0, context, Double.NaN, Double.NaN, 0, e.getMessage());
        }
    }

    /**
     * The row's layout as collsim counts it. SGLang and TensorRT-LLM name the whole group in tp and
     * the attention replicas in dp (DP attention: {@code --tp 8 --dp 8} is 8 GPUs, attention TP 1);
     * where the GPU count says so, attention's TP is tp / dp.
     */
    static Row asRun(Row r) {
        if (r.gpus > 0 && r.tp * r.pp * r.dp > r.gpus && r.dp > 1 && r.tp % r.dp == 0 && r.tp / r.dp * r.pp * r.dp == r.gpus) {
            return new Row(r.id, r.framework, r.gpu, r.gpus, r.model, r.dtype, r.tp / r.dp, r.pp, r.ep, r.dp, r.load, r.loadKind, r.isl, r.osl,
                    r.cudaGraphs, r.specDecode, r.notes, r.metric, r.value, r.trust, r.line);
        }
        return r;
    }

    static boolean isTtft(String metric) {
        return metric.equalsIgnoreCase("ttft_ms") || metric.equalsIgnoreCase("ttft_s") || isPrefillRate(metric);
    }

    /** Prefill throughput, input tokens per second of the whole layout or per GPU: a prefill's time by another name. */
    static boolean isPrefillRate(String metric) {
        return metric.equalsIgnoreCase("prefill_tok_s") || metric.equalsIgnoreCase("prefill_tok_s_per_gpu");
    }

    /**
     * A measured time to first token as the prefill of the row's prompts: a static batch of B, or
     * one request at a time (concurrency 1), each of ISL tokens in one forward on the row's layout,
     * with the engine's host step; a TTFT measured at a client (trust B) adds the server's time per
     * request beyond the forwards, {@code requestMs}. Under more load a first token also waits behind
     * other requests' prefills and steps, which a row does not say enough about to simulate: such rows
     * are skipped.
     */
    private static Outcome timeToFirstToken(Row r, ModelConfig model, String system, Precision precision, ServingEngine engine,
                                            Speculation speculation, String layout, double requestMs) {
        String kind = loadKind(r.loadKind);
        int isl = firstInt(r.isl);
        int prompts = Math.max(1, (int) Math.ceil(r.load / r.dp));
        // A prefill rate is the time of a forward of every replica's prompts; a pipeline has a forward in each stage.
        double tokens = (double) prompts * r.dp * isl;
        double measured = r.metric.equalsIgnoreCase("ttft_s") ? r.value * 1000
                : r.metric.equalsIgnoreCase("prefill_tok_s") ? tokens / r.value * 1000 * r.pp
                : r.metric.equalsIgnoreCase("prefill_tok_s_per_gpu") ? tokens / (r.value * r.tp * r.pp * r.dp) * 1000 * r.pp : r.value;
        String skip = isl < 1 ? "no input length in '" + r.isl + "'"
                : kind.equals("batch") || kind.equals("concurrency") && (r.load <= r.dp || isPrefillRate(r.metric)) ? null
                : "TTFT at " + r.loadKind + " " + r.load + " waits behind other requests' work; only a static batch or one request at a time"
                        + " is simulated";
        if (skip != null) {
            return new Outcome(r.id, r.model, system, engine.label(), layout, 0, isl, Double.NaN, Double.NaN, 0, skip, true, r.trust);
        }
        try {
            PrefillResult p = Prefill.run(spec(r, model, system, precision, engine, speculation, false, 1, isl), isl, prompts, 0);
            // A prefill rate is the forwards' throughput, timed without the server; a TTFT at a client holds it.
            double atClient = p.ttft().ms() + (CLIENT_SIDE.equalsIgnoreCase(r.trust) && !isPrefillRate(r.metric) ? requestMs : 0);
            return new Outcome(r.id, r.model, system, engine.label(), layout, prompts, isl, measured, atClient, p.ttft().ms(), null, true, r.trust);
        } catch (InputException e) {
            return new Outcome(r.id, r.model, system, engine.label(), layout, prompts, isl, Double.NaN, Double.NaN, 0, e.getMessage(), true, r.trust);
        }
    }

    private static DecodeSpec spec(Row r, ModelConfig model, String system, Precision precision, ServingEngine engine, Speculation speculation,
                                   boolean graphs, int batch, int context) {
        // The server flags a row's notes quote: vLLM's --kv-cache-dtype fp8 and --async-scheduling (its overlap scheduler).
        Precision kv = r.notes != null && r.notes.contains("--kv-cache-dtype fp8") ? Precision.FP8 : null;
        Boolean overlapScheduler = r.notes != null && r.notes.contains("--async-scheduling") ? Boolean.TRUE : null;
        return new DecodeSpec(model, DecodeSystem.preset(system), OptionalInt.empty(), r.tp, r.pp, r.ep, r.dp, batch, context, asServed(precision, model),
                AllReduceKind.AUTO, Overlap.NONE, graphs, engine, kv, overlapScheduler, speculation);
    }


    /** The load column's kind as the README names them: concurrency, batch, or a request rate (qps). */
    static String loadKind(String column) {
        String c = column.toLowerCase(Locale.ROOT);
        return c.contains("concurren") ? "concurrency" : c.contains("batch") ? "batch"
                : c.contains("qps") || c.contains("rps") || c.contains("rate") ? "qps" : c;
    }

    /** The measured time of one decode step, in ms; NaN for a metric that is not one. */
    static double measuredStepMs(Row r, int batchPerReplica) {
        double sequences = (double) batchPerReplica * r.dp;
        return switch (r.metric.toLowerCase(Locale.ROOT)) {
            case "tpot_ms", "itl_ms" -> r.value;
            case "tok_s_per_user" -> 1000 / r.value;
            case "tok_s_total" -> loadKind(r.loadKind).equals("qps") ? Double.NaN : sequences * 1000 / r.value;
            case "tok_s_per_gpu" -> loadKind(r.loadKind).equals("qps") ? Double.NaN
                    : sequences * 1000 / (r.value * r.tp * r.pp * r.dp);
            default -> Double.NaN;
        };
    }

    /** The preset a GPU's name runs on; null where there is none. */
    static String systemFor(String gpu) {
        String g = gpu.toUpperCase(Locale.ROOT);
        if (g.contains("GB300")) {
            return "gb300-nvl72";
        }
        if (g.contains("B300")) {
            return "hgx-b300";
        }
        if (g.contains("GB200")) {
            return "gb200-nvl72";
        }
        if (g.contains("B200")) {
            return "hgx-b200";
        }
        if (g.contains("H200")) {
            return "hgx-h200";
        }
        if (g.contains("H100")) {
            return g.contains("PCIE") ? "pcie-h100-8x" : "hgx-h100";
        }
        if (g.contains("A100")) {
            return g.contains("PCIE") ? null : "dgx-a100";
        }
        if (g.contains("L40S")) {
            return "pcie-l40s-8x";
        }
        if (g.contains("RTX PRO 6000")) {
            return "pcie-rtxpro6000-8x";
        }
        if (g.contains("MI300X") || g.contains("MI325X") || g.contains("MI355X")) {
            return g.contains("MI300X") ? "mi300x-8x" : g.contains("MI325X") ? "mi325x-8x" : "mi355x-8x";
        }
        return g.contains("4090") ? "pcie-4090-8x" : null;
    }

    /** The engine a framework column names; a Dynamo row without its backend is taken as TensorRT-LLM, NVIDIA's usual one. */
    static ServingEngine engineFor(String framework) {
        String f = framework.toLowerCase(Locale.ROOT);
        if (f.contains("sglang")) {
            return ServingEngine.SGLANG;
        }
        if (f.contains("tensorrt") || f.contains("trt-llm") || f.contains("trtllm")) {
            // The C++ runtime's benchmarks (gptSessionBenchmark, gptManagerBenchmark) run TensorRT engines.
            boolean tensorrt = f.contains("gptsession") || f.contains("gptmanager") || f.contains("tensorrt backend");
            return tensorrt ? ServingEngine.TRTLLM_TENSORRT : ServingEngine.TRTLLM;
        }
        if (f.contains("lmdeploy") || f.contains("turbomind")) {
            return ServingEngine.LMDEPLOY;
        }
        if (f.contains("vllm")) {
            // V1 became the default in 0.8; "V0" as a word (not "v0.9.1") names the old engine.
            boolean v0 = Pattern.compile("\\bv0\\b(?!\\.)").matcher(f).find() || vllmMinor(f) < 8;
            return v0 ? ServingEngine.VLLM_V0 : ServingEngine.VLLM;
        }
        return f.contains("dynamo") ? ServingEngine.TRTLLM : null;
    }

    /** The minor version of a "vLLM 0.N..." framework column, or Integer.MAX_VALUE where it names none (the newest). */
    static int vllmMinor(String framework) {
        Matcher v = Pattern.compile("vllm[^0-9]*0\\.(\\d+)").matcher(framework.toLowerCase(Locale.ROOT));
        return v.find() ? Integer.parseInt(v.group(1)) : Integer.MAX_VALUE;
    }

    /**
     * The weights a row's precision runs as on {@code model}: a row of "fp4" on a checkpoint published in MXFP4 (gpt-oss) is that
     * checkpoint, its experts MXFP4 and the rest BF16, as the engines serve it, not NVFP4 everywhere.
     */
    static Precision asServed(Precision row, ModelConfig model) {
        return row == Precision.FP4 && model.weights() == Precision.MXFP4 ? Precision.MXFP4 : row;
    }

    static Precision precisionFor(String dtype) {
        String d = dtype.toLowerCase(Locale.ROOT).trim();
        if (d.startsWith("fp8")) {
            return Precision.FP8;
        }
        if (d.startsWith("mxfp4")) {
            return Precision.MXFP4;
        }
        if (d.startsWith("fp4") || d.startsWith("nvfp4")) {
            return Precision.FP4;
        }
        return d.startsWith("bf16") || d.startsWith("fp16") ? Precision.BF16 : null;
    }

    /** Names the model families take in published runs, in the order they are tried. */
    private static final List<Map.Entry<Pattern, String>> CALIBRATION_MODELS = List.of(
            Map.entry(Pattern.compile("llama-?2-?70b"), "llama-2-70b.json"),
            Map.entry(Pattern.compile("qwq-?32b|qwen2\\.5-?32b"), "qwen2.5-32b.json"));

    /**
     * The model a name describes: a catalogue model (under the catalogue's name), or a config file
     * beside the CSV or bundled with the calibration; null if none.
     */
    static ModelConfig modelFor(String name, Path models) {
        String n = name.toLowerCase(Locale.ROOT).replace(' ', '-');
        for (Map.Entry<Pattern, String> e : CALIBRATION_MODELS) {
            if (e.getKey().matcher(n).find()) {
                return config(e.getValue(), models);
            }
        }
        Optional<ModelNames.Resolved> known = ModelNames.resolve(n);
        if (known.isPresent()) {
            // The catalogue's shapes under their own name, with the window a later checkpoint takes (Llama 3.1: 128K).
            ModelConfig m = ModelConfig.load(known.get().catalogueName());
            return known.get().context().map(m::withMaxContext).orElse(m);
        }
        Matcher first = Pattern.compile("^[a-z0-9._-]+").matcher(n);
        return first.find() ? config(first.group() + ".json", models) : null;
    }

    private static ModelConfig config(String file, Path models) {
        if (models != null && Files.isRegularFile(models.resolve(file))) {
            return ModelConfig.load(models.resolve(file).toString());
        }
        try (InputStream in = DecodeValidation.class.getResourceAsStream(BUNDLED_MODELS + file)) {
            return in == null ? null : ModelConfig.parse(new String(in.readAllBytes(), StandardCharsets.UTF_8), file);
        } catch (IOException e) {
            throw new IllegalStateException("the bundled model " + file + " cannot be read", e);
        }
    }

    /** The first whole number in a column such as "sonnet dataset (default ~550)"; 0 if none. */
    static int firstInt(String s) {
        Matcher m = Pattern.compile("\\d+").matcher(s);
        return m.find() ? Integer.parseInt(m.group()) : 0;
    }

    /** Geomean |error| as exp(mean |ln(sim/meas)|) - 1, over the simulated decode rows. */
    public double geomeanAbsError() {
        return LogError.geomeanAbs(simulated().stream().map(Outcome::ratio).toList());
    }

    /** The signed bias: exp(mean ln(sim/meas)) - 1; negative when the model is fast. */
    public double bias() {
        return LogError.bias(simulated().stream().map(Outcome::ratio).toList());
    }

    /** The decode rows simulated. */
    public List<Outcome> simulated() {
        return outcomes.stream().filter(o -> o.skipped() == null && !o.ttft()).toList();
    }

    /** The time-to-first-token rows simulated. */
    public List<Outcome> simulatedTtft() {
        return outcomes.stream().filter(o -> o.skipped() == null && o.ttft()).toList();
    }

    /** Where the time-to-first-token rows came from, when not from the file validated; else null. */
    public String ttftSource() {
        return ttftSource;
    }

    /** Reads the CSV's fields, each error naming the file, the line and the column (the serving CSV's too). */
    record Fields(Map<String, String> m, String file, int line) {
        String text(String key) {
            String v = m.get(key);
            if (v == null || v.isBlank()) {
                throw new InputException(file + ": line " + line + ": missing '" + key + "'");
            }
            return v.trim();
        }

        String optional(String key) {
            return m.get(key);
        }

        double number(String key) {
            String v = text(key);
            try {
                double d = Double.parseDouble(v);
                if (d > 0 && Double.isFinite(d)) {
                    return d;
                }
            } catch (NumberFormatException e) {
                // reported below
            }
            throw new InputException(file + ": line " + line + ": " + key + " '" + v + "': expected a positive number");
        }

        /** A count that may be left blank, {@code otherwise} then. */
        int optionalCount(String key, int otherwise) {
            String v = m.get(key);
            return v == null || v.isBlank() ? otherwise : count(key);
        }

        int count(String key) {
            return whole(key, "ranks");
        }

        /** A positive whole number of {@code things} (ranks, tokens, instances), at most 2^20. */
        int whole(String key, String things) {
            double d = number(key);
            if (d != Math.rint(d) || d > 1 << 20) {
                throw new InputException(file + ": line " + line + ": " + key + " '" + m.get(key) + "': expected a whole number of " + things);
            }
            return (int) d;
        }
    }
}
