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
import java.util.function.Predicate;

/**
 * The step model's kernels against measured kernel tables: NVIDIA aiconfigurator's per-GPU GEMM
 * timings (TensorRT-LLM, converted by {@code tools/aic/convert.mjs}), each row priced as a step
 * prices that GEMM ({@link KernelCosts#gemmMicros}) and scored per GPU, weight format and band of
 * M (the tokens: decode's few rows, the ridge, prefill's many).
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
        FP8_BLOCK("fp8_block", 1, 8);

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

    /** Bands of M the scores are split by: the decode batch, the ridge between memory and math, prefill. */
    enum Band {
        DECODE("M <= 16", m -> m <= 16),
        RIDGE("16 < M <= 512", m -> m > 16 && m <= 512),
        PREFILL("M > 512", m -> m > 512);

        final String label;
        final Predicate<Integer> holds;

        Band(String label, Predicate<Integer> holds) {
            this.label = label;
            this.holds = holds;
        }
    }

    /** One measured GEMM: M x N x K in a weight format, measured and modelled microseconds. */
    public record Outcome(String gpu, String format, int m, int n, int k, double measuredUs, double simulatedUs) {
        public double ratio() {
            return simulatedUs / measuredUs;
        }

        public String shape() {
            return m + "x" + n + "x" + k;
        }
    }

    /** The rows of one GPU and format in one band of M ("all": every M), scored. */
    public record Group(String gpu, String format, String band, List<Outcome> rows) {
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

    /** Every bundled GEMM table, priced and scored. */
    public static KernelValidation bundled() {
        List<Outcome> outcomes = new ArrayList<>();
        List<Group> groups = new ArrayList<>();
        for (Map.Entry<String, GpuModel> gpu : GPUS.entrySet()) {
            KernelCosts costs = new KernelCosts(gpu.getValue().roofline(), true, ServingEngine.TRTLLM);
            List<Outcome> mine = gemms(gpu.getKey(), gpu.getValue(), costs);
            outcomes.addAll(mine);
            for (GemmFormat f : GemmFormat.values()) {
                List<Outcome> format = mine.stream().filter(o -> o.format().equals(f.column)).toList();
                if (format.isEmpty()) {
                    continue;
                }
                for (Band b : Band.values()) {
                    groups.add(new Group(gpu.getValue().label(), f.column, b.label, format.stream().filter(o -> b.holds.test(o.m())).toList()));
                }
                groups.add(new Group(gpu.getValue().label(), f.column, "all", format));
            }
        }
        return new KernelValidation(List.copyOf(outcomes), List.copyOf(groups));
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
     * A GPU's GEMM table ({@code gemm_dtype,m,n,k,latency_ms}); rows of a format the GPU has no tensor rate for (FP8 on
     * an A100) or the model does not price are left out.
     */
    private static List<Outcome> gemms(String prefix, GpuModel gpu, KernelCosts costs) {
        String resource = BUNDLED + prefix + "_gemm.csv";
        List<Outcome> out = new ArrayList<>();
        try (InputStream in = KernelValidation.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new InputException(resource + ": not in the jar; rebuild it");
            }
            BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            String header = r.readLine();
            if (!"gemm_dtype,m,n,k,latency_ms".equals(header)) {
                throw new InputException(resource + ": expected the header gemm_dtype,m,n,k,latency_ms, found " + header);
            }
            String line;
            while ((line = r.readLine()) != null) {
                String[] f = line.split(",");
                GemmFormat format = GemmFormat.of(f[0]);
                if (format == null || (format.bits < 16 && gpu.roofline().fp8Tflops() == 0)) {
                    continue;
                }
                int m = Integer.parseInt(f[1]);
                int n = Integer.parseInt(f[2]);
                int k = Integer.parseInt(f[3]);
                double measured = Double.parseDouble(f[4]) * 1000;
                out.add(new Outcome(gpu.label(), format.column, m, n, k, measured, modelled(costs, format, m, n, k)));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }
}
