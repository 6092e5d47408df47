package dev.collsim.scenarios.validate;

import dev.collsim.core.input.InputException;
import dev.collsim.scenarios.decode.KernelCosts;
import dev.collsim.scenarios.decode.Precision;
import dev.collsim.scenarios.decode.ServingEngine;
import dev.collsim.topologies.catalog.GpuModel;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The step model's kernels against measured kernel tables: NVIDIA aiconfigurator's per-GPU timings
 * (TensorRT-LLM, vLLM and SGLang, converted by {@code tools/aic/convert.mjs}) of GEMMs, a prompt's attention and a
 * decode step's attention, and AMD AITER's tuned GEMM and fused-MoE tables on Instinct GPUs ({@code
 * tools/aiter/convert.py}), each row priced as a step prices that kernel and scored per kind, GPU,
 * format and band (of M for GEMMs, of the sequence for attention).
 */
public record KernelValidation(List<Outcome> outcomes, List<Group> groups) {
    /** Where the converted tables are, in the jar. */
    static final String BUNDLED = "/calibration/kernels/";

    /** The tables' GPUs, in the order they are reported, by the file prefix aiconfigurator gives them. */
    static final Map<String, GpuModel> GPUS = orderedGpus();

    private static Map<String, GpuModel> orderedGpus() {
        Map<String, GpuModel> m = new LinkedHashMap<>();
        m.put("a100_sxm", GpuModel.A100_SXM);
        m.put("h100_sxm", GpuModel.H100_SXM);
        m.put("h200_sxm", GpuModel.H200_SXM);
        m.put("b200_sxm", GpuModel.B200);
        m.put("gb200", GpuModel.GB200);
        return m;
    }

    /** A weight format of the GEMM tables: its bytes per weight and its operands' width on the tensor cores. */
    enum GemmFormat {
        BF16("bfloat16", 2, 16),
        FP8("fp8", 1, 8),
        FP8_BLOCK("fp8_block", 1, 8),
        /** NVIDIA's FP4 with an FP8 scale per 16 weights. */
        NVFP4("nvfp4", 0.5625, 4),
        /** gpt-oss's MXFP4 experts (an E8M0 scale per 32 weights) against BF16 activations: W4A16, math at the BF16 rate. */
        W4A16_MXFP4("w4a16_mxfp4", 0.53125, 16);

        final String column;
        final double bytesPerParam;
        final int bits;

        GemmFormat(String column, double bytesPerParam, int bits) {
            this.column = column;
            this.bytesPerParam = bytesPerParam;
            this.bits = bits;
        }

        static GemmFormat of(String column) {
            for (GemmFormat f : values()) {
                if (f.column.equals(column)) {
                    return f;
                }
            }
            return null;
        }
    }

    /** A measured table: its file, header, and how a row is priced (null: a row the model does not price). */
    enum Kind {
        GEMM("gemm", "gemm_dtype,m,n,k,latency_ms"),
        CONTEXT_ATTENTION("context_attention", "attn_dtype,kv_cache_dtype,batch_size,isl,num_heads,num_key_value_heads,head_dim,window_size,latency_ms"),
        GENERATION_ATTENTION("generation_attention", "kv_cache_dtype,batch_size,step,num_heads,num_key_value_heads,head_dim,window_size,latency_ms"),
        MOE("moe", "moe_dtype,kernel_source,distribution,num_tokens,hidden_size,inter_size,topk,num_experts,moe_tp_size,moe_ep_size,latency_ms"),
        CONTEXT_MLA("context_mla", "kv_cache_dtype,batch_size,isl,num_heads,tp_size,latency_ms"),
        GENERATION_MLA("generation_mla", "kv_cache_dtype,batch_size,step,num_heads,tp_size,latency_ms");

        final String file;
        final String header;

        Kind(String file, String header) {
            this.file = file;
            this.header = header;
        }

        String label() {
            return file.replace('_', ' ');
        }
    }

    /** One measured kernel call: its shape, format and band, measured and modelled microseconds. */
    public record Outcome(String kind, String engine, String gpu, String format, String band, String shape, double measuredUs, double simulatedUs) {
        public double ratio() {
            return simulatedUs / measuredUs;
        }
    }

    /** The rows of one kind, engine, GPU and format in one band ("all": every band), scored. */
    public record Group(String kind, String engine, String gpu, String format, String band, List<Outcome> rows) {
        public double geomeanAbsError() {
            return LogError.geomeanAbs(rows.stream().map(Outcome::ratio).toList());
        }

        public double bias() {
            return LogError.bias(rows.stream().map(Outcome::ratio).toList());
        }

        public Outcome worst() {
            return rows.stream().max(Comparator.comparingDouble(o -> Math.abs(Math.log(o.ratio())))).orElse(null);
        }
    }

    /**
     * One measured table's source and GPU, and the step's kernel costs there: what a row is priced with. A table of
     * kernel times alone ({@code kernelOnly}: AITER's tuner times the kernel, no launch, its input already quantised)
     * is priced the same way.
     */
    private record Table(String source, ServingEngine engine, GpuModel gpu, KernelCosts costs, boolean kernelOnly) {
        Outcome outcome(Kind kind, String format, String band, String shape, String latencyMs, double simulatedUs) {
            return new Outcome(kind.label(), source, gpu.label(), format, band, shape, ms(latencyMs), simulatedUs);
        }
    }

    /**
     * A folder of bundled tables: the engine whose kernels they time (its name is the folder's, but AITER's: vLLM's and
     * SGLang's kernels on ROCm), its GPUs by file prefix, and whether its times are of the kernel alone.
     */
    record Source(String folder, ServingEngine engine, Map<String, GpuModel> gpus, boolean kernelOnly) {}

    /** Every bundled folder: aiconfigurator's, one per engine, then AITER's. */
    static final List<Source> SOURCES = List.of(aiconfigurator(ServingEngine.TRTLLM), aiconfigurator(ServingEngine.VLLM),
            aiconfigurator(ServingEngine.SGLANG), new Source("aiter", ServingEngine.VLLM, instinctGpus(), true));

    private static Source aiconfigurator(ServingEngine engine) {
        return new Source(engine.label(), engine, GPUS, false);
    }

    private static Map<String, GpuModel> instinctGpus() {
        Map<String, GpuModel> m = new LinkedHashMap<>();
        m.put("mi300x", GpuModel.MI300X);
        m.put("mi355x", GpuModel.MI355X);
        return m;
    }

    /** Every bundled table, priced and scored. */
    public static KernelValidation bundled() {
        List<Outcome> outcomes = new ArrayList<>();
        List<Group> groups = new ArrayList<>();
        for (Kind kind : Kind.values()) {
            for (Source source : SOURCES) {
                for (Map.Entry<String, GpuModel> gpu : source.gpus().entrySet()) {
                    ServingEngine engine = source.engine();
                    Table table = new Table(source.folder(), engine, gpu.getValue(), new KernelCosts(gpu.getValue(), true, engine),
                            source.kernelOnly());
                    List<Outcome> mine = read(kind, gpu.getKey(), table);
                    outcomes.addAll(mine);
                    for (String format : mine.stream().map(Outcome::format).distinct().toList()) {
                        List<Outcome> ofFormat = mine.stream().filter(o -> o.format().equals(format)).toList();
                        for (String band : ofFormat.stream().map(Outcome::band).distinct().sorted().toList()) {
                            groups.add(new Group(kind.label(), source.folder(), gpu.getValue().label(), format, band,
                                    ofFormat.stream().filter(o -> o.band().equals(band)).toList()));
                        }
                        groups.add(new Group(kind.label(), source.folder(), gpu.getValue().label(), format, "all", ofFormat));
                    }
                }
            }
        }
        return new KernelValidation(List.copyOf(outcomes), List.copyOf(groups));
    }

    /**
     * A table's rows, priced; none where the engine has no table of this kind for this GPU (the TensorRT-LLM tables cover
     * every GPU and kind, vLLM's and SGLang's fewer: tools/aic/README.md).
     */
    private static List<Outcome> read(Kind kind, String prefix, Table table) {
        String resource = BUNDLED + table.source() + "/" + prefix + "_" + kind.file + ".csv";
        Function<String[], Outcome> price = switch (kind) {
            case GEMM -> f -> gemm(f, table);
            case CONTEXT_ATTENTION -> f -> contextAttention(f, table);
            case GENERATION_ATTENTION -> f -> generationAttention(f, table);
            case MOE -> f -> moe(f, table);
            case CONTEXT_MLA -> f -> contextMla(f, table);
            case GENERATION_MLA -> f -> generationMla(f, table);
        };
        List<Outcome> out = new ArrayList<>();
        try (InputStream in = KernelValidation.class.getResourceAsStream(resource)) {
            if (in == null) {
                return out;
            }
            BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            String header = r.readLine();
            if (!kind.header.equals(header)) {
                throw new InputException(resource + ": expected the header " + kind.header + ", found " + header);
            }
            String line;
            while ((line = r.readLine()) != null) {
                Outcome o = price.apply(line.split(","));
                if (o != null) {
                    out.add(o);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    /** A GEMM row; one of a format the GPU has no tensor rate for (FP8 on an A100, FP4 before Blackwell) is left out. */
    private static Outcome gemm(String[] f, Table table) {
        GpuModel gpu = table.gpu();
        GemmFormat format = GemmFormat.of(f[0]);
        if (format == null || (format.bits < 16 && gpu.roofline().fp8Tflops() == 0) || (format.bits <= 4 && gpu.roofline().fp4Tflops() == 0)) {
            return null;
        }
        // A block-scaled format's GEMMs take their own constants (KernelCosts.GemmConstants).
        KernelCosts costs = format == GemmFormat.FP8_BLOCK ? new KernelCosts(gpu, true, table.costs().engine(), true) : table.costs();
        int m = Integer.parseInt(f[1]);
        int n = Integer.parseInt(f[2]);
        int k = Integer.parseInt(f[3]);
        String band = m <= 16 ? "M <= 16" : m <= 512 ? "M 32-512" : "M > 512";
        return table.outcome(Kind.GEMM, format.column, band, m + "x" + n + "x" + k, f[4],
                table.kernelOnly() ? costs.gemmMicros(m, n, k, format.bytesPerParam, format.bits) : modelled(costs, format, m, n, k));
    }

    /**
     * One call as the table times it, in a CUDA graph: the GEMM's launch gap and work, and for an 8-bit format the
     * activation's dynamic quantisation that aiconfigurator's collector times with it, priced as the step's quantize
     * kernel; a per-tensor scale first takes the activations' maximum in a pass of its own (TensorRT-LLM's
     * invokeComputeScalesAndQuantizeMatrix: the scale kernel, then the cast), where a 1 x 128 block's scale is taken in
     * the cast.
     */
    static double modelled(KernelCosts costs, GemmFormat format, int m, int n, int k) {
        double gemm = costs.launchMicros() + costs.gemmMicros(m, n, k, format.bytesPerParam, format.bits);
        if (format.bits == 16) {
            return gemm;
        }
        double cast = costs.launchMicros() + costs.workMicros(KernelCosts.Kind.ELEMENTWISE, 0, KernelCosts.quantizeBytes(m, k), format.bits);
        double scale = format == GemmFormat.FP8
                ? costs.launchMicros() + costs.workMicros(KernelCosts.Kind.ELEMENTWISE, 0, (double) m * k * Precision.ACTIVATION_BYTES, format.bits)
                : 0;
        return gemm + scale + cast;
    }

    /**
     * A prompt's attention: {@code batch} prompts of {@code isl} tokens, causal, priced as a step prices a prefill's
     * attention kernel ({@link KernelCosts#promptAttentionMicros}); sliding-window rows are left out (the model has no window).
     */
    private static Outcome contextAttention(String[] f, Table table) {
        KernelCosts costs = table.costs();
        int heads = Integer.parseInt(f[4]);
        int kvHeads = Integer.parseInt(f[5]);
        if (!f[7].equals("0") || !f[0].equals("bfloat16") || heads > MAX_GROUP * kvHeads) {
            return null;
        }
        int batch = Integer.parseInt(f[2]);
        int isl = Integer.parseInt(f[3]);
        int headDim = Integer.parseInt(f[6]);
        int kvBytes = f[1].equals("fp8") ? 1 : 2;
        String band = isl <= 1024 ? "ISL <= 1K" : isl <= 4096 ? "ISL 2K-4K" : "ISL > 4K";
        return table.outcome(Kind.CONTEXT_ATTENTION, "kv " + f[1], band,
                batch + "x" + isl + " h" + heads + "/" + kvHeads + " d" + headDim, f[8],
                costs.launchMicros() + costs.promptAttentionMicros(
                        new KernelCosts.AttentionShape(batch, isl, 0, heads, kvHeads, headDim, headDim, kvBytes, false)));
    }

    /** A decode step's attention: {@code batch} sequences of {@code step} cached tokens, one new token each, as a step prices it. */
    private static Outcome generationAttention(String[] f, Table table) {
        GpuModel gpu = table.gpu();
        KernelCosts costs = table.costs();
        int heads = Integer.parseInt(f[3]);
        int kvHeads = Integer.parseInt(f[4]);
        int kvBytes = f[0].equals("fp8") ? 1 : 2;
        if (!f[6].equals("0") || heads > MAX_GROUP * kvHeads || (kvBytes == 1 && gpu.roofline().fp8Tflops() == 0)) {
            return null;
        }
        int batch = Integer.parseInt(f[1]);
        int step = Integer.parseInt(f[2]);
        int headDim = Integer.parseInt(f[5]);
        String band = step <= 1024 ? "context <= 1K" : step <= 8192 ? "context 2K-8K" : "context > 8K";
        return table.outcome(Kind.GENERATION_ATTENTION, "kv " + f[0], band,
                batch + "x" + step + " h" + heads + "/" + kvHeads + " d" + headDim, f[7],
                costs.launchMicros() + costs.decodeAttentionMicros(
                        new KernelCosts.AttentionShape(batch, 1, step, heads, kvHeads, headDim, headDim, kvBytes, false)));
    }

    /**
     * One rank's fused MoE (routing given, no gate GEMM, no all-to-all or all-reduce), as a step under the table's engine
     * prices a MoE layer's experts ({@code LayerKernels}' MoE): top-k, the sort by expert, the grouped gate/up and down
     * GEMMs over the experts the rank's tokens reach (each expert's rows padded to whole tiles), the sum of the top-k
     * outputs, and, where the engine does not fuse them, the activation and the 8-bit quantisations before each GEMM
     * (the rows come in BF16: the table has no dispatch to carry them in FP8). Gated SiLU experts in BF16, 8-bit formats,
     * NVFP4 and gpt-oss's MXFP4 weights against BF16 activations; ReLU2 experts, TensorRT-LLM's min-latency NVFP4 path (an
     * option, not its default) and Marlin's MXFP4 kernels (compressed-tensors checkpoints, not gpt-oss's) are left out; each
     * engine's backends (CUTLASS, Triton, DeepGEMM, FlashInfer's) are scored together.
     */
    private static Outcome moe(String[] f, Table table) {
        GpuModel gpu = table.gpu();
        KernelCosts costs = table.costs();
        GemmFormat format = GemmFormat.of(f[0]);
        if (format == null || f[1].contains("nongated") || f[1].contains("min_latency") || format == GemmFormat.W4A16_MXFP4 && f[1].contains("marlin")
                || (format.bits < 16 && gpu.roofline().fp8Tflops() == 0) || (format.bits < 8 && gpu.roofline().fp4Tflops() == 0)) {
            return null;
        }
        if (table.kernelOnly() && format.bits == 16 && format != GemmFormat.BF16) {
            return null;
        }
        int tokens = Integer.parseInt(f[3]);
        int hidden = Integer.parseInt(f[4]);
        int inter = Integer.parseInt(f[5]);
        int topK = Integer.parseInt(f[6]);
        int experts = Integer.parseInt(f[7]);
        int tp = Integer.parseInt(f[8]);
        int ep = Integer.parseInt(f[9]);
        String band = tokens <= 16 ? "tokens <= 16" : tokens <= 1024 ? "tokens 64-1K" : "tokens > 1K";
        return table.outcome(Kind.MOE, format.column, band,
                tokens + " tok " + experts + "e top" + topK + " " + hidden + "/" + inter + " tp" + tp + " ep" + ep, f[10],
                table.kernelOnly() ? fusedMoeMicros(costs, format, tokens, hidden, inter, topK, experts, tp, ep)
                        : moeMicros(costs, format, tokens, hidden, inter, topK, experts, tp, ep));
    }

    /** A fused MoE's two grouped GEMMs alone (AITER's tables time its two stages, the activation fused into the first). */
    static double fusedMoeMicros(KernelCosts costs, GemmFormat format, int tokens, int hidden, int inter, int topK, int experts, int tp,
                                 int ep) {
        double[] routed = balancedRouting(tokens, experts, topK, ep);
        double innerPerRank = (double) inter / tp;
        double gateUp = 2.0 * hidden * innerPerRank * routed[0];
        boolean blockScaled = format == GemmFormat.FP8_BLOCK;
        return costs.groupedGemmMicros(tokens, routed[1], routed[0], gateUp, hidden, format.bytesPerParam, format.bits, blockScaled)
                + costs.groupedGemmMicros(tokens, routed[1], routed[0], gateUp / 2, innerPerRank, format.bytesPerParam, format.bits,
                        blockScaled);
    }

    /** {@link #moe}'s price, launches included, the rank's experts and rows as the table routed them ({@link #balancedRouting}). */
    static double moeMicros(KernelCosts costs, GemmFormat format, int tokens, int hidden, int inter, int topK, int experts, int tp, int ep) {
        double[] routed = balancedRouting(tokens, experts, topK, ep);
        double active = routed[0];
        double rows = routed[1];
        double innerPerRank = (double) inter / tp;
        double gateUp = 2.0 * hidden * innerPerRank * active;
        double launch = costs.launchMicros();
        double topk = launch + costs.workMicros(KernelCosts.Kind.ELEMENTWISE, 0, (double) tokens * experts * 4, 16);
        double align = launch + costs.workMicros(KernelCosts.Kind.ELEMENTWISE, 0, rows * 8, 16);
        boolean blockScaled = format == GemmFormat.FP8_BLOCK;
        double up = launch + costs.groupedGemmMicros(tokens, rows, active, gateUp, hidden, format.bytesPerParam, format.bits, blockScaled);
        double down = launch + costs.groupedGemmMicros(tokens, rows, active, gateUp / 2, innerPerRank, format.bytesPerParam, format.bits, blockScaled);
        double sum = launch + costs.workMicros(KernelCosts.Kind.ELEMENTWISE, 0, (rows + tokens) * hidden * Precision.ACTIVATION_BYTES, 16);
        double act = costs.engine().fusesActivation() ? 0
                : launch + costs.workMicros(KernelCosts.Kind.ELEMENTWISE, 0, 3.0 * rows * innerPerRank * Precision.ACTIVATION_BYTES, 16);
        double quantize = format.bits == 16 || costs.engine().fusesQuantize() ? 0
                : 2 * launch + costs.workMicros(KernelCosts.Kind.ELEMENTWISE, 0, KernelCosts.quantizeBytes(rows, hidden), format.bits)
                        + costs.workMicros(KernelCosts.Kind.ELEMENTWISE, 0, KernelCosts.quantizeBytes(rows, innerPerRank), format.bits);
        return topk + align + up + down + sum + act + quantize;
    }

    /**
     * The experts of the measured rank that the table's tokens reach and the rows they get, {active, rows}: the rows'
     * routing is aiconfigurator's "balanced" (collector/helper.py, balanced_logits): with stride = ceil(E / k), token t's
     * j-th pick is expert (t + j stride) mod E, or (t stride / T + j stride) mod E spread evenly where there are fewer
     * tokens T than the stride; the rank holds the first ceil(E / ep) experts (TensorRT-LLM's contiguous split, rank 0).
     * Not the step's uniform expectation: a table's row routes deterministically, and one token reaches the rank's first expert.
     */
    static double[] balancedRouting(int tokens, int experts, int topK, int ep) {
        int local = (int) Math.ceil((double) experts / ep);
        int stride = (int) Math.ceil((double) experts / topK);
        if (tokens >= stride) {
            // Each pick j covers the T consecutive experts from j x stride (mod E), and together they cover every expert.
            double rows = 0;
            for (int j = 0; j < topK; j++) {
                rows += cyclicOverlap((long) j * stride % experts, tokens, experts, local);
            }
            return new double[] {local, rows};
        }
        java.util.Set<Integer> reached = new java.util.HashSet<>();
        int rows = 0;
        for (int t = 0; t < tokens; t++) {
            for (int j = 0; j < topK; j++) {
                int e = (int) (((double) t * stride / tokens + (double) j * stride) % experts);
                if (e < local) {
                    reached.add(e);
                    rows++;
                }
            }
        }
        return new double[] {reached.size(), rows};
    }

    /** How many of the {@code length} consecutive experts from {@code start}, wrapping at {@code experts}, fall below {@code local}. */
    private static double cyclicOverlap(long start, long length, long experts, long local) {
        long wraps = length / experts;
        long rest = length % experts;
        long end = start + rest;
        long inFirst = Math.max(0, Math.min(end, local) - start);
        long inWrap = end > experts ? Math.min(end - experts, local) : 0;
        return wraps * local + inFirst + inWrap;
    }

    /** DeepSeek-V3's MLA geometry, which the MLA tables are measured at: nope and rope query sizes, value size, latent rank. */
    static final int MLA_NOPE = 128;
    static final int MLA_ROPE = 64;
    static final int MLA_VALUE = 128;
    static final int MLA_LATENT = 512;

    /**
     * A prompt's MLA attention as a step prices it: uncompressed, every head's 192-wide keys and 128-wide values,
     * causal over the prompt ({@code LayerKernels}' latent attention in a prefill).
     */
    private static Outcome contextMla(String[] f, Table table) {
        KernelCosts costs = table.costs();
        int batch = Integer.parseInt(f[1]);
        int isl = Integer.parseInt(f[2]);
        int heads = Integer.parseInt(f[3]);
        int kvBytes = f[0].equals("fp8") ? 1 : 2;
        String band = isl <= 1024 ? "ISL <= 1K" : isl <= 4096 ? "ISL 2K-4K" : "ISL > 4K";
        return table.outcome(Kind.CONTEXT_MLA, "kv " + f[0], band, batch + "x" + isl + " h" + heads, f[5],
                costs.launchMicros() + costs.promptAttentionMicros(
                        new KernelCosts.AttentionShape(batch, isl, 0, heads, heads, MLA_NOPE + MLA_ROPE, MLA_VALUE, kvBytes, false)));
    }

    /** A decode step's absorbed MLA attention over the latent cache, as a step prices it. */
    private static Outcome generationMla(String[] f, Table table) {
        GpuModel gpu = table.gpu();
        KernelCosts costs = table.costs();
        int kvBytes = f[0].equals("fp8") ? 1 : 2;
        if (kvBytes == 1 && gpu.roofline().fp8Tflops() == 0) {
            return null;
        }
        int batch = Integer.parseInt(f[1]);
        int step = Integer.parseInt(f[2]);
        int heads = Integer.parseInt(f[3]);
        String band = step <= 1024 ? "context <= 1K" : step <= 8192 ? "context 2K-8K" : "context > 8K";
        return table.outcome(Kind.GENERATION_MLA, "kv " + f[0], band, batch + "x" + step + " h" + heads, f[5],
                costs.launchMicros() + costs.decodeAttentionMicros(
                        new KernelCosts.AttentionShape(batch, 1, step, heads, 1, MLA_LATENT + MLA_ROPE, MLA_LATENT, kvBytes, true)));
    }

    /**
     * Query heads per KV head the attention rows are scored up to: the catalogue's models group 4 to 16 (Llama-3 8 and
     * 4, Qwen3 MoE 16, Mixtral 4); TensorRT-LLM times wider groups (128 query heads on one KV head) with another kernel
     * that reads the cache once per query head, a shape no served model has.
     */
    public static final int MAX_GROUP = 16;

    private static double ms(String latencyMs) {
        return Double.parseDouble(latencyMs) * 1000;
    }
}
