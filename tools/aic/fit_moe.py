#!/usr/bin/env python3
"""How far constants per architecture take the step model's fused-MoE form: fits the grouped GEMMs'
share of HBM, share of the dense tensor rate and fixed time to aiconfigurator's measured MoE tables,
per engine, architecture and format, pricing every other kernel of the op as `validate --kernels`
does (top-k, the sort, the top-k sum; activation and quantisation fused, as TensorRT-LLM runs them:
for vLLM's and SGLang's tables, whose engines run those as kernels of their own, the fitted fixed time
takes them up, and the "today" column is not validate --kernels' score), with the tables' own routing
(balanced_logits; KernelValidation.balancedRouting).

A measurement for the kernel fit, not collsim's model (whose grouped GEMMs stream at GEMM_MEMORY and
compute at GEMM_MATH, the dense GEMMs' shares). Needs numpy and scipy.

  python3 tools/aic/fit_moe.py [sim-scenarios/src/main/resources/calibration/kernels]
"""
import collections
import csv
import math
import os
import sys

import numpy as np
from scipy.optimize import minimize

GPUS = {  # dense BF16 and FP8 TFLOPS, HBM bytes/s (collsim's GpuModel)
    'h100_sxm': (989.4, 1978.9, 3.35e12), 'h200_sxm': (989.4, 1978.9, 4.8e12),
    'b200_sxm': (2250, 4500, 7.7e12), 'gb200': (2500, 5000, 8.0e12),
}
ARCHES = {'hopper': ['h100_sxm', 'h200_sxm'], 'blackwell': ['b200_sxm', 'gb200']}
FORMATS = {'bfloat16': (2, 16), 'fp8': (1, 8), 'fp8_block': (1, 8)}
LAUNCH_US, FIXED_US, STREAM, TILE_ROWS = 1.5, 2.0, 0.85, 64


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


def features(path, gpu, fmt):
    bf16, fp8, bw = GPUS[gpu]
    out = []
    with open(path) as f:
        for r in csv.DictReader(f):
            if r['moe_dtype'] != fmt or 'nongated' in r['kernel_source'] or r['distribution'] != 'balanced':
                continue
            bpp, bits = FORMATS[fmt]
            t, h, inter, k, e, tp, ep = (int(r[c]) for c in ('num_tokens', 'hidden_size', 'inter_size', 'topk', 'num_experts',
                                                               'moe_tp_size', 'moe_ep_size'))
            active, rows = routing(t, e, k, ep)
            if active == 0:
                continue
            inner = inter / tp
            padded = active * math.ceil(rows / active / TILE_ROWS) * TILE_ROWS
            rate = (fp8 if bits == 8 else bf16) * 1e12
            up_math = 2 * padded * 2 * h * inner / rate * 1e6
            up_bytes = (active * 2 * h * inner * bpp + rows * (h + 2 * inner) * 2) / bw * 1e6
            down_bytes = (active * h * inner * bpp + rows * (inner + h) * 2) / bw * 1e6
            others = 3 * (LAUNCH_US + FIXED_US) + (t * e * 4 + rows * 8 + (rows + t) * h * 2) / (bw * STREAM) * 1e6 + 2 * LAUNCH_US
            out.append((up_math, up_bytes, up_math / 2, down_bytes, others, float(r['latency_ms']) * 1000))
    return np.array(out)


def model(x, p):
    memory, math_share, fixed = p
    return x[:, 4] + 2 * fixed + np.maximum(x[:, 0] / math_share, x[:, 1] / memory) + np.maximum(x[:, 2] / math_share, x[:, 3] / memory)


def fit(data):
    def objective(p):
        if not (0.05 < p[0] <= 1 and 0.05 < p[1] <= 1 and p[2] >= 0):
            return 1e12
        return sum(np.sum(np.abs(np.log(model(x, p) / x[:, 5]))) for x in data)
    return min((minimize(objective, s, method='Nelder-Mead') for s in [(0.5, 0.5, 5), (0.8, 0.6, 2), (0.3, 0.3, 10)]),
               key=lambda r: r.fun).x


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else 'sim-scenarios/src/main/resources/calibration/kernels'
    print('engine  architecture  format     gpu        rows  today: geomean  bias   fitted: geomean  bias   memory  math  fixed us')
    for engine in ('trtllm', 'vllm', 'sglang'):
        for arch, gpus in ARCHES.items():
            for fmt in FORMATS:
                data = {}
                for g in gpus:
                    path = os.path.join(root, engine, f'{g}_moe.csv')
                    if os.path.exists(path):
                        x = features(path, g, fmt)
                        if len(x):
                            data[g] = x
                if not data:
                    continue
                p = fit(list(data.values()))
                for g, x in data.items():
                    today = np.log(model(x, (0.85, 0.70, FIXED_US + LAUNCH_US)) / x[:, 5])
                    fitted = np.log(model(x, p) / x[:, 5])
                    score = lambda l: (100 * (math.exp(np.mean(np.abs(l))) - 1), 100 * (math.exp(np.mean(l)) - 1))
                    print(f'{engine:7} {arch:13} {fmt:10} {g:9} {len(x):5}  {score(today)[0]:13.1f} % {score(today)[1]:+6.1f} %'
                          f'  {score(fitted)[0]:13.1f} % {score(fitted)[1]:+6.1f} %  {p[0]:6.2f}  {p[1]:4.2f}  {p[2]:8.1f}')


if __name__ == '__main__':
    main()
