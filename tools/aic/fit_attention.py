#!/usr/bin/env python3
"""Fits candidate attention-kernel mechanisms to aiconfigurator's measured tables (the CSV files
convert.mjs writes), per GPU, by grid search on geomean |error| = exp(mean |ln(model/measured)|) - 1.

Not collsim's model: a measurement of which mechanisms the tables support, for the kernel fit
(issue "Kernels as the GPUs run them"). Python 3 standard library only.

  python3 tools/aic/fit_attention.py [sim-scenarios/src/main/resources/calibration/kernels/trtllm]

Prompt attention (context_attention, bf16 math, no sliding window, at most 16 query heads per KV head):
  time = fixed + prep + max(tiles x tau + CTAs x c0, longest CTA) / SMs-wise makespan, where
  prep  = the tokens' q, k, v read and written once, and k, v written to the cache, at 0.85 of HBM;
  CTAs  = batch x heads x ceil(ISL / 128) query tiles; the CTA of query tile i runs i + 1 key tiles of
          128 (causal), tau = 4 x 128 x 128 x head_dim FLOPs at the SM's share of the BF16 rate x eff;
  makespan = max(all tiles' time / SMs, the longest CTA), each CTA also paying c0 to start.
Decode attention (generation_attention, same filters):
  time = fixed + ceil(batch x KV heads / SMs) x c + the cache read at HBM x eff.
"""
import csv
import math
import os
import sys

GPUS = {  # dense BF16 TFLOPS, SMs, HBM bytes/s (collsim's GpuModel)
    'a100_sxm': (312, 108, 2.039e12), 'h100_sxm': (989.4, 132, 3.35e12), 'h200_sxm': (989.4, 132, 4.8e12),
    'b200_sxm': (2250, 148, 7.7e12), 'gb200': (2500, 148, 8.0e12),
}
TILE = 128
MAX_GROUP = 16


def rows(folder, gpu, kind):
    with open(os.path.join(folder, f'{gpu}_{kind}.csv')) as f:
        for r in csv.DictReader(f):
            if r['window_size'] == '0' and int(r['num_heads']) <= MAX_GROUP * int(r['num_key_value_heads']):
                yield r


def score(pairs):
    logs = [math.log(m / x) for m, x in pairs]
    return math.exp(sum(map(abs, logs)) / len(logs)) - 1, math.exp(sum(logs) / len(logs)) - 1


def context(r, gpu, eff, c0, fixed):
    tflops, sms, bw = GPUS[gpu]
    b, s, h, kv, hd = (int(r[k]) for k in ('batch_size', 'isl', 'num_heads', 'num_key_value_heads', 'head_dim'))
    kv_bytes = 1 if r['kv_cache_dtype'] == 'fp8' else 2
    prep = b * s * ((h + 2 * kv) * hd * 2 * 2 + 2 * kv * hd * kv_bytes) / (bw * 0.85)
    n = math.ceil(s / TILE)
    tau = 4 * TILE * TILE * hd / (tflops * 1e12 / sms * eff)
    work = b * h * (n * (n + 1) / 2) * tau + b * h * n * c0 * 1e-6
    return fixed + (prep + max(work / sms, n * tau + c0 * 1e-6)) * 1e6


def generation(r, gpu, eff, c, fixed):
    _, sms, bw = GPUS[gpu]
    b, s, kv, hd = (int(r[k]) for k in ('batch_size', 'step', 'num_key_value_heads', 'head_dim'))
    kv_bytes = 1 if r['kv_cache_dtype'] == 'fp8' else 2
    return fixed + math.ceil(b * kv / sms) * c + b * s * 2 * kv * hd * kv_bytes / (bw * eff) * 1e6


def best(data, gpu, model, grid):
    found = None
    for p in grid:
        g, bias = score([(model(r, gpu, *p), float(r['latency_ms']) * 1000) for r in data])
        if found is None or g < found[0]:
            found = (g, bias, p)
    return found


def main():
    folder = sys.argv[1] if len(sys.argv) > 1 else 'sim-scenarios/src/main/resources/calibration/kernels/trtllm'
    ctx_grid = [(e, c0, f) for e in (0.3, 0.4, 0.5, 0.6, 0.7, 0.8) for c0 in (0, 1, 2, 4, 6, 8) for f in (6, 9, 12, 15)]
    gen_grid = [(e, c, f) for e in (0.6, 0.7, 0.8, 0.85, 0.9, 0.95) for c in (0, 0.5, 1, 1.5, 2, 3) for f in (3, 5, 7, 9)]
    print('kernel               gpu       rows  geomean  bias    eff  per-CTA us  fixed us')
    for kind, model, grid in (('context_attention', context, ctx_grid), ('generation_attention', generation, gen_grid)):
        for gpu in GPUS:
            data = [r for r in rows(folder, gpu, kind) if kind == 'generation_attention' or r['attn_dtype'] == 'bfloat16']
            g, bias, (eff, c, fixed) = best(data, gpu, model, grid)
            print(f'{kind:20} {gpu:9} {len(data):5}  {100 * g:6.1f}% {100 * bias:+6.1f}%  {eff:.2f}  {c:10.2f}  {fixed:8.1f}')


if __name__ == '__main__':
    main()
