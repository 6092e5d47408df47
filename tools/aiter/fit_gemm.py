#!/usr/bin/env python3
"""Fits collsim's dense-GEMM constants (KernelCosts.GemmConstants) for AMD Instinct GPUs to AITER's tuned-GEMM tables
(tools/aiter/convert.py writes them: sim-scenarios/src/main/resources/calibration/kernels/aiter/<gpu>_gemm.csv), per
architecture (CDNA 3: mi300x rows; CDNA 4: mi355x rows) and format (bfloat16, fp8 per-token, fp8_block), by the model
and the method of tools/aic/fit_gemm.py, which fits the NVIDIA sets: its loss, bounds, starting points and Nelder-Mead
are imported from that file, not copied.

  python3 tools/aiter/fit_gemm.py [--formats F,F] [--tile FORMAT=ROWSxCOLUMNS|FORMAT=none] [--gpus GPUS_YAML] [FOLDER ...]

The form is KernelCosts.gemmMicros: fixed + (math^p + memory^p + tiles^p)^(1/p), math = 2 x M padded to 64 x N x K /
(dense rate of the format x math share), memory = (N x K x bytes per weight + M x (N + K) x 2) / (HBM x memory share),
tiles (block FP8 only, as for NVIDIA; the tile is the one of TILE_CANDIDATES the rows fit best, or --tile's) = waves of tiles over the CUs x one
tile's K loop at a CU's share of the rate. Peak rates, HBM bandwidth and CU count ('sms') come from collsim's GPU
catalogue (sim-topologies/src/main/resources/catalog/gpus.yaml).

What differs from the NVIDIA fit is only what a measured time holds. AITER's `us` is the device time of the call's
kernels alone (torch.profiler's self_device_time_total summed over the kernels of one call, averaged over the timed
iterations; aiter/test_common.py run_perftest / get_trace_perf), on activations quantised before the timing
(the tuners' generate_data): so no launch gap (aiconfigurator's CUDA-graph times include 1.5 us a kernel) and no
activation quantisation is added to the model, and the fitted fixed time is the kernel's own, as KernelCosts uses it
(the step adds the launch gap itself). Python 3 standard library only.
"""
import importlib.util
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, '..', '..'))
_spec = importlib.util.spec_from_file_location('aic_fit_gemm', os.path.join(ROOT, 'tools', 'aic', 'fit_gemm.py'))
aic = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(aic)

ARCH = {'cdna3': 'CDNA3', 'cdna4': 'CDNA4'}
TABLE_GPUS = ('mi300x', 'mi355x')  # the GPU each file is named after: (gfx942, 304 CUs) and (gfx950, 256 CUs) rows
FORMATS = {'bfloat16': (2, 16), 'fp8': (1, 8), 'fp8_block': (1, 8)}
JAVA = {'bfloat16': 'BF16', 'fp8': 'FP8', 'fp8_block': 'FP8_BLOCK'}
TILES = {'fp8_block': aic.TILES['fp8_block']}
# The output tiles (rows x columns: CK's MPerBlock x NPerBlock) of AITER's block-FP8 kernels that the tables' fastest rows
# run (16 x 64 for most rows of M <= 64, 64 x 64 and 128 x 128 above); NVIDIA's 64 x 128 is among them. As aic picks the
# tile its measured rows fit best, the fit keeps the candidate with the lowest loss (--tile FORMAT=RxC fixes one).
TILE_CANDIDATES = {'fp8_block': ((16, 64), (32, 64), (64, 64), (16, 128), (32, 128), (64, 128), (128, 128))}
DECODE_M = 64  # 'decode-like' rows: M <= 64 tokens


def catalogue(path):
    """name -> (bf16, fp8, fp4 TFLOPS, HBM bytes/s, CUs, architecture) from gpus.yaml (its flat numeric keys only)."""
    gpus, cur = {}, None
    with open(path) as f:
        for line in f:
            s = line.rstrip('\n')
            if s.startswith('- name:'):
                cur = gpus.setdefault(s.split(':', 1)[1].strip(), {})
            elif cur is not None and s.startswith('  ') and not s.startswith('   ') and ':' in s:
                key, value = (x.strip() for x in s.split(':', 1))
                cur[key] = value
    out = {}
    for name, g in gpus.items():
        try:
            out[name] = (float(g['bf16_tflops']), float(g['fp8_tflops']), float(g['fp4_tflops']),
                         float(g['hbm_tbps']) * 1e12, int(float(g['sms'])), g['nccl_arch'])
        except (KeyError, ValueError):
            pass
    return out


def prepared(rows, tile, gpus):
    """As aic.prepared, with the measured time the kernels' alone: (math us, memory us, tile waves us, 0, measured us)."""
    out = []
    for gpu, fmt, m, n, k, t in rows:
        bpp, bits = FORMATS[fmt]
        bf16, fp8, fp4, bw, sms, _ = gpus[gpu]
        rate = {16: bf16, 8: fp8, 4: fp4}[bits] * 1e12
        padded = math.ceil(m / 64) * 64
        waves = 0
        if tile:
            waves = math.ceil(math.ceil(m / tile[0]) * math.ceil(n / tile[1]) / sms) * 2 * tile[0] * tile[1] * k / (rate / sms) * 1e6
        out.append((2 * padded * n * k / rate * 1e6, (n * k * bpp + m * (n + k) * 2) / bw * 1e6, waves, 0.0, t))
    return out


def score(data, p):
    """(geomean |error|, signed bias) of exp(mean |ln(model/measured)|) - 1 and exp(mean ln(model/measured)) - 1."""
    if not data:
        return float('nan'), float('nan')
    ls = aic.logs(data, list(p[:4]) + [p[4] or 1.0])
    return math.exp(sum(map(abs, ls)) / len(ls)) - 1, math.exp(sum(ls) / len(ls)) - 1


def fit(rows, tile_choices, gpus):
    """aic's fit (both starts, the better kept) for each tile of tile_choices (None: no tile bound); the best of all."""
    best = None
    for tile in tile_choices:
        data = prepared(rows, tile, gpus)
        if tile:
            fits = [aic.nelder_mead(lambda p: aic.loss(data, p), start, (0.1, 0.1, 2.0, 4.0, 0.2)) for start in aic.STARTS]
        else:  # no tile bound: the four constants alone
            fits = [aic.nelder_mead(lambda p: aic.loss(data, p + [1.0]), start[:4], (0.1, 0.1, 2.0, 4.0)) + [0.0]
                    for start in aic.STARTS]
        fitted = min(fits, key=lambda p: aic.loss(data, p[:4] + [p[4] or 1.0]))
        value = aic.loss(data, fitted[:4] + [fitted[4] or 1.0])
        if best is None or value < best[0]:
            best = (value, fitted, tile, data)
    return best[1:]


def main():
    args, folders, formats, tiles = sys.argv[1:], [], None, dict(TILES)
    candidates = {f: list(c) for f, c in TILE_CANDIDATES.items()}
    yaml = os.path.join(ROOT, 'sim-topologies', 'src', 'main', 'resources', 'catalog', 'gpus.yaml')
    while args:
        arg = args.pop(0)
        if arg == '--formats':
            formats = set(args.pop(0).split(','))
        elif arg == '--tile':
            fmt, size = args.pop(0).split('=')
            candidates.pop(fmt, None)
            if size == 'none':
                tiles.pop(fmt, None)
            else:
                tiles[fmt] = tuple(int(x) for x in size.split('x'))
        elif arg == '--gpus':
            yaml = args.pop(0)
        else:
            folders.append(arg)
    gpus = catalogue(yaml)
    tables = aic.read_tables(folders or [os.path.join(ROOT, 'sim-scenarios', 'src', 'main', 'resources', 'calibration', 'kernels', 'aiter')],
                             TABLE_GPUS, lambda gpu: gpus[gpu][5], lambda gpu, fmt: fmt in FORMATS and (formats is None or fmt in formats))
    for gpu in TABLE_GPUS:
        bf16, fp8, _, bw, sms, arch = gpus[gpu]
        print(f'{gpu}: {arch}, BF16 {bf16} TFLOPS, FP8 {fp8} TFLOPS, HBM {bw / 1e12} TB/s, {sms} CUs (gpus.yaml)')
    print()
    print('arch   format      rows  roofline: geomean   bias   fitted: geomean   bias   M<=64: rows geomean   bias   '
          'math  memory  fixed us  ridge p     tile  share')
    java = []
    for (arch, fmt), rows in sorted(tables.items(), key=lambda x: (x[0][0], list(FORMATS).index(x[0][1]))):
        fitted, tile, data = fit(rows, candidates.get(fmt) or [tiles.get(fmt)], gpus)
        g0, b0 = score(prepared(rows, None, gpus), aic.TODAY)
        g1, b1 = score(data, fitted)
        small = [d for d, r in zip(data, rows) if r[2] <= DECODE_M]
        g2, b2 = score(small, fitted)
        a, b, c, d, e = fitted
        size = f'{tile[0]}x{tile[1]}' if tile else '-'
        print(f'{arch:6} {fmt:9} {len(rows):6}   {100 * g0:15.1f}% {100 * b0:+6.1f}%   {100 * g1:14.1f}% {100 * b1:+6.1f}%   '
              f'{len(small):11} {100 * g2:6.1f}% {100 * b2:+6.1f}%   {a:.3f}   {b:.3f}  {c:8.2f}  {d:7.2f}  {size:>7}  {e:.3f}')
        name = f'{ARCH.get(arch, arch.upper())}_{JAVA[fmt]}'
        gpu_names = '/'.join(sorted({r[0] for r in rows}))
        comment = (f'/** AITER tuned GEMMs, {gpu_names} rows: geomean |error| {100 * g1:.1f} %, bias {100 * b1:+.1f} % '
                   f'({len(rows)} rows); M <= {DECODE_M}: {100 * g2:.1f} %, {100 * b2:+.1f} % ({len(small)} rows). */')
        if tile:
            java.append(f'{comment}\nstatic final GemmConstants {name} = new GemmConstants({a:.3f}, {b:.3f}, {c:.2f}, {d:.2f}, '
                        f'{tile[0]}, {tile[1]}, {e:.3f});')
        else:
            java.append(f'{comment}\nstatic final GemmConstants {name} = splitsK({a:.3f}, {b:.3f}, {c:.2f}, {d:.2f});')
    print()
    print('\n'.join(java))


if __name__ == '__main__':
    main()
