#!/usr/bin/env python3
"""Turns AMD AITER's tuned fused-MoE tables (ROCm/aiter, MIT license) into collsim's MoE kernel CSV files.

    python3 tools/aiter/convert_moe.py AITER_DIR [OUTDIR] [--ref REF] [--dry-run]

AITER_DIR is a checkout or a bare git dir of https://github.com/ROCm/aiter (read with `git show REF:path`, REF default
HEAD); OUTDIR defaults to sim-scenarios/src/main/resources/calibration/kernels/aiter. Writes OUTDIR/mi300x_moe.csv
(cu_num 304, gfx942) and OUTDIR/mi355x_moe.csv (cu_num 256, gfx950) with the header of the aiconfigurator MoE files
(kernels/vllm/*_moe.csv), so tools/aiter/fit_moe.py reads them as tools/aic/fit_moe.py reads those. Stdlib only.

Source: every `aiter/configs/**/*tuned_fmoe*.csv` that is not an `untuned` file (tuned_fmoe.csv and the per-model
tables under aiter/configs/model_configs/). What one row is (csrc/ck_gemm_moe_2stages_codegen/gemm_moe_tune.py): the
tuner's fastest kernel choice for one shape on one GPU, `us` = us1 + us2, the device time of the fused MoE's stage-1
kernel (gate/up grouped GEMM with the activation, and the stage-2 input quantisation, fused) plus the stage-2 kernel
(down grouped GEMM, weighted by the routing weights), each the mean kernel time of 101 runs read from the torch
profiler (aiter/test_common.py perftest: device time only, no launch gaps, the arguments rotated through enough copies
to overflow the cache, so weights come from HBM). A 1-stage kernel (run_1stage = 1) has us2 = 0. Not in `us`: top-k
and the routing sort (moe_sorting; the tuner sorts once, outside the timed calls), the input quantisation (inputs are
handed in already quantised) -- except that, for a fair pick between kernel families, newer tuner versions add a
separately timed moe_sorting to non-`flat` candidates (tables with a `flat` column), a per-1x128 input quantisation to
non-`xbf16` candidates (tables with an `xbf16` column) and an FP4/FP8 activation quant+sort to some 2-stage
candidates. Routing: `torch.randn` scores, top-k by fused_topk (each token picks `topk` distinct experts uniformly at
random) unless TUNE_MOE_EXPERT_BALANCE=true was set (not recorded); `token` = tokens entering the layer, routed rows =
token x topk; `expert` and `inter_dim` are as on the measured GPU (e.g. DeepSeek-V3 at TP8: 257 experts = 256 routed +
the fused shared expert, topk 9, inter_dim 256; at EP8: 33 experts, inter_dim 2048).

Rules:
  - cu_num 304 -> mi300x, 256 -> mi355x; other cu_num (80, a cut-down part) are skipped. Where a table has a `gfx`
    column it must agree (gfx942 / gfx950).
  - Rows with us <= 0 (failed or never-tuned shapes) are dropped, and rows with doweight_stage1 = 1 (the routing
    weight applied to stage 1's input, Llama-4 style; vLLM and SGLang apply it in stage 2 for the other MoE models,
    and AITER's tuner measures the two as separate variants): 16 source rows at cu_num 304/256 at this commit, all in
    a8w8_blockscale_tuned_fmoe_ds_v3.csv, and 11 of them among the copies below.
  - Copied rows are dropped: within one table, shape and variant (all key columns but `token`), rows of different
    `token` whose us1, us2 and us are identical to 4 decimals are copies of one measurement, not measurements (only
    a8w8_blockscale_tuned_fmoe_ds_v3.csv has them: e.g. 4096/384/128 experts/top-8 takes 600.1294 us for every
    token count from 1024 to 32768); every row of such a group is dropped, as which one was measured is unknown.
  - Columns: moe_dtype (below); kernel_source = `aiter_1stage_<family>_m<block_m>` for a 1-stage kernel, else
    `aiter_<family1>_<family2>_m<block_m>`, family = asm (`_ZN5aiter...` assembly), ck (moe_ck2stages), cktile,
    flydsl or opus; distribution = `random` (the tuner's default routing above); num_tokens = token; hidden_size =
    model_dim; inter_size = inter_dim (already the per-GPU slice); topk; num_experts = expert; moe_tp_size =
    moe_ep_size = 1 (the tables do not say which split produced a shape; the shape is what one GPU runs);
    latency_ms = us / 1000, 4 significant digits.
  - moe_dtype from (q_dtype_a, q_dtype_w, q_type), the names of the aiconfigurator files where one fits:
    bf16/bf16 No -> bfloat16; fp8/fp8 per_1x128 -> fp8_block (128x128-block weight scales, 1x128 activation groups);
    fp8/fp8 per_Token or per_Tensor -> fp8 (per_Token is AMD's "PTPC": per-token activation and per-channel weight
    scales); fp8/fp8 per_1x32 -> mxfp8; fp4/fp4 per_1x32 -> mxfp4 (MXFP4 weights and activations); bf16/fp4 ->
    w4a16_mxfp4; fp8/fp4 -> w4a8_mxfp4_mxfp8; bf16/int4 -> int4_wo. float8_e4m3fnuz (gfx942) and float8_e4m3fn
    (gfx950) are both fp8. Anything else is skipped and counted.
  - Dropped columns: act_type, dtype (output, always bfloat16), use_g1u1 (always 1: gate and up fused, stage-1 N =
    2 x inter_dim), doweight_stage1, ksplit, us1, us2, err1/err2, kernel names, run_1stage, tflops, bw, xbf16, flat,
    _tag. Two rows that would be written with the same key (every column but latency) are resolved by preferring
    act_type Silu, then the lower us (the row AITER's tuner would have picked); the number resolved is printed.
Output rows are sorted by moe_dtype, hidden_size, inter_size, num_experts, topk, num_tokens, kernel_source.
"""
import collections
import csv
import io
import os
import subprocess
import sys

HEADER = ['moe_dtype', 'kernel_source', 'distribution', 'num_tokens', 'hidden_size', 'inter_size', 'topk', 'num_experts',
          'moe_tp_size', 'moe_ep_size', 'latency_ms']
GPUS = {'304': ('mi300x', 'gfx942'), '256': ('mi355x', 'gfx950')}
DTYPES = {  # (activation, weight, quant type) -> moe_dtype
    ('bfloat16', 'bfloat16', 'No'): 'bfloat16',
    ('fp8', 'fp8', 'per_1x128'): 'fp8_block',
    ('fp8', 'fp8', 'per_Token'): 'fp8',
    ('fp8', 'fp8', 'per_Tensor'): 'fp8',
    ('fp8', 'fp8', 'per_1x32'): 'mxfp8',
    ('fp4', 'fp4', 'per_1x32'): 'mxfp4',
    ('bfloat16', 'fp4', 'per_1x32'): 'w4a16_mxfp4',
    ('fp8', 'fp4', 'per_1x32'): 'w4a8_mxfp4_mxfp8',
    ('bfloat16', 'int4', 'per_1x32'): 'int4_wo',
}
SHAPE = ('cu_num', 'model_dim', 'inter_dim', 'expert', 'topk', 'act_type', 'dtype', 'q_dtype_a', 'q_dtype_w', 'q_type',
         'use_g1u1')


def git(repo, *args):
    return subprocess.run(['git', '-C', repo, *args], check=True, capture_output=True, text=True).stdout


def element(torch_dtype):
    t = torch_dtype.replace('torch.', '')
    if t.startswith('float8'):
        return 'fp8'
    if t.startswith('float4'):
        return 'fp4'
    return t


def family(name):
    if name.startswith('_ZN5aiter'):
        return 'asm'
    if name.startswith('moe_ck2stages'):
        return 'ck'
    if 'cktile' in name:
        return 'cktile'
    for f in ('flydsl', 'opus'):
        if name.startswith(f):
            return f
    raise ValueError(f'unknown kernel family: {name}')


def sig(x, digits=4):
    return float(f'{x:.{digits - 1}e}')


def fmt(x):
    s = repr(x)
    return s[:-2] if s.endswith('.0') else s


def main():
    args = [a for a in sys.argv[1:] if not a.startswith('--')]
    ref = sys.argv[sys.argv.index('--ref') + 1] if '--ref' in sys.argv else 'HEAD'
    if '--ref' in sys.argv:
        args.remove(ref)
    dry = '--dry-run' in sys.argv
    if not args:
        sys.exit(__doc__)
    repo = args[0]
    here = os.path.dirname(os.path.abspath(__file__))
    out = args[1] if len(args) > 1 else os.path.join(here, '../../sim-scenarios/src/main/resources/calibration/kernels/aiter')
    commit = git(repo, 'rev-parse', ref).strip()
    print(f'ROCm/aiter {commit} ({git(repo, "log", "-1", "--format=%cI %s", commit).strip()})')
    paths = sorted(p for p in git(repo, 'ls-tree', '-r', '--name-only', commit, 'aiter/configs').split()
                   if p.endswith('.csv') and 'tuned_fmoe' in os.path.basename(p) and 'untuned' not in os.path.basename(p))
    written = collections.defaultdict(dict)  # gpu -> key -> (preference, row)
    stats = collections.Counter()
    for path in paths:
        rows = list(csv.DictReader(io.StringIO(git(repo, 'show', f'{commit}:{path}'))))
        kept = collections.Counter()
        groups = collections.defaultdict(list)
        for r in rows:
            if r['cu_num'] not in GPUS:
                stats['other cu_num'] += 1
                continue
            gpu, gfx = GPUS[r['cu_num']]
            if r.get('gfx') and r['gfx'] != gfx:
                raise ValueError(f'{path}: cu_num {r["cu_num"]} with gfx {r["gfx"]}')
            if not r['us'] or float(r['us']) <= 0:
                stats['us <= 0'] += 1
                continue
            if r['doweight_stage1'] != '0':
                stats['doweight_stage1 = 1'] += 1
                continue
            dtype = DTYPES.get((element(r['q_dtype_a']), element(r['q_dtype_w']), r['q_type'].replace('QuantType.', '')))
            if dtype is None:
                stats['other dtype'] += 1
                continue
            assert r['use_g1u1'] == '1' and r['dtype'] == 'torch.bfloat16', (path, r)
            groups[tuple(r[c] for c in SHAPE)].append((gpu, dtype, r))
        for group in groups.values():
            times = collections.Counter((r['us1'], r['us2'], r['us']) for _, _, r in group)
            for gpu, dtype, r in group:
                if times[(r['us1'], r['us2'], r['us'])] > 1:
                    stats['copied (same time at several token counts)'] += 1
                    continue
                k2 = r['kernelName2'] if r['kernelName2'] not in ('', 'Null') else None
                source = (f'aiter_1stage_{family(r["kernelName1"])}' if r['run_1stage'] == '1' or k2 is None
                          else f'aiter_{family(r["kernelName1"])}_{family(k2)}') + f'_m{r["block_m"]}'
                row = [dtype, source, 'random', r['token'], r['model_dim'], r['inter_dim'], r['topk'], r['expert'], '1', '1',
                       fmt(sig(float(r['us']) / 1000))]
                pref = (r['act_type'] != 'ActivationType.Silu', float(r['us']))
                key = tuple(row[:-1])
                old = written[gpu].get(key)
                if old is not None:
                    stats['same written key, resolved'] += 1
                    if old[0] <= pref:
                        continue
                written[gpu][key] = (pref, row)
                kept[gpu] += 1
        print(f'  {path}: {len(rows)} rows, read for ' + (', '.join(f'{g} {n}' for g, n in sorted(kept.items())) or 'none'))
    for what, n in sorted(stats.items()):
        print(f'  skipped: {what}: {n}')
    for gpu in ('mi300x', 'mi355x'):
        rows = sorted((v[1] for v in written[gpu].values()),
                      key=lambda r: (r[0], int(r[4]), int(r[5]), int(r[7]), int(r[6]), int(r[3]), r[1]))
        text = io.StringIO()
        w = csv.writer(text, lineterminator='\n')
        w.writerow(HEADER)
        w.writerows(rows)
        by = collections.Counter(r[0] for r in rows)
        print(f'{gpu}_moe.csv: {len(rows)} rows, {len(text.getvalue().encode())} bytes; '
              + ', '.join(f'{d} {n}' for d, n in sorted(by.items())))
        if not dry:
            os.makedirs(out, exist_ok=True)
            with open(os.path.join(out, f'{gpu}_moe.csv'), 'w') as f:
                f.write(text.getvalue())


if __name__ == '__main__':
    main()
