package dev.collsim.scenarios.views;

import dev.collsim.reports.Column;
import dev.collsim.reports.Table;
import dev.collsim.scenarios.validate.KernelValidation;
import dev.collsim.scenarios.validate.KernelValidation.Group;
import dev.collsim.scenarios.validate.KernelValidation.Outcome;
import java.util.List;
import java.util.Map;

/** {@code validate --kernels}: the step model's kernels against the measured tables, per kind, GPU, format and band. */
public final class KernelValidationView {
    private KernelValidationView() {}

    public static List<Table> tables(KernelValidation v) {
        Table t = new Table("kernels priced as a step prices them against measured kernel tables", List.of(Column.text("kind", "kernel", 20),
                Column.text("engine", "engine", 7), Column.text("gpu", "GPU", 16), Column.text("format", "format", 10), Column.text("band", "band", 14),
                Column.number("rows", "rows", "", 6, 0), Column.number("geomean_abs_error_pct", "geomean |err|", "(%)", 14, 1),
                Column.number("bias_pct", "bias", "(%)", 8, 1), Column.text("worst_shape", "worst shape", 24),
                Column.number("worst_measured_us", "its measured", "(us)", 13, 1), Column.number("worst_simulated_us", "its model", "(us)", 10, 1),
                Column.number("worst_error_pct", "its err", "(%)", 8, 1)), Map.of("command", "validate --kernels"));
        t.note("measured: NVIDIA aiconfigurator's kernel tables, one call per row timed in CUDA-graph replays: TensorRT-LLM's on A100,"
                + " H100, H200, B200 and GB200, vLLM's and SGLang's on H100 and B200 (the versions: tools/aic/README.md, which"
                + " tools/aic/convert.mjs writes them by); each engine's kernels priced with its own traits");
        t.note("gemm (shape M x N x K): the launch gap, the fixed time, then the math (M padded to 64-row tiles, at the format's dense"
                + " tensor rate x its math share), the traffic (weights, activations in and out, at HBM x its memory share) and, where the"
                + " kernel runs each output tile's whole K loop in one CTA (fp8_block, nvfp4), the CTAs' waves over the SMs (each tile at"
                + " its share of an SM's rate) combined as (math^p + traffic^p + tiles^p)^(1/p), the constants per architecture and format"
                + " fitted by tools/aic/fit_gemm.py to the TensorRT-LLM tables (vLLM's and SGLang's nvfp4 to theirs); 8- and 4-bit rows add the activation's dynamic quantisation, which the measured call includes:"
                + " the cast, and before it a pass for the per-tensor scale (fp8; fp8_block's 1 x 128 scales are taken in the cast)");
        t.note("context attention (batch x ISL, query/KV heads per GPU, head size): a CTA per sequence, query head and 128-query tile,"
                + " causal (tile i runs i + 1 key tiles of 128), each tile at an SM's share of the BF16 rate x the architecture's"
                + " efficiency; the CTAs' makespan over the SMs (each paying its start), one pass over q, k, v, the output and (fused)"
                + " the cache write, the op's fixed time; generation attention (batch x cached tokens): the kernel's fixed time, a cost"
                + " per wave of (sequence, KV head) CTAs, then the longer of the cache read (HBM x its share) and the math (the tensor"
                + " rate x its share); the constants per engine, architecture and kernel (grouped heads or one a KV head, a BF16 or an"
                + " FP8 cache), fitted by tools/aic/fit_attention.py; sliding windows, and"
                + " groups of more than " + KernelValidation.MAX_GROUP + " query heads per KV head (no served model's), left out");
        t.note("moe (tokens on the rank, experts, top-k, hidden/inter, the rank's TP and EP): one rank's fused MoE routed as the table"
                + " routed it (aiconfigurator's 'balanced': each token's picks spread evenly over the experts, the rank holding the first"
                + " E / EP), routing given: top-k, the sort by expert, grouped gate/up and down GEMMs over the rank's experts the tokens"
                + " reach (rows padded per expert), the top-k sum, each a kernel as a step prices it; ReLU2 and 4-bit experts left out");
        t.note("context mla / generation mla (batch x ISL or cached tokens, heads per GPU): DeepSeek-V3's MLA as the step runs it,"
                + " a prompt uncompressed (192-wide keys, 128-wide values per head, causal), a decode step absorbed over the 576-wide"
                + " latent cache (a CTA per sequence and 64 heads, the latent decode constants)");
        t.note("error = model / measured - 1; geomean |err| = exp(mean |ln r|) - 1; bias = exp(mean ln r) - 1 (negative: the model is fast)");
        for (Group g : v.groups()) {
            Outcome worst = g.worst();
            t.row(g.kind(), g.engine(), g.gpu(), g.format(), g.band(), g.rows().size(), 100 * g.geomeanAbsError(), 100 * g.bias(),
                    worst == null ? "-" : worst.shape(), worst == null ? Double.NaN : worst.measuredUs(),
                    worst == null ? Double.NaN : worst.simulatedUs(), worst == null ? Double.NaN : 100 * (worst.ratio() - 1));
        }
        return List.of(t);
    }
}
