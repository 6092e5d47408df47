#!/usr/bin/env python3
"""Fits the fused MoE's grouped GEMMs (KernelCosts.MoeConstants) to aiconfigurator's measured MoE tables, per engine,
architecture and weight format, with the tables' own routing (balanced_logits; KernelValidation.balancedRouting) and
every other kernel of the op priced as `validate --kernels` prices it (KernelValidation.moeMicros): top-k, the sort by
expert, the top-k sum, and the activation and 8-bit quantisations where the engine runs them as kernels of their own.

A grouped GEMM of `groups` experts, each `m` rows through an n x k weight (KernelCosts.groupedGemmMicros):
    fixed + max(2 groups pad64(m) pad128(n) (k + fill_k) / (rate math), bytes / (hbm memory)) + rows row_ns
its rows padded to whole tiles (64 rows; Triton's 16 up to 64 tokens) and its columns to 128-wide output tiles; every tile's K loop pays a pipeline fill
and epilogue worth fill_k more elements; bytes = the experts' weights once, and every routed row's BF16 input and output;
row_ns is each routed row's gather, scales and scatter beyond its bytes. Five constants: memory, math, fill_k, fixed_us,
row_ns. Prints each fit's score per GPU and the constants as KernelCosts declares them. Needs numpy and scipy.

  python3 tools/aic/fit_moe.py [sim-scenarios/src/main/resources/calibration/kernels]
"""
import collections
import csv
import math
import os
import sys

import numpy as np
from scipy.optimize import minimize

GPUS = {  # dense BF16, FP8 and FP4 TFLOPS, HBM bytes/s (collsim's GpuModel)
    'h100_sxm': (989.4, 1978.9, 1978.9, 3.35e12), 'h200_sxm': (989.4, 1978.9, 1978.9, 4.8e12),
    'b200_sxm': (2250, 4500, 9000, 7.7e12), 'gb200': (2500, 5000, 10000, 8.0e12),
}
ARCHES = {'hopper': ['h100_sxm', 'h200_sxm'], 'blackwell': ['b200_sxm', 'gb200']}
FORMATS = {'bfloat16': (2, 16), 'fp8': (1, 8), 'fp8_block': (1, 8), 'nvfp4': (0.5625, 4)}
# The kernels a step runs for the format; TensorRT-LLM's min-latency NVFP4 path is an option, not its default.
SKIPPED_SOURCES = ('nongated', 'min_latency')
FUSES_ACT_AND_QUANTIZE = {'trtllm': True, 'vllm': False, 'sglang': False}
# Rows of a grouped GEMM's tile: CUTLASS's and DeepGEMM's 64-row MMA tiles; vLLM's and SGLang's Triton fused_moe takes
# BLOCK_SIZE_M = 16 up to 64 tokens, 64 above (fused_moe.py, get_default_config).
TRITON = {'trtllm': False, 'vllm': True, 'sglang': True}


def tile_rows(engine, tokens):
    return 16 if TRITON[engine] and tokens <= 64 else 64
LAUNCH_US, FIXED_US, STREAM, TILE_COLUMNS = 1.5, 2.0, 0.85, 128


def routing(tokens, experts, top_k, ep):
    """The measured rank's experts reached and rows, as aiconfigurator's balanced_logits routes them (rank 0)."""
    local = math.ceil(experts / ep)
    stride = math.ceil(experts / top_k)
    if tokens >= stride:
        return local, tokens * top_k * local / experts
    reached = collections.Counter()
    for t in range(tokens):
        for j in range(top_k):
            e = int((t * stride / tokens + j * stride) % experts)
            if e < local:
                reached[e] += 1
    return len(reached), sum(reached.values())


def pad(x, tile):
    return math.ceil(x / tile) * tile


def features(path, engine, gpu, fmt):
    """Per row: each GEMM's (tile MACs per K element, K, bytes / HBM in us), the rows, the other kernels' us, measured us."""
    bf16, fp8, fp4, bw = GPUS[gpu]
    bpp, bits = FORMATS[fmt]
    rate = {16: bf16, 8: fp8, 4: fp4}[bits] * 1e12
    out = []
    with open(path) as f:
        for r in csv.DictReader(f):
            if r['moe_dtype'] != fmt or any(s in r['kernel_source'] for s in SKIPPED_SOURCES) or r['distribution'] != 'balanced':
                continue
            t, h, inter, k, e, tp, ep = (int(r[c]) for c in ('num_tokens', 'hidden_size', 'inter_size', 'topk', 'num_experts',
                                                               'moe_tp_size', 'moe_ep_size'))
            active, rows = routing(t, e, k, ep)
            if active == 0:
                continue
            inner = inter / tp
            m = pad(rows / active, tile_rows(engine, t))
            gemms = []
            for n, kk in ((2 * inner, h), (h, inner)):
                gemms += [2 * active * m * pad(n, TILE_COLUMNS) / rate * 1e6, kk,
                          (active * n * kk * bpp + rows * (n + kk) * 2) / bw * 1e6]
            stream = lambda b: LAUNCH_US + FIXED_US + b / (bw * STREAM) * 1e6
            others = 2 * LAUNCH_US + stream(t * e * 4) + stream(rows * 8) + stream((rows + t) * h * 2)
            if not FUSES_ACT_AND_QUANTIZE[engine]:
                others += stream(3 * rows * inner * 2)
                if bits < 16:
                    others += 2 * LAUNCH_US + 2 * FIXED_US + (rows * h * 3 + rows * inner * 3) / (bw * STREAM) * 1e6
            out.append(gemms + [rows, others, float(r['latency_ms']) * 1000])
    return np.array(out)


def model(x, p):
    memory, math_share, fill_k, fixed, row_ns = p
    up = np.maximum(x[:, 0] * (x[:, 1] + fill_k) / math_share, x[:, 2] / memory)
    down = np.maximum(x[:, 3] * (x[:, 4] + fill_k) / math_share, x[:, 5] / memory)
    return x[:, 7] + 2 * (fixed + x[:, 6] * row_ns / 1000) + up + down


def fit(data):
    def objective(p):
        if not (0.05 < p[0] <= 1 and 0.05 < p[1] <= 1 and p[2] >= 0 and p[3] >= 0 and p[4] >= 0):
            return 1e12
        return sum(np.sum(np.abs(np.log(model(x, p) / x[:, 8]))) for x in data)
    starts = [(0.8, 0.7, 256, 5, 5), (0.8, 0.5, 1000, 2, 20), (0.6, 0.9, 100, 8, 1)]
    return min((minimize(objective, s, method='Nelder-Mead', options={'maxiter': 4000, 'xatol': 1e-4, 'fatol': 1e-4})
                for s in starts), key=lambda r: r.fun).x


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else 'sim-scenarios/src/main/resources/calibration/kernels'
    print('engine  architecture  format     gpu        rows  geomean    bias   memory  math  fill_k  fixed us  row ns')
    constants = []
    for engine in FUSES_ACT_AND_QUANTIZE:
        for arch, gpus in ARCHES.items():
            for fmt in FORMATS:
                data = {}
                for g in gpus:
                    path = os.path.join(root, engine, f'{g}_moe.csv')
                    if os.path.exists(path):
                        x = features(path, engine, g, fmt)
                        if len(x):
                            data[g] = x
                if not data:
                    continue
                p = fit(list(data.values()))
                for g, x in data.items():
                    err = np.log(model(x, p) / x[:, 8])
                    print(f'{engine:7} {arch:13} {fmt:10} {g:9} {len(x):5}  {100 * (math.exp(np.mean(np.abs(err))) - 1):6.1f} %'
                          f' {100 * (math.exp(np.mean(err)) - 1):+6.1f} %  {p[0]:6.3f} {p[1]:5.3f} {p[2]:7.0f} {p[3]:9.1f} {p[4]:7.1f}')
                constants.append(f'{engine.upper()}_{arch.upper()}_{fmt.upper()} = new MoeConstants('
                                 f'{p[0]:.3f}, {p[1]:.3f}, {p[2]:.0f}, {p[3]:.1f}, {p[4]:.1f})')
    print('\n' + '\n'.join(constants))


if __name__ == '__main__':
    main()
