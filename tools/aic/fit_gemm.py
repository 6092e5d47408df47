#!/usr/bin/env python3
"""Fits the step model's GEMM form to aiconfigurator's measured GEMM tables, per GPU and weight format, by grid
search on geomean |error| = exp(mean |ln(model/measured)|) - 1: how far constants per GPU take the form collsim
prices GEMMs with today (KernelCosts.gemmMicros, as `validate --kernels` prices the tables).

  python3 tools/aic/fit_gemm.py [sim-scenarios/src/main/resources/calibration/kernels/trtllm]

The form: launch gap (1.5 us) + fixed + max(2 x M padded to 64 x N x K / (dense rate x math),
(N x K x bytes per weight + M x (N + K) x 2) / (HBM x memory)); an 8-bit call adds its activation's
quantisation (the cast, and for a per-tensor scale a max pass before it), each a kernel at 0.85 of HBM.
Python 3 standard library only.
"""
import csv
import math
import os
import sys

GPUS = {  # dense BF16 and FP8 TFLOPS, HBM bytes/s (collsim's GpuModel)
    'a100_sxm': (312, 0, 2.039e12), 'h100_sxm': (989.4, 1978.9, 3.35e12), 'h200_sxm': (989.4, 1978.9, 4.8e12),
    'b200_sxm': (2250, 4500, 7.7e12), 'gb200': (2500, 5000, 8.0e12),
}
FORMATS = {'bfloat16': (2, 16), 'fp8': (1, 8), 'fp8_block': (1, 8)}
LAUNCH = 1.5
TODAY = (0.70, 0.85, 2.0)  # KernelCosts.GEMM_MATH, GEMM_MEMORY, FIXED_US


def model(m, n, k, fmt, gpu, math_eff, mem_eff, fixed):
    bf16, fp8, bw = GPUS[gpu]
    bpp, bits = FORMATS[fmt]
    rate = (fp8 if bits == 8 else bf16) * 1e12
    rows = math.ceil(m / 64) * 64
    t = LAUNCH + fixed + max(2 * rows * n * k / (rate * math_eff), (n * k * bpp + m * (n + k) * 2) / (bw * mem_eff)) * 1e6
    if bits == 8:
        t += LAUNCH + 2.0 + m * k * 3 / (bw * 0.85) * 1e6
        if fmt == 'fp8':
            t += LAUNCH + 2.0 + m * k * 2 / (bw * 0.85) * 1e6
    return t


def score(data, gpu, p):
    logs = [math.log(model(m, n, k, f, gpu, *p) / t) for m, n, k, f, t in data]
    return math.exp(sum(map(abs, logs)) / len(logs)) - 1, math.exp(sum(logs) / len(logs)) - 1


def main():
    folder = sys.argv[1] if len(sys.argv) > 1 else 'sim-scenarios/src/main/resources/calibration/kernels/trtllm'
    grid = [(a, b, c) for a in (0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85) for b in (0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9)
            for c in (1, 2, 3, 4, 6)]
    print('gpu       format     rows   today: geomean   bias   fitted: geomean   bias   math  memory  fixed us')
    for gpu in GPUS:
        with open(os.path.join(folder, f'{gpu}_gemm.csv')) as f:
            table = [(int(r['m']), int(r['n']), int(r['k']), r['gemm_dtype'], float(r['latency_ms']) * 1000)
                     for r in csv.DictReader(f) if r['gemm_dtype'] in FORMATS]
        for fmt in FORMATS:
            data = [row for row in table if row[3] == fmt]
            if not data or (FORMATS[fmt][1] == 8 and GPUS[gpu][1] == 0):
                continue
            today = score(data, gpu, TODAY)
            best = min(((score(data, gpu, p), p) for p in grid), key=lambda x: x[0][0])
            (g, bias), (a, b, c) = best
            print(f'{gpu:9} {fmt:9} {len(data):5}   {100 * today[0]:13.1f}% {100 * today[1]:+6.1f}%   '
                  f'{100 * g:14.1f}% {100 * bias:+6.1f}%   {a:.2f}    {b:.2f}  {c:8.1f}')


if __name__ == '__main__':
    main()
