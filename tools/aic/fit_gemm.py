#!/usr/bin/env python3
"""Fits collsim's dense-GEMM constants (KernelCosts.GemmConstants) to aiconfigurator's measured TensorRT-LLM GEMM
tables, per GPU architecture and weight format, minimising geomean |error| = exp(mean |ln(model/measured)|) - 1 over
every row of the architecture's tables (Ampere: A100; Hopper: H100 and H200 together; Blackwell: B200 and GB200).

  python3 tools/aic/fit_gemm.py [sim-scenarios/src/main/resources/calibration/kernels/trtllm]

The form (KernelCosts.gemmMicros, as `validate --kernels` prices the tables): launch gap (1.5 us) + fixed +
(math^p + memory^p)^(1/p), where math = 2 x M padded to 64 x N x K / (dense rate of the format x math share) and
memory = (N x K x bytes per weight + M x (N + K) x 2) / (HBM x memory share); p, the ridge exponent, says how sharply
a GEMM turns from memory- to compute-bound (p -> infinity: the roofline's max; p = 1: the sum). An 8-bit or 4-bit call
adds its activation's quantisation (the cast, and for a per-tensor scale a max pass before it), each a kernel at 0.85
of HBM, as the measured call includes it. Four constants per architecture and format, fitted by Nelder-Mead from
(0.70, 0.85, 2 us, p = 8); 'roofline' scores the shares collsim had before (0.70, 0.85, 2 us, the max). Python 3 standard library only; a run takes a few minutes.
"""
import csv
import math
import os
import sys

GPUS = {  # dense BF16, FP8 and FP4 TFLOPS, HBM bytes/s (collsim's GpuModel), architecture
    'a100_sxm': (312, 0, 0, 2.039e12, 'ampere'), 'h100_sxm': (989.4, 1978.9, 0, 3.35e12, 'hopper'),
    'h200_sxm': (989.4, 1978.9, 0, 4.8e12, 'hopper'), 'b200_sxm': (2250, 4500, 9000, 7.7e12, 'blackwell'),
    'gb200': (2500, 5000, 10000, 8.0e12, 'blackwell'),
}
FORMATS = {'bfloat16': (2, 16), 'fp8': (1, 8), 'fp8_block': (1, 8), 'nvfp4': (0.5625, 4)}
LAUNCH = 1.5
TODAY = (0.70, 0.85, 2.0, 50.0)  # the roofline collsim had: math share, memory share, fixed us, the max (p large)
START = (0.70, 0.85, 2.0, 8.0)
# No kernel streams HBM or runs the tensor cores faster than about this share of their peaks (NVIDIA's STREAM-like
# copies reach 0.90-0.93 of HBM; cuBLAS's largest GEMMs 0.8-0.9 of the dense rate): a fit that wants more is trading
# a share against the ridge exponent, so the shares are held below it.
MAX_SHARE = 0.92


def rate(gpu, bits):
    bf16, fp8, fp4, _, _ = GPUS[gpu]
    return {16: bf16, 8: fp8, 4: fp4}[bits] * 1e12


def quantize_us(m, k, fmt, bw):
    """The activation's quantisation the measured call includes: the cast (and a max pass for a per-tensor scale)."""
    if FORMATS[fmt][1] == 16:
        return 0.0
    t = LAUNCH + 2.0 + m * k * 3 / (bw * 0.85) * 1e6
    if fmt == 'fp8':
        t += LAUNCH + 2.0 + m * k * 2 / (bw * 0.85) * 1e6
    return t


def prepared(rows):
    """Each row as (math seconds at the full rate, memory seconds at full HBM, the fixed part in us, measured us)."""
    out = []
    for gpu, fmt, m, n, k, t in rows:
        bpp, bits = FORMATS[fmt]
        bw = GPUS[gpu][3]
        padded = math.ceil(m / 64) * 64
        out.append((2 * padded * n * k / rate(gpu, bits) * 1e6, (n * k * bpp + m * (n + k) * 2) / bw * 1e6,
                    LAUNCH + quantize_us(m, k, fmt, bw), t))
    return out


def logs(data, p):
    share_math, share_mem, fixed, ridge = p
    return [math.log((base + fixed + ((a / share_math) ** ridge + (b / share_mem) ** ridge) ** (1 / ridge)) / t)
            for a, b, base, t in data]


def loss(data, p):
    share_math, share_mem, fixed, ridge = p
    if not (0.05 < share_math <= MAX_SHARE and 0.05 < share_mem <= MAX_SHARE and 0 <= fixed <= 20 and 1.0 <= ridge <= 50):
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


def main():
    folder = sys.argv[1] if len(sys.argv) > 1 else 'sim-scenarios/src/main/resources/calibration/kernels/trtllm'
    tables = {}
    for gpu in GPUS:
        with open(os.path.join(folder, f'{gpu}_gemm.csv')) as f:
            for r in csv.DictReader(f):
                fmt = r['gemm_dtype']
                if fmt in FORMATS and rate(gpu, FORMATS[fmt][1]) > 0:
                    key = (GPUS[gpu][4], fmt)
                    tables.setdefault(key, []).append((gpu, fmt, int(r['m']), int(r['n']), int(r['k']), float(r['latency_ms']) * 1000))
    print('arch       format      rows   roofline: geomean   bias   fitted: geomean   bias   math  memory  fixed us  ridge p')
    for (arch, fmt), rows in tables.items():
        data = prepared(rows)
        fitted = nelder_mead(lambda p: loss(data, p), START, (0.1, 0.1, 2.0, 4.0))
        scores = []
        for p in (TODAY, fitted):
            ls = logs(data, p)
            scores.append((math.exp(sum(map(abs, ls)) / len(ls)) - 1, math.exp(sum(ls) / len(ls)) - 1))
        (g0, b0), (g1, b1) = scores
        a, b, c, d = fitted
        print(f'{arch:10} {fmt:9} {len(rows):6}   {100 * g0:15.1f}% {100 * b0:+6.1f}%   {100 * g1:14.1f}% {100 * b1:+6.1f}%   '
              f'{a:.3f}   {b:.3f}  {c:8.2f}  {d:7.2f}')


if __name__ == '__main__':
    main()
