#!/usr/bin/env python3
"""Fits collsim's dense-GEMM constants (KernelCosts.GemmConstants) to aiconfigurator's measured TensorRT-LLM GEMM
tables, per GPU architecture and weight format, minimising geomean |error| = exp(mean |ln(model/measured)|) - 1 over
every row of the architecture's tables (Ampere: A100; Hopper: H100 and H200 together; Blackwell: B200 and GB200).

  python3 tools/aic/fit_gemm.py [--formats F,F] [--tile FORMAT=ROWSxCOLUMNS] [TABLES_FOLDER ...]

  default: the TensorRT-LLM tables (sim-scenarios/src/main/resources/calibration/kernels/trtllm), every format;
  vLLM's and SGLang's NVFP4 GEMM (KernelCosts.GemmConstants.BLACKWELL_FP4_FLASHINFER):
  python3 tools/aic/fit_gemm.py --formats nvfp4 --tile nvfp4=128x128 sim-scenarios/src/main/resources/calibration/kernels/{vllm,sglang}

The form (KernelCosts.gemmMicros, as `validate --kernels` prices the tables): launch gap (1.5 us) + fixed +
(math^p + memory^p + tiles^p)^(1/p), where math = 2 x M padded to 64 x N x K / (dense rate of the format x math share),
memory = (N x K x bytes per weight + M x (N + K) x 2) / (HBM x memory share), and tiles, for a kernel that gives each
output tile's whole K loop to one CTA (TensorRT-LLM's block-scaled FP8 and NVFP4 GEMMs, which do not split K as cuBLAS
does), = waves of CTAs over the SMs x one tile's K loop at an SM's share of the rate (TILES; the tile the measured
single-tile rows fit best among the kernels' 64 x 128, 128 x 128 and 128 x 256); p, the ridge exponent, says how sharply
a GEMM turns from one bound to another (p -> infinity: the roofline's max; p = 1: the sum). An 8-bit or 4-bit call adds
its activation's quantisation (the cast, and for a per-tensor scale a max pass before it), each a kernel at 0.85 of HBM,
as the measured call includes it. Four constants per architecture and format (five with the tile's share), fitted by
Nelder-Mead from (0.70, 0.85, 2 us, p = 8, tile share 0.5) and
(0.60, 0.80, 1 us, p = 3, 0.3), the better kept; 'roofline' scores the shares collsim had before (0.70,
0.85, 2 us, the max, no tile bound). Python 3 standard library only; a run takes a few minutes.
"""
import csv
import math
import os
import sys

GPUS = {  # dense BF16, FP8 and FP4 TFLOPS, HBM bytes/s, SMs (collsim's GpuModel), architecture
    'a100_sxm': (312, 0, 0, 2.039e12, 108, 'ampere'), 'h100_sxm': (989.4, 1978.9, 0, 3.35e12, 132, 'hopper'),
    'h200_sxm': (989.4, 1978.9, 0, 4.8e12, 132, 'hopper'), 'b200_sxm': (2250, 4500, 9000, 7.7e12, 148, 'blackwell'),
    'gb200': (2500, 5000, 10000, 8.0e12, 148, 'blackwell'),
}
FORMATS = {'bfloat16': (2, 16), 'fp8': (1, 8), 'fp8_block': (1, 8), 'nvfp4': (0.5625, 4)}
# The output tile (rows x columns) of the kernels that run each tile's K loop in one CTA; other formats' GEMMs (cuBLAS)
# split K over idle SMs, and have no such bound.
TILES = {'fp8_block': (64, 128), 'nvfp4': (128, 256)}
LAUNCH = 1.5
TODAY = (0.70, 0.85, 2.0, 50.0, 0.0)  # the roofline collsim had: math share, memory share, fixed us, the max (p large)
# Nelder-Mead finds a local minimum: it starts from each of these and keeps the best.
STARTS = ((0.70, 0.85, 2.0, 8.0, 0.5), (0.60, 0.80, 1.0, 3.0, 0.3))
# No kernel streams HBM or runs the tensor cores faster than about this share of their peaks (NVIDIA's STREAM-like
# copies reach 0.90-0.93 of HBM; cuBLAS's largest GEMMs 0.8-0.9 of the dense rate): a fit that wants more is trading
# a share against the ridge exponent, so the shares are held below it.
MAX_SHARE = 0.92


def rate(gpu, bits):
    bf16, fp8, fp4 = GPUS[gpu][:3]
    return {16: bf16, 8: fp8, 4: fp4}[bits] * 1e12


def quantize_us(m, k, fmt, bw):
    """The activation's quantisation the measured call includes: the cast (and a max pass for a per-tensor scale)."""
    if FORMATS[fmt][1] == 16:
        return 0.0
    t = LAUNCH + 2.0 + m * k * 3 / (bw * 0.85) * 1e6
    if fmt == 'fp8':
        t += LAUNCH + 2.0 + m * k * 2 / (bw * 0.85) * 1e6
    return t


def prepared(rows, tile):
    """Each row as (math us at the full rate, memory us at full HBM, one SM's tile waves us at its full rate or 0 where
    the kernel splits K, the fixed part in us, measured us)."""
    out = []
    for gpu, fmt, m, n, k, t in rows:
        bpp, bits = FORMATS[fmt]
        bw, sms = GPUS[gpu][3:5]
        padded = math.ceil(m / 64) * 64
        waves = 0
        if tile:
            waves = math.ceil(math.ceil(m / tile[0]) * math.ceil(n / tile[1]) / sms) * 2 * tile[0] * tile[1] * k / (rate(gpu, bits) / sms) * 1e6
        out.append((2 * padded * n * k / rate(gpu, bits) * 1e6, (n * k * bpp + m * (n + k) * 2) / bw * 1e6, waves,
                    LAUNCH + quantize_us(m, k, fmt, bw), t))
    return out


def logs(data, p):
    share_math, share_mem, fixed, ridge, share_tile = p
    return [math.log((base + fixed + ((a / share_math) ** ridge + (b / share_mem) ** ridge
                                      + ((c / share_tile) ** ridge if c else 0)) ** (1 / ridge)) / t)
            for a, b, c, base, t in data]


def loss(data, p):
    share_math, share_mem, fixed, ridge, share_tile = p
    if not (0.05 < share_math <= MAX_SHARE and 0.05 < share_mem <= MAX_SHARE and 0 <= fixed <= 20 and 1.0 <= ridge <= 50
            and 0.05 < share_tile <= 1.0):
        return 1e9
    return sum(map(abs, logs(data, p))) / len(data)


def nelder_mead(f, start, steps, iterations=600):
    points = [list(start)] + [[x + (steps[i] if j == i else 0) for j, x in enumerate(start)] for i in range(len(start))]
    values = [f(p) for p in points]
    for _ in range(iterations):
        order = sorted(range(len(points)), key=lambda i: values[i])
        points, values = [points[i] for i in order], [values[i] for i in order]
        centre = [sum(p[j] for p in points[:-1]) / (len(points) - 1) for j in range(len(start))]
        worst = points[-1]
        reflected = [c + (c - w) for c, w in zip(centre, worst)]
        fr = f(reflected)
        if fr < values[0]:
            expanded = [c + 2 * (c - w) for c, w in zip(centre, worst)]
            fe = f(expanded)
            points[-1], values[-1] = (expanded, fe) if fe < fr else (reflected, fr)
        elif fr < values[-2]:
            points[-1], values[-1] = reflected, fr
        else:
            contracted = [c + 0.5 * (w - c) for c, w in zip(centre, worst)]
            fc = f(contracted)
            if fc < values[-1]:
                points[-1], values[-1] = contracted, fc
            else:
                points = [points[0]] + [[b + 0.5 * (x - b) for x, b in zip(p, points[0])] for p in points[1:]]
                values = [values[0]] + [f(p) for p in points[1:]]
    best = min(range(len(points)), key=lambda i: values[i])
    return points[best]


def read_tables(folders, gpus, arch_of, takes):
    """Every <gpu>_gemm.csv row in the folders that takes(gpu, format) keeps, as (gpu, format, m, n, k, us), by (architecture, format)."""
    tables = {}
    for folder in folders:
        for gpu in gpus:
            path = os.path.join(folder, f'{gpu}_gemm.csv')
            if not os.path.exists(path):
                continue
            with open(path) as f:
                for r in csv.DictReader(f):
                    fmt = r['gemm_dtype']
                    if takes(gpu, fmt):
                        tables.setdefault((arch_of(gpu), fmt), []).append(
                            (gpu, fmt, int(r['m']), int(r['n']), int(r['k']), float(r['latency_ms']) * 1000))
    return tables


def main():
    args, folders, formats, tiles = sys.argv[1:], [], None, dict(TILES)
    while args:
        arg = args.pop(0)
        if arg == '--formats':
            formats = set(args.pop(0).split(','))
        elif arg == '--tile':
            fmt, size = args.pop(0).split('=')
            tiles[fmt] = tuple(int(x) for x in size.split('x'))
        else:
            folders.append(arg)
    tables = read_tables(folders or ['sim-scenarios/src/main/resources/calibration/kernels/trtllm'], GPUS, lambda gpu: GPUS[gpu][5],
                         lambda gpu, fmt: fmt in FORMATS and (formats is None or fmt in formats) and rate(gpu, FORMATS[fmt][1]) > 0)
    print('arch       format      rows   roofline: geomean   bias   fitted: geomean   bias   math  memory  fixed us  ridge p  tile  share')
    for (arch, fmt), rows in tables.items():
        tile = tiles.get(fmt)
        data = prepared(rows, tile)
        if tile:
            fits = [nelder_mead(lambda p: loss(data, p), start, (0.1, 0.1, 2.0, 4.0, 0.2)) for start in STARTS]
        else:  # no tile bound: the four constants alone
            fits = [nelder_mead(lambda p: loss(data, p + [1.0]), start[:4], (0.1, 0.1, 2.0, 4.0)) + [0.0] for start in STARTS]
        fitted = min(fits, key=lambda p: loss(data, p[:4] + [p[4] or 1.0]))
        scores = []
        for d, p in ((prepared(rows, None), TODAY), (data, fitted)):
            ls = logs(d, list(p[:4]) + [p[4] or 1.0])
            scores.append((math.exp(sum(map(abs, ls)) / len(ls)) - 1, math.exp(sum(ls) / len(ls)) - 1))
        (g0, b0), (g1, b1) = scores
        a, b, c, d, e = fitted
        size = f'{tile[0]}x{tile[1]}' if tile else '-'
        print(f'{arch:10} {fmt:9} {len(rows):6}   {100 * g0:15.1f}% {100 * b0:+6.1f}%   {100 * g1:14.1f}% {100 * b1:+6.1f}%   '
              f'{a:.3f}   {b:.3f}  {c:8.2f}  {d:7.2f}  {size:>7}  {e:.3f}')


if __name__ == '__main__':
    main()
