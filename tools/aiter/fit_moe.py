#!/usr/bin/env python3
"""Fits the fused MoE's grouped GEMMs (KernelCosts.MoeConstants) to AMD AITER's tuned fused-MoE tables
(kernels/aiter/<gpu>_moe.csv, written by tools/aiter/convert_moe.py), per architecture (CDNA3: mi300x, CDNA4: mi355x)
and weight format, with the model and fitting method of tools/aic/fit_moe.py.

A grouped GEMM of the experts reached, m_e routed rows each, through an n x k weight (KernelCosts.groupedGemmMicros):
    fixed + max(2 sum_e pad(m_e) pad128(n) (k + fill_k) / (rate math), bytes / (hbm memory)) + rows row_ns
bytes = the reached experts' weights once and every routed row's BF16 input and output. Five constants: memory, math,
fill_k, fixed_us, row_ns; each row is two GEMMs (gate+up: n = 2 inter, k = hidden; down: n = hidden, k = inter).

What differs from the aiconfigurator fit, because of what AITER's `us` is (convert_moe.py's docstring):
  - `us` is the device time of the two stages' kernels only (torch profiler, no launch gaps, no top-k, no sort, no
    input quantisation), so nothing else is added to the model ("others" = 0 in tools/aic/fit_moe.py's terms).
    A 1-stage kernel (both GEMMs in one launch) is priced as two GEMMs too, as collsim prices it.
  - Routing is the tuner's: every token takes `topk` distinct experts uniformly at random, so an expert's rows are
    Binomial(tokens, topk / experts); the experts reached and the rows padded to whole tiles are their expectations,
    computed exactly, not aiconfigurator's balanced_logits.
  - Tile rows (--tiles): `rule` (default), AITER_TILE_ROWS(tokens) below, the rule a step can apply without the table:
    32 rows up to 256 tokens, 64 above (the block_m AITER's tuner picks most often); `table`: each row's own block_m
    (from kernel_source; flat kernels' block_m 1 = no padding), as a check of the rule; `64`: a fixed 64.
GPU rates and HBM bandwidth come from sim-topologies' catalog gpus.yaml (bf16/fp8/fp4_tflops, hbm_tbps).
Prints each fit's score per GPU on all rows and on decode-like rows (<= 256 tokens): geomean |error| =
exp(mean |ln(sim/meas)|) - 1 and signed bias exp(mean ln(sim/meas)) - 1, then the constants as KernelCosts would
declare them. Needs numpy and scipy.

  python3 tools/aiter/fit_moe.py [--tiles rule|table|64] [KERNELS_DIR] [GPUS_YAML]
"""
import math
import os
import re
import sys

import numpy as np
from scipy.optimize import minimize
from scipy.stats import binom

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, '..', '..')
ARCHES = {'cdna3': ['mi300x'], 'cdna4': ['mi355x']}
# moe_dtype -> (bytes per weight, with scales; math bits); mxfp8 is fitted as an extra, not one of collsim's formats.
FORMATS = {'bfloat16': (2, 16), 'fp8': (1, 8), 'fp8_block': (1 + 4 / 16384, 8), 'mxfp4': (0.5 + 1 / 32, 4),
           'mxfp8': (1 + 1 / 32, 8)}
NAMES = {'bfloat16': 'BF16', 'fp8': 'FP8', 'fp8_block': 'FP8_BLOCK', 'mxfp4': 'FP4', 'mxfp8': 'MXFP8'}
TILE_COLUMNS = 128
DECODE_TOKENS = 256
AITER_SMALL_TILE_ROWS, AITER_SMALL_BATCH, AITER_TILE_ROWS_LARGE = 32, 256, 64


def aiter_tile_rows(tokens):
    return AITER_SMALL_TILE_ROWS if tokens <= AITER_SMALL_BATCH else AITER_TILE_ROWS_LARGE


def gpu_specs(path):
    """name -> (bf16, fp8, fp4 TFLOPS, HBM bytes/s) from the catalog's gpus.yaml (flat keys of each `- name:` entry)."""
    specs, cur = {}, None
    for line in open(path):
        m = re.match(r'^- name:\s*(\S+)', line)
        if m:
            cur = specs.setdefault(m.group(1), {})
            continue
        m = re.match(r'^  (bf16_tflops|fp8_tflops|fp4_tflops|hbm_tbps):\s*([0-9.]+)', line)
        if m and cur is not None:
            cur[m.group(1)] = float(m.group(2))
    return {n: (s['bf16_tflops'], s['fp8_tflops'], s['fp4_tflops'], s['hbm_tbps'] * 1e12)
            for n, s in specs.items() if 'hbm_tbps' in s}


def pad(x, tile):
    return math.ceil(x / tile) * tile


_padded = {}


def routing(tokens, experts, top_k, tile):
    """Expected experts reached and routed rows padded to whole tiles, each token taking top_k distinct experts at random."""
    key = (tokens, experts, top_k, tile)
    if key not in _padded:
        p = top_k / experts
        x = np.arange(tokens + 1)
        pmf = binom.pmf(x, tokens, p)
        _padded[key] = (experts * (1 - (1 - p) ** tokens), experts * float(np.sum(pmf * np.ceil(x / tile) * tile)))
    return _padded[key]


def read(path):
    import csv
    with open(path) as f:
        return list(csv.DictReader(f))


def features(rows, gpu, fmt, specs, tiles):
    """Per row: each GEMM's (padded tile MACs per K element / rate in us, K, bytes / HBM in us), rows, tokens, measured us."""
    bf16, fp8, fp4, bw = specs[gpu]
    bpp, bits = FORMATS[fmt]
    rate = {16: bf16, 8: fp8, 4: fp4}[bits] * 1e12
    if rate <= 0:
        return np.zeros((0, 9))
    out = []
    for r in rows:
        if r['moe_dtype'] != fmt:
            continue
        t, h, inter, k, e = (int(r[c]) for c in ('num_tokens', 'hidden_size', 'inter_size', 'topk', 'num_experts'))
        tile = int(r['kernel_source'].rsplit('_m', 1)[1]) if tiles == 'table' else \
            64 if tiles == '64' else aiter_tile_rows(t)
        active, padded = routing(t, e, k, tile)
        routed = t * k
        x = []
        for n, kk in ((2 * inter, h), (h, inter)):
            x += [2 * padded * pad(n, TILE_COLUMNS) / rate * 1e6, kk, (active * n * kk * bpp + routed * (n + kk) * 2) / bw * 1e6]
        out.append(x + [routed, t, float(r['latency_ms']) * 1000])
    return np.array(out).reshape(-1, 9)


def model(x, p):
    memory, math_share, fill_k, fixed, row_ns = p
    up = np.maximum(x[:, 0] * (x[:, 1] + fill_k) / math_share, x[:, 2] / memory)
    down = np.maximum(x[:, 3] * (x[:, 4] + fill_k) / math_share, x[:, 5] / memory)
    return 2 * (fixed + x[:, 6] * row_ns / 1000) + up + down


def fit(data):
    def objective(p):
        if not (0.05 < p[0] <= 1 and 0.05 < p[1] <= 1 and p[2] >= 0 and p[3] >= 0 and p[4] >= 0):
            return 1e12
        return sum(np.sum(np.abs(np.log(model(x, p) / x[:, 8]))) for x in data)
    starts = [(0.8, 0.7, 256, 5, 5), (0.8, 0.5, 1000, 2, 20), (0.6, 0.9, 100, 8, 1), (0.5, 0.3, 500, 10, 0.5)]
    return min((minimize(objective, s, method='Nelder-Mead', options={'maxiter': 6000, 'xatol': 1e-4, 'fatol': 1e-4})
                for s in starts), key=lambda r: r.fun).x


def score(err):
    if len(err) == 0:
        return '     -         -   '
    return f'{100 * (math.exp(np.mean(np.abs(err))) - 1):6.1f} % {100 * (math.exp(np.mean(err)) - 1):+6.1f} %'


def main():
    argv = sys.argv[1:]
    tiles = 'rule'
    if '--tiles' in argv:
        i = argv.index('--tiles')
        tiles = argv[i + 1]
        del argv[i:i + 2]
    root = argv[0] if argv else os.path.join(ROOT, 'sim-scenarios/src/main/resources/calibration/kernels')
    yaml = argv[1] if len(argv) > 1 else os.path.join(ROOT, 'sim-topologies/src/main/resources/catalog/gpus.yaml')
    specs = gpu_specs(yaml)
    print(f'tiles: {tiles}' + (f' ({AITER_SMALL_TILE_ROWS} rows up to {AITER_SMALL_BATCH} tokens, '
                               f'{AITER_TILE_ROWS_LARGE} above)' if tiles == 'rule' else ''))
    print('arch   format     gpu      rows   all: geomean   bias   | <=256 tok: rows geomean  bias    | '
          'memory  math  fill_k fixed us row ns')
    constants = []
    for arch, gpus in ARCHES.items():
        for fmt in FORMATS:
            data = {}
            for g in gpus:
                path = os.path.join(root, 'aiter', f'{g}_moe.csv')
                if os.path.exists(path):
                    x = features(read(path), g, fmt, specs, tiles)
                    if len(x):
                        data[g] = x
            if not data:
                continue
            p = fit(list(data.values()))
            for g, x in data.items():
                err = np.log(model(x, p) / x[:, 8])
                small = x[:, 7] <= DECODE_TOKENS
                print(f'{arch:6} {fmt:10} {g:7} {len(x):5}  {score(err)}  | {int(small.sum()):5} {score(err[small])}  | '
                      f'{p[0]:6.3f} {p[1]:5.3f} {p[2]:7.0f} {p[3]:8.1f} {p[4]:6.1f}')
            constants.append(f'static final MoeConstants AITER_{arch.upper()}_{NAMES[fmt]} = new MoeConstants('
                             f'{p[0]:.3f}, {p[1]:.3f}, {p[2]:.0f}, {p[3]:.1f}, {p[4]:.1f});')
    print('\n' + '\n'.join(constants))


if __name__ == '__main__':
    main()
