#!/usr/bin/env python3
"""Turns AMD AITER's tuned-GEMM tables (ROCm/aiter, aiter/configs/) into collsim's GEMM calibration CSV files, one per
AMD Instinct GPU, with the header of aiconfigurator's converted tables (tools/aic): gemm_dtype,m,n,k,latency_ms.

  python3 tools/aiter/convert.py SOURCE OUTDIR [--ref REF] [--full] [--max-rows N] [--sig N] [--dry-run]

SOURCE: a checkout or a (bare) git directory of https://github.com/ROCm/aiter; read with git at REF (default HEAD),
or, where SOURCE is not a git directory, from its files. OUTDIR: collsim's `kernels` folder; writes OUTDIR/aiter/
mi300x_gemm.csv and OUTDIR/aiter/mi355x_gemm.csv (other files there are kept). Python 3 standard library and git.

What is taken (tools/aiter/README.md says why):
- Each GEMM family's table is AITER's own runtime merge of it (aiter/jit/core.py, AITER_CONFIG.get_config_file):
  aiter/configs/<family>.csv and every aiter/configs/model_configs/*<family>*.csv whose name lacks 'untuned'.
  Families and the dtype they stand for:
    bf16_tuned_gemm                              -> bfloat16  (dtype and outdtype torch.bfloat16, bias False, scaleAB False)
    a8w8_blockscale_tuned_gemm                   -> fp8_block (1 x 128 activation, 128 x 128 weight block scales)
    a8w8_blockscale_bpreshuffle_tuned_gemm       -> fp8_block (the same, weights pre-shuffled at load)
    a8w8_bpreshuffle_tuned_gemm, a8w8_tuned_gemm -> fp8       (per-token activation, per-channel weight scales; only
                                                               q_dtype_w torch.float8_e4m3fn(uz): int8 rows dropped)
- GPUs, by the rows' (gfx, cu_num): (gfx942, 304) -> mi300x (MI300X or MI325X: same die and CU count),
  (gfx950, 256) -> mi355x (MI355X or MI350X). Other pairs (gfx942 with 80 CUs: a partitioned MI300X; gfx1250) are
  dropped.
- Rows with a valid time only: `us` a finite number > 0 (the tuner writes 0, -1 or inf for a failed shape).
- One row per (gpu, dtype, M, N, K): the fastest over every file and family of that dtype (AITER's merge keeps the
  fastest per key too).
- `latency_ms` = us / 1000, rounded to --sig significant digits (default 4).
- Thinning (not with --full), per output file: rows with M <= 8192 only; then, while the file holds more than --max-rows
  rows (default 3000), the whole file (every dtype alike) goes one step down this ladder of kept M values:
    L0 every M (<= 8192);  L1 M <= 64, or M = 2^a or 3 x 2^a;  L2 M = 2^a;  L3 M = 2^a <= 64, or M = 4^a.
  The ladder stops at L3 even if the file is still larger.
Rows are written sorted by dtype (bfloat16, fp8, fp8_block), n, k, m. Two runs on the same commit write identical files.
"""
import csv
import fnmatch
import io
import math
import os
import subprocess
import sys

FAMILIES = (  # AITER config family -> collsim gemm_dtype
    ('bf16_tuned_gemm', 'bfloat16'),
    ('a8w8_bpreshuffle_tuned_gemm', 'fp8'),
    ('a8w8_tuned_gemm', 'fp8'),
    ('a8w8_blockscale_tuned_gemm', 'fp8_block'),
    ('a8w8_blockscale_bpreshuffle_tuned_gemm', 'fp8_block'),
)
DTYPE_ORDER = ('bfloat16', 'fp8', 'fp8_block')
GPUS = {('gfx942', '304'): 'mi300x', ('gfx950', '256'): 'mi355x'}
LEGACY_CU = {'304': 'gfx942'}  # a row without a gfx column: 304 CUs can only be gfx942 (256 is gfx950 or gfx1250)
HEADER = ['gemm_dtype', 'm', 'n', 'k', 'latency_ms']
MAX_M = 8192


def pow2(m):
    return m >= 1 and m & (m - 1) == 0


LADDER = (
    ('L0 every M', lambda m: True),
    ('L1 M <= 64 or 2^a or 3x2^a', lambda m: m <= 64 or pow2(m) or (m % 3 == 0 and pow2(m // 3))),
    ('L2 M = 2^a', pow2),
    ('L3 M = 2^a <= 64 or 4^a', lambda m: pow2(m) and (m <= 64 or (m.bit_length() - 1) % 2 == 0)),
)


class Source:
    """Reads aiter's files at a git ref, or from a plain folder."""

    def __init__(self, path, ref):
        self.path, self.ref = path, ref
        probe = subprocess.run(['git', '-C', path, 'rev-parse', '--verify', ref + '^{commit}'], capture_output=True, text=True)
        self.git = probe.returncode == 0
        self.commit = probe.stdout.strip() if self.git else None
        if self.git:
            self.date = subprocess.run(['git', '-C', path, 'log', '-1', '--format=%cI %s', self.commit],
                                       capture_output=True, text=True).stdout.strip()

    def listing(self, folder):
        if self.git:
            out = subprocess.run(['git', '-C', self.path, 'ls-tree', '-r', '--name-only', self.commit, folder],
                                 capture_output=True, text=True, check=True).stdout
            return out.split()
        names = []
        for root, _, files in os.walk(os.path.join(self.path, folder)):
            names += [os.path.relpath(os.path.join(root, f), self.path).replace(os.sep, '/') for f in files]
        return names

    def read(self, name):
        if self.git:
            return subprocess.run(['git', '-C', self.path, 'show', f'{self.commit}:{name}'], capture_output=True,
                                  text=True, check=True).stdout
        with open(os.path.join(self.path, name)) as f:
            return f.read()


def family_files(names, family):
    """AITER's get_config_file: the family's own file, then model_configs/*<family>*.csv that are not 'untuned'."""
    own = f'aiter/configs/{family}.csv'
    extra = sorted(n for n in names if n.startswith('aiter/configs/model_configs/')
                   and fnmatch.fnmatch(n.rsplit('/', 1)[1], f'*{family}*.csv') and 'untuned' not in n.rsplit('/', 1)[1])
    return ([own] if own in names else []) + extra


def keep(row, dtype):
    """Whether a row is a plain GEMM of the dtype (see the module's docstring)."""
    if dtype == 'bfloat16':
        return (row.get('dtype') == 'torch.bfloat16' and row.get('outdtype') == 'torch.bfloat16'
                and row.get('bias', 'False') == 'False' and row.get('scaleAB', 'False') == 'False')
    if dtype == 'fp8':
        return 'float8' in row.get('q_dtype_w', '')
    return True


def time_us(row):
    try:
        us = float(row['us'])
    except (KeyError, TypeError, ValueError):
        return None
    return us if math.isfinite(us) and us > 0 else None


def rounded(x, sig):
    text = f'{x:.{sig}g}'
    if 'e' in text:
        text = f'{x:.{sig + 6}f}'.rstrip('0')
    return text


def main():
    args = sys.argv[1:]
    opts = {'--ref': 'HEAD', '--max-rows': '3000', '--sig': '4'}
    flags, positional = set(), []
    while args:
        a = args.pop(0)
        if a in opts:
            opts[a] = args.pop(0)
        elif a in ('--full', '--dry-run'):
            flags.add(a)
        else:
            positional.append(a)
    if len(positional) != 2:
        sys.exit(__doc__)
    src = Source(positional[0], opts['--ref'])
    outdir = os.path.join(positional[1], 'aiter')
    max_rows, sig = int(opts['--max-rows']), int(opts['--sig'])
    print(f'source: {positional[0]}' + (f' at {src.commit} ({src.date})' if src.git else ' (files, not git)'))
    names = src.listing('aiter/configs')

    best = {}  # (gpu, dtype, m, n, k) -> (us, file)
    stats = {}
    for family, dtype in FAMILIES:
        for name in family_files(names, family):
            rows = list(csv.DictReader(io.StringIO(src.read(name))))
            s = stats.setdefault(name, {'family': family, 'rows': len(rows), 'taken': 0, 'bad_time': 0, 'dtype_out': 0,
                                        'other_gpu': 0, 'tflops_off': 0, 'gpus': {}})
            for r in rows:
                gfx = r.get('gfx') or LEGACY_CU.get(r.get('cu_num'))
                gpu = GPUS.get((gfx, r.get('cu_num')))
                if gpu is None:
                    s['other_gpu'] += 1
                    continue
                if not keep(r, dtype):
                    s['dtype_out'] += 1
                    continue
                us = time_us(r)
                if us is None:
                    s['bad_time'] += 1
                    continue
                m, n, k = int(r['M']), int(r['N']), int(r['K'])
                # The tuner's own tflops column is 2MNK / us (TFLOPS, rounded to 0.01): a check that `us` is microseconds.
                try:
                    tf = float(r.get('tflops') or 'nan')
                    if math.isfinite(tf) and tf > 0 and abs(2 * m * n * k / us / 1e6 - tf) > 0.011 + 0.01 * tf:
                        s['tflops_off'] += 1
                except ValueError:
                    pass
                s['taken'] += 1
                s['gpus'][gpu] = s['gpus'].get(gpu, 0) + 1
                key = (gpu, dtype, m, n, k)
                if key not in best or us < best[key][0]:
                    best[key] = (us, name)

    print('\nfiles read (rows: in file, taken, dropped for another GPU / dtype or variant / no valid time; '
          'rows whose tflops disagrees with 2MNK/us):')
    for name, s in stats.items():
        gpus = ', '.join(f'{g} {c}' for g, c in sorted(s['gpus'].items())) or '-'
        print(f"  {name[len('aiter/configs/'):]}: {s['rows']}, taken {s['taken']} ({gpus}), dropped {s['other_gpu']} / "
              f"{s['dtype_out']} / {s['bad_time']}; tflops off {s['tflops_off']}")

    print(f"\nfiles written ({'--full: no thinning' if '--full' in flags else f'M <= {MAX_M}, at most about {max_rows} rows a file'}):")
    if '--dry-run' not in flags:
        os.makedirs(outdir, exist_ok=True)
    for gpu in sorted(set(GPUS.values())):
        shapes = sorted(((DTYPE_ORDER.index(d), n, k, m), us) for (g, d, m, n, k), (us, _) in best.items() if g == gpu)
        unique = len(shapes)
        level = 0
        if '--full' not in flags:
            shapes = [s for s in shapes if s[0][3] <= MAX_M]
            while len([s for s in shapes if LADDER[level][1](s[0][3])]) > max_rows and level + 1 < len(LADDER):
                level += 1
            shapes = [s for s in shapes if LADDER[level][1](s[0][3])]
        out = io.StringIO()
        w = csv.writer(out, lineterminator='\n')
        w.writerow(HEADER)
        per_dtype = {}
        for (d, n, k, m), us in shapes:
            w.writerow([DTYPE_ORDER[d], m, n, k, rounded(us / 1000, sig)])
            per_dtype[DTYPE_ORDER[d]] = per_dtype.get(DTYPE_ORDER[d], 0) + 1
        text = out.getvalue()
        path = os.path.join(outdir, f'{gpu}_gemm.csv')
        if '--dry-run' not in flags:
            with open(path, 'w', newline='') as f:
                f.write(text)
        uniq = {}
        for (g, d, *_), _ in best.items():
            if g == gpu:
                uniq[d] = uniq.get(d, 0) + 1
        detail = ', '.join(f'{d} {per_dtype.get(d, 0)}/{uniq.get(d, 0)}' for d in DTYPE_ORDER if uniq.get(d))
        print(f"  aiter/{gpu}_gemm.csv: {len(shapes)} rows of {unique} unique shapes ({detail}), "
              f"{'' if '--full' in flags else LADDER[level][0] + ', '}{len(text.encode())} bytes")


if __name__ == '__main__':
    main()
