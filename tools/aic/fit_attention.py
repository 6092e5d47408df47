#!/usr/bin/env python3
"""Fits the step model's attention kernels (collsim's KernelCosts.promptAttentionMicros and
decodeAttentionMicros, the same formulas) to aiconfigurator's measured tables, one set of constants per
engine and GPU architecture (Ampere: A100; Hopper: H100, H200; Blackwell: B200, GB200; vLLM's and
SGLang's tables cover H100 and B200 only, and have no MLA), by minimising mean |ln(model / measured)|
with Nelder-Mead from a few starts. Prints the constants and, per GPU,
geomean |error| = exp(mean |ln(model/measured)|) - 1 and the bias exp(mean ln(model/measured)) - 1.

  python3 tools/aic/fit_attention.py [sim-scenarios/src/main/resources/calibration/kernels]

Needs numpy and scipy (Debian: python3-numpy python3-scipy). Every row is timed as a step times the
kernel in a CUDA graph: the graph's launch gap (1.5 us) plus the kernel.

Prompt attention (context_attention with bf16 math, no window, at most 16 query heads per KV head; and
context_mla, DeepSeek-V3's 192-wide keys and 128-wide values uncompressed, a KV head per query head):
  kernel = fixed + one pass over q, k, v, the output (and, TensorRT-LLM's, the cache write) at 0.85 of HBM
           + makespan of the CTAs over the SMs;
  a CTA per (sequence, query head, 128-query tile); the CTA of tile i runs i + 1 key tiles (causal),
  tau = 2 x 128 x 128 x (qk + v dims) FLOPs each at the SM's share of the dense BF16 rate x efficiency,
  and pays cta_us to start; makespan = max(all CTAs' work / SMs, the longest CTA).
Decode attention (generation_attention, same filters; generation_mla over the 576-wide latent cache,
a CTA per sequence and 64 query heads):
  kernel = fixed + waves x wave_us + max(cache bytes / (HBM x memory), QK and PV FLOPs / (tensor rate x math),
                                         tokens per split x token_us),
  waves = ceil(sequences x KV heads (MLA: 64-head blocks) / SMs), the tensor rate of the cache's type;
  a (sequence, KV head)'s context is split over CTAs as the engine's kernel splits it (kv_splits), and each CTA
  loops over its split's tokens, token_us a token, however few CTAs share HBM (MLA: not fitted, token_us 0);
  grouped-query decode is fitted apart for each kernel the engines dispatch: grouped heads (GQA, MQA) or one query
  head per KV head (MHA; TensorRT-LLM runs its masked-MHA kernel there, XQA only for groups), over a BF16 or an FP8
  cache (an FP8 cache runs other kernels: TensorRT-LLM's Hopper XQA in GMMA, FlashInfer's and FlashAttention-3's FP8
  paths); where a table has no FP8-cache rows (A100) the BF16 set stands for it. math is held at 1 % of the tensor
  rate or more: below it the fit trades math against memory on rows where neither binds.
"""
import csv
import math
import os
import sys

import numpy as np
from scipy.optimize import minimize

GPUS = {  # dense BF16 TFLOPS, SMs, HBM bytes/s (collsim's GpuModel)
    'a100_sxm': (312, 108, 2.039e12), 'h100_sxm': (989.4, 132, 3.35e12), 'h200_sxm': (989.4, 132, 4.8e12),
    'b200_sxm': (2250, 148, 7.7e12), 'gb200': (2500, 148, 8.0e12),
}
ARCHES = {'ampere': ['a100_sxm'], 'hopper': ['h100_sxm', 'h200_sxm'], 'blackwell': ['b200_sxm', 'gb200']}
LAUNCH_US = 1.5
TILE = 128
MAX_GROUP = 16
STREAM = 0.85
MLA_QK, MLA_V, MLA_LATENT, MLA_ROPE = 192, 128, 512, 64
XQA_TOKENS_PER_BLOCK, XQA_TARGET_WAVES = 128, 8  # TensorRT-LLM's kMinHistoryTokensPerBlock, kTargetWaveFactor
KV_STEP = 128  # tokens a decode kernel's CTA takes per step of its loop
# Engines whose decode kernels' split of the context is read from their source (TensorRT-LLM's XQA, masked MHA and
# trtllm-gen) and whose tables show a CTA's loop over its split; FlashAttention's and FlashInfer's tables (vLLM,
# SGLang) do not (fitting token_us there gains under half a point), so their token_us is 0.
SPLIT_LOOP_FITTED = {'trtllm'}
# Engines whose attention op writes the new keys and values to the cache itself (collsim's FUSES_ROPE_AND_CACHE_WRITE).
WRITES_CACHE = {'trtllm'}


def rows(folder, gpu, kind):
    path = os.path.join(folder, f'{gpu}_{kind}.csv')
    if not os.path.exists(path):
        return
    with open(path) as f:
        for r in csv.DictReader(f):
            if 'mla' in kind:
                yield r
            elif r['window_size'] == '0' and int(r['num_heads']) <= MAX_GROUP * int(r['num_key_value_heads']) \
                    and r.get('attn_dtype', 'bfloat16') == 'bfloat16':
                yield r


def prompt_features(gpu, r, mla, engine):
    writes_cache = engine in WRITES_CACHE
    tflops, sms, bw = GPUS[gpu]
    b, s, h = int(r['batch_size']), int(r['isl']), int(r['num_heads'])
    kv, qk, v = (h, MLA_QK, MLA_V) if mla else (int(r['num_key_value_heads']), int(r['head_dim']), int(r['head_dim']))
    kv_bytes = 1 if r['kv_cache_dtype'] == 'fp8' else 2
    n = math.ceil(s / TILE)
    tile_us = 2 * TILE * TILE * (qk + v) / (tflops * 1e12 / sms) * 1e6
    stream_us = b * s * ((h * qk + kv * (qk + v) + h * v) * 2 + (kv * (qk + v) * kv_bytes if writes_cache else 0)) / (bw * STREAM) * 1e6
    return tile_us, b * h * n * (n + 1) / 2, b * h * n, n, sms, stream_us, float(r['latency_ms']) * 1000


def prompt_model(x, p):
    eff, cta_us, fixed = p
    tau = x[:, 0] / eff
    makespan = np.maximum((x[:, 1] * tau + x[:, 2] * cta_us) / x[:, 4], x[:, 3] * tau + cta_us)
    return LAUNCH_US + fixed + x[:, 5] + makespan


def kv_splits(engine, gpu, ctas, context, grouped):
    """CTAs a (sequence, KV head)'s context is split over (collsim's KernelCosts.kvSplits). TensorRT-LLM's XQA
    (grouped heads before Blackwell) takes decoderXQAImplCommon.h's computeMultiBlockCount: a block per 128 tokens,
    at most round(sqrt(8 x blocks)), cut back to 8 waves over the SMs. The others (TensorRT-LLM's trtllm-gen FMHA
    and masked MHA, FlashAttention, FlashInfer) split to fill the SMs, each split at least two 128-token KV steps
    (trtllm-gen's fmhaKernels.h)."""
    sms = GPUS[gpu][1]
    if engine == 'trtllm' and gpu not in ARCHES['blackwell'] and grouped:
        blocks = int(context // XQA_TOKENS_PER_BLOCK)
        blocks = max(1, min(blocks, round(math.sqrt(blocks * 8.0))))
        waves = ctas * blocks / sms
        if waves > XQA_TARGET_WAVES:
            blocks = math.floor(blocks / (waves / XQA_TARGET_WAVES))
        return max(blocks, 1)
    return max(1, min(math.floor(sms / ctas), math.ceil(context / (2 * KV_STEP))))


def decode_features(gpu, r, mla, engine):
    tflops, sms, bw = GPUS[gpu]
    b, s, h = int(r['batch_size']), int(r['step']), int(r['num_heads'])
    kv_bytes = 1 if r['kv_cache_dtype'] == 'fp8' else 2
    if mla:
        cache, flops, ctas = b * s * (MLA_LATENT + MLA_ROPE) * kv_bytes, 2.0 * b * s * h * (2 * MLA_LATENT + MLA_ROPE), b * math.ceil(h / 64)
        per_split = 0
    else:
        kv, d = int(r['num_key_value_heads']), int(r['head_dim'])
        cache, flops, ctas = b * s * 2 * kv * d * kv_bytes, 4.0 * b * s * h * d, b * kv
        per_split = s / kv_splits(engine, gpu, ctas, s, h > kv)
    rate = tflops * (2 if kv_bytes == 1 else 1) * 1e12
    return cache / bw * 1e6, flops / rate * 1e6, math.ceil(ctas / sms), per_split, float(r['latency_ms']) * 1000


def decode_model(x, p):
    memory, wave_us, math_eff, fixed, token_us = p if len(p) == 5 else (*p, 0)
    return LAUNCH_US + fixed + x[:, 2] * wave_us + np.maximum(np.maximum(x[:, 0] / memory, x[:, 1] / math_eff), x[:, 3] * token_us)


# The decode kernels fitted apart: (name, rows it takes).
DECODE_KERNELS = (
    ('gqa bf16', lambda r: r['num_heads'] != r['num_key_value_heads'] and r['kv_cache_dtype'] == 'bfloat16'),
    ('gqa fp8', lambda r: r['num_heads'] != r['num_key_value_heads'] and r['kv_cache_dtype'] == 'fp8'),
    ('mha bf16', lambda r: r['num_heads'] == r['num_key_value_heads'] and r['kv_cache_dtype'] == 'bfloat16'),
    ('mha fp8', lambda r: r['num_heads'] == r['num_key_value_heads'] and r['kv_cache_dtype'] == 'fp8'),
)


def fit(data, model, starts, bounds):
    def objective(p):
        if any(v < lo or v > hi for v, (lo, hi) in zip(p, bounds)):
            return 1e12
        return sum(np.sum(np.abs(np.log(model(x, p) / x[:, -1]))) for x in data)
    found = [minimize(objective, s, method='Nelder-Mead', options={'maxiter': 6000, 'xatol': 1e-5, 'fatol': 1e-7}) for s in starts]
    return min(found, key=lambda r: r.fun).x


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else 'sim-scenarios/src/main/resources/calibration/kernels'
    kinds = (
        ('prompt', ('context_attention', 'context_mla'), prompt_features, prompt_model,
         [(0.6, 4, 10), (0.4, 1, 6)], [(0.05, 1), (0, 50), (0, 100)], 'efficiency cta_us fixed_us'),
        ('decode', ('generation_attention',), decode_features, decode_model,
         [(0.8, 1.5, 0.03, 6, 0.016), (0.9, 1, 0.1, 4, 0.005)], [(0.1, 0.95), (0, 50), (0.01, 1), (0, 100), (0, 1)],
         'memory wave_us math fixed_us token_us'),
        ('decode_mla', ('generation_mla',), decode_features, decode_model,
         [(0.8, 5, 0.3, 6), (0.9, 2, 0.1, 4)], [(0.1, 0.95), (0, 50), (0.001, 1), (0, 100)], 'memory wave_us math fixed_us'),
    )
    for engine in ('trtllm', 'vllm', 'sglang'):
        folder = os.path.join(root, engine)
        for name, tables, features, model, starts, bounds, labels in kinds:
            for arch, gpus in ARCHES.items():
                if name == 'decode_mla' and arch == 'ampere':
                    continue  # TensorRT-LLM has no absorbed MLA decode kernel on Ampere; its table times another path
                kernels = DECODE_KERNELS if name == 'decode' else (('', lambda r: True),)
                for kernel, takes in kernels:
                    data = {(g, t): np.array([features(g, r, 'mla' in t, engine) for r in rows(folder, g, t) if takes(r)])
                            for g in gpus for t in tables}
                    data = {k: v for k, v in data.items() if len(v)}
                    if not data:
                        continue
                    fitted = (starts, bounds, labels)
                    if name == 'decode' and engine not in SPLIT_LOOP_FITTED:
                        fitted = ([x[:4] for x in starts], bounds[:4], labels.rsplit(' ', 1)[0])
                    p = fit(list(data.values()), model, *fitted[:2])
                    print(f'{engine} {name} {kernel} {arch}: '.replace('  ', ' ') + ', '.join(f'{l} {v:.3f}' for l, v in zip(fitted[2].split(), p)))
                    for (g, t), x in data.items():
                        logs = np.log(model(x, p) / x[:, -1])
                        print(f'  {t:21} {g:9} {len(x):5} rows  geomean {100 * (math.exp(np.mean(np.abs(logs))) - 1):5.1f} %'
                              f'  bias {100 * (math.exp(np.mean(logs)) - 1):+5.1f} %')


if __name__ == '__main__':
    main()
