#!/usr/bin/env node
// Converts aiconfigurator's measured kernel tables (parquet) of TensorRT-LLM, vLLM and SGLang into
// compact CSV files for collsim's step-model calibration. Only data is taken from aiconfigurator;
// see README.md.
//
// Usage: node convert.mjs SOURCE OUTDIR [--ref REF] [--sig N] [--full] [--max-total BYTES] [--dry-run]
//   SOURCE  a checkout of github.com/ai-dynamo/aiconfigurator (a folder holding aic-core/), or a
//           bare git directory of it (read with `git --git-dir=SOURCE show REF:path`).
//   OUTDIR  where <engine>/<gpu>_<kind>.csv are written (engine = trtllm, vllm, sglang; files of
//           the same name are replaced, others kept).
//   --ref   commit to read from a bare git directory (default HEAD; ignored for a checkout).
//   --sig   significant digits kept for latency (default 4, the least allowed).
//   --full  every row of every table: no thinning, no size rules (about 144 MB at the commit in
//           README.md, trtllm 84 MB). Without it, each kind's `compact` filter below thins the
//           sweeps (and `compactOther`, for vllm/sglang).
//   --max-total  size budget of the whole set, all engines, in bytes (default 12 MiB), see the end
//           of main(). The vLLM + SGLang files also have their own budget, MAX_OTHER below.
//   --dry-run  print what would be written, write nothing.
// Needs: `npm install` here (hyparquet, hyparquet-compressors; package.json) and git for a bare dir.

import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';

const num = (x) => Number(x);
const pow2 = (x) => { const v = Number(x); return v >= 1 && Number.isInteger(v) && (v & (v - 1)) === 0; };
const pow4 = (x) => pow2(x) && Math.log2(Number(x)) % 2 === 0; // 1, 4, 16, 64, ...

const DATA = 'aic-core/src/aiconfigurator_core/systems/data';

// Per engine: the GPUs and kinds converted (null = every kind of KINDS), written to OUTDIR/<engine>/.
// `prefer`: for a kind whose table has several rows of one written key (the same shape measured with
// more than one backend, kernel_source telling them apart), the kernel_source kept per GPU: the
// engine's default backend there (the other rows are dropped; counted and printed).
const ENGINES = [
  { engine: 'trtllm', gpus: ['h100_sxm', 'h200_sxm', 'b200_sxm', 'gb200', 'a100_sxm'], kinds: null },
  {
    engine: 'vllm', gpus: ['h100_sxm', 'b200_sxm'],
    kinds: ['gemm', 'context_attention', 'generation_attention', 'moe'],
  },
  {
    engine: 'sglang', gpus: ['h100_sxm', 'b200_sxm'],
    kinds: ['gemm', 'context_attention', 'generation_attention', 'moe'],
    // SGLang 0.5.14's default MHA backend: fa3 on SM90, trtllm_mha on SM100 (server_args.py, as the
    // collector's collector/sglang/collect_attn.py mirrors it); flashinfer / triton rows of the same
    // shapes are per-model overrides (NemotronH, Qwen3.5 hybrid).
    prefer: {
      context_attention: { h100_sxm: 'fa3', b200_sxm: 'trtllm_mha' },
      generation_attention: { h100_sxm: 'fa3', b200_sxm: 'trtllm_mha' },
    },
  },
];

// Per output kind, in the brief's order of priority: the data folder and table under
// DATA/<gpu>/<dir>/<engine>/<version>/; the columns written (source names; `latency` is written as
// latency_ms; every engine's file of a kind has the same header); `derived`: a column left out
// because it is a function of the listed columns in every selected table (checked; the mapping is
// printed and recorded in README.md; for vllm/sglang, where the backend is chosen per shape, it may
// instead be a function of the whole written key, and then only its values are printed);
// `constant`: columns left out because they hold one value (checked: conversion fails if another
// value shows up); `compact`: the rows kept unless --full; `compactOther`: further rows dropped from
// the vllm/sglang files only, unless --full (the budget MAX_OTHER).
const KINDS = [
  {
    kind: 'gemm', dir: 'gemm', table: 'gemm_perf',
    cols: ['gemm_dtype', 'm', 'n', 'k', 'latency'],
    compact: (r) => pow2(r.m) && num(r.n) >= 128 && num(r.k) >= 128,
    compactOther: (r) => pow2(r.n) && pow2(r.k),
    derived: { kernel_source: ['gemm_dtype'] },
    constant: {},
  },
  {
    kind: 'context_attention', dir: 'attention', table: 'context_attention_perf',
    cols: ['attn_dtype', 'kv_cache_dtype', 'batch_size', 'isl', 'num_heads', 'num_key_value_heads',
      'head_dim', 'window_size', 'latency'],
    derived: { kernel_source: ['head_dim', 'window_size'] },
    compact: (r) => pow2(r.num_heads) && pow2(r.num_key_value_heads) && pow4(r.isl) && num(r.isl) >= 16
      && pow4(r.batch_size),
    constant: { beam_width: 1, step: 0 },
  },
  {
    kind: 'generation_attention', dir: 'attention', table: 'generation_attention_perf',
    cols: ['kv_cache_dtype', 'batch_size', 'step', 'num_heads', 'num_key_value_heads', 'head_dim',
      'window_size', 'latency'],
    derived: { kernel_source: ['head_dim', 'window_size'] },
    compact: (r) => pow2(r.num_heads) && pow2(r.num_key_value_heads) && pow4(r.batch_size)
      && pow4((num(r.step) + 1) / 2),
    constant: { beam_width: 1, isl: 1, attn_dtype: 'bfloat16' },
  },
  {
    kind: 'moe', dir: 'moe', table: 'moe_perf',
    cols: ['moe_dtype', 'kernel_source', 'distribution', 'num_tokens', 'hidden_size', 'inter_size',
      'topk', 'num_experts', 'moe_tp_size', 'moe_ep_size', 'latency'],
    compact: (r) => r.distribution === 'balanced' && pow4(r.num_tokens)
      && (num(r.moe_tp_size) === 1 || num(r.moe_ep_size) === 1),
    compactOther: (r) => pow4(r.moe_tp_size) && pow4(r.moe_ep_size),
    constant: {},
  },
  {
    kind: 'context_mla', dir: 'mla', table: 'context_mla_perf',
    cols: ['kv_cache_dtype', 'batch_size', 'isl', 'num_heads', 'tp_size', 'latency'],
    constant: { mla_dtype: 'bfloat16', kernel_source: 'default', step: 0 },
  },
  {
    kind: 'generation_mla', dir: 'mla', table: 'generation_mla_perf',
    cols: ['kv_cache_dtype', 'batch_size', 'step', 'num_heads', 'tp_size', 'latency'],
    compact: (r) => pow4((num(r.step) + 1) / 2),
    constant: { mla_dtype: 'bfloat16', kernel_source: 'default', isl: 1 },
  },
  {
    kind: 'custom_allreduce', dir: 'comm', table: 'custom_allreduce_perf',
    cols: ['allreduce_dtype', 'num_gpus', 'message_size', 'latency'],
    constant: { kernel_source: 'TRTLLM' },
  },
];
// Run metadata columns: one value per table, recorded in README.md, not repeated on every row.
const META = ['framework', 'version', 'device', 'op_name', 'implementation'];

// Size rules of the brief: a GEMM file over MAX_FILE keeps only these dtypes; the whole set should
// stay under MAX_TOTAL, else kinds are dropped from the end of KINDS (reported, never silent); the
// vllm + sglang files together should stay under MAX_OTHER (checked and reported, not enforced: the
// `compactOther` filters are what keep them there).
const MAX_FILE = 1.5e6;
const MAX_OTHER = 3.5e6;
const GEMM_KEEP_DTYPES = new Set(['bfloat16', 'fp8', 'fp8_block', 'nvfp4', 'mxfp4', 'fp4']);

function parseArgs(argv) {
  const a = { ref: 'HEAD', sig: 4, dry: false, full: false, maxTotal: 12 * 1024 * 1024, pos: [] };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--ref') a.ref = argv[++i];
    else if (argv[i] === '--sig') a.sig = Number(argv[++i]);
    else if (argv[i] === '--dry-run') a.dry = true;
    else if (argv[i] === '--full') a.full = true;
    else if (argv[i] === '--max-total') a.maxTotal = Number(argv[++i]);
    else a.pos.push(argv[i]);
  }
  if (a.pos.length !== 2 || !(a.sig >= 4)) {
    console.error('usage: node convert.mjs SOURCE OUTDIR [--ref REF] [--sig N>=4] [--full] '
      + '[--max-total BYTES] [--dry-run]');
    process.exit(2);
  }
  return a;
}

// Reads files either from a checkout or from a bare git directory at a commit.
function makeSource(root, ref) {
  if (fs.existsSync(path.join(root, DATA))) {
    return {
      desc: `checkout ${root}`,
      list: (dir) => fs.existsSync(path.join(root, dir))
        ? fs.readdirSync(path.join(root, dir), { withFileTypes: true }).map((d) => d.name) : [],
      read: (p) => fs.readFileSync(path.join(root, p)),
      exists: (p) => fs.existsSync(path.join(root, p)),
    };
  }
  const git = (...args) => execFileSync('git', ['--git-dir', root, ...args],
    { maxBuffer: 1 << 30, encoding: 'buffer' });
  const commit = git('rev-parse', `${ref}^{commit}`).toString().trim();
  const names = new Set(git('ls-tree', '-r', '--name-only', commit, `${DATA}/`).toString().split('\n'));
  return {
    desc: `git ${root} @ ${commit}`,
    list: (dir) => [...new Set([...names].filter((n) => n.startsWith(dir + '/'))
      .map((n) => n.slice(dir.length + 1).split('/')[0]))],
    read: (p) => git('show', `${commit}:${p}`),
    exists: (p) => names.has(p),
  };
}

// 1.3.0rc20 < 1.3.0 ; numeric compare of the dotted part, then rcN (a release sorts after its rcs).
function versionKey(v) {
  const m = /^(\d+(?:\.\d+)*)(?:rc(\d+))?/.exec(v);
  if (!m) return null;
  return [...m[1].split('.').map(Number), m[2] === undefined ? Infinity : Number(m[2])];
}
function cmpVersion(a, b) {
  const ka = versionKey(a), kb = versionKey(b);
  for (let i = 0; i < Math.max(ka.length, kb.length); i++) {
    const x = ka[i] ?? 0, y = kb[i] ?? 0;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

// Newest version whose folder holds the table as a complete collection: a folder whose reuse.yaml
// names the table only borrows it from another version (its parquet, if any, is a partial top-up).
function pickVersion(src, engine, gpu, k) {
  const base = `${DATA}/${gpu}/${k.dir}/${engine}`;
  const versions = src.list(base).filter((v) => versionKey(v)).sort(cmpVersion).reverse();
  const seen = [];
  for (const v of versions) {
    const p = `${base}/${v}/${k.table}.parquet`;
    const reuse = `${base}/${v}/reuse.yaml`;
    const reused = src.exists(reuse)
      && new RegExp(`table:\\s*${k.table}\\b`).test(src.read(reuse).toString());
    seen.push(`${v}${src.exists(p) ? '' : '(no table)'}${reused ? '(reuse)' : ''}`);
    if (src.exists(p) && !reused) return { version: v, path: p, seen };
  }
  return { version: null, path: null, seen };
}

async function readParquet(buf) {
  const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
  return parquetReadObjects({ file: ab, compressors });
}

function fmt(v, sig) {
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number') {
    if (Number.isInteger(v) && Math.abs(v) < 1e15) return String(v);
    if (!Number.isFinite(v)) throw new Error(`non-finite value ${v}`);
    // Shortest decimal of the value rounded to `sig` significant digits, never in exponent form.
    const r = Number(v.toPrecision(sig));
    const s = String(r);
    return s.includes('e') ? r.toFixed(Math.max(0, sig - 1 - Math.floor(Math.log10(Math.abs(r))))) : s;
  }
  const s = String(v);
  if (/[",\n]/.test(s)) return `"${s.replace(/"/g, '""')}"`;
  return s;
}

function toCsv(rows, k, sig) {
  const header = k.cols.map((c) => (c === 'latency' ? 'latency_ms' : c));
  const lines = [header.join(',')];
  for (const r of rows) lines.push(k.cols.map((c) => fmt(r[c], sig)).join(','));
  return lines.join('\n') + '\n';
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const [root, outDir] = args.pos;
  const src = makeSource(root, args.ref);
  console.log(`source: ${src.desc}`);
  const outputs = [];
  const problems = [];
  for (const eng of ENGINES) {
    const engine = eng.engine;
    const kinds = eng.kinds ? KINDS.filter((k) => eng.kinds.includes(k.kind)) : KINDS;
    for (const gpu of eng.gpus) {
      for (const k of kinds) {
        const pick = pickVersion(src, engine, gpu, k);
        if (!pick.path) {
          problems.push(`${engine} ${gpu} ${k.kind}: no ${engine} table (versions: ${pick.seen.join(' ') || 'none'})`);
          continue;
        }
        const buf = src.read(pick.path);
        if (buf.subarray(0, 4).toString() !== 'PAR1') {
          problems.push(`${engine} ${gpu} ${k.kind}: ${pick.path} is not parquet (Git LFS pointer?)`);
          continue;
        }
        let rows = await readParquet(buf);
        const nIn = rows.length;
        const cols = Object.keys(rows[0] ?? {});
        const known = new Set([...k.cols, ...Object.keys(k.constant), ...META, ...Object.keys(k.derived ?? {})]);
        const unknown = cols.filter((c) => !known.has(c));
        if (unknown.length) throw new Error(`${pick.path}: columns not handled: ${unknown.join(',')}`);
        for (const c of k.cols) {
          if (!cols.includes(c)) throw new Error(`${pick.path}: missing column ${c}`);
        }
        const meta = {};
        for (const c of META.filter((c) => cols.includes(c))) {
          const vals = [...new Set(rows.map((r) => String(r[c])))];
          meta[c] = vals.join(' | ');
        }
        for (const [c, want] of Object.entries(k.constant)) {
          if (!cols.includes(c)) continue;
          const bad = rows.find((r) => String(r[c]) !== String(want));
          if (bad) throw new Error(`${pick.path}: column ${c} is not always ${want} (${bad[c]})`);
        }
        if (meta.version && meta.version !== pick.version) {
          const n = rows.filter((r) => String(r.version) !== pick.version).length;
          problems.push(`${engine} ${gpu} ${k.kind}: folder ${pick.version} but rows say version ${meta.version}`
            + ` (${n} rows not ${pick.version})`);
        }
        const keyCols = k.cols.filter((c) => c !== 'latency');
        const keyOf = (r) => keyCols.map((c) => String(r[c])).join(',');
        // Several backends measured on one shape: keep the engine's default backend's row (eng.prefer).
        let resolved = '';
        const prefer = eng.prefer?.[k.kind]?.[gpu];
        if (prefer) {
          const byKey = new Map();
          for (const r of rows) (byKey.get(keyOf(r)) ?? byKey.set(keyOf(r), []).get(keyOf(r))).push(r);
          const drop = new Set();
          const gone = {};
          for (const [key, rs] of byKey) {
            if (rs.length < 2) continue;
            const keep = rs.filter((r) => r.kernel_source === prefer);
            if (keep.length !== 1) throw new Error(`${pick.path}: key ${key} has ${rs.length} rows, ${keep.length} of ${prefer}`);
            for (const r of rs) {
              if (r !== keep[0]) { drop.add(r); gone[r.kernel_source] = (gone[r.kernel_source] ?? 0) + 1; }
            }
          }
          if (drop.size) {
            rows = rows.filter((r) => !drop.has(r));
            resolved = `shapes measured twice: kept ${prefer}, dropped ${Object.entries(gone).map(([s, n]) => `${s} ${n}`).join(', ')}`;
          }
        }
        // A dropped derived column must be a function of its key columns; the mapping goes to README.md.
        // vllm/sglang pick the backend per shape: there it may be a function of the whole key instead.
        const derived = {};
        for (const [c, by] of Object.entries(k.derived ?? {})) {
          const mapOf = (cs) => {
            const map = {};
            for (const r of rows) (map[cs.map((x) => r[x]).join('/')] ??= new Set()).add(String(r[c]));
            return map;
          };
          const map = mapOf(by);
          const bad = Object.entries(map).find(([, set]) => set.size > 1);
          if (bad && engine === 'trtllm') {
            throw new Error(`${pick.path}: ${c} is not a function of ${by}: ${bad[0]} -> ${[...bad[1]]}`);
          }
          const badKey = bad && Object.entries(mapOf(keyCols)).find(([, set]) => set.size > 1);
          if (badKey) {
            throw new Error(`${pick.path}: ${c} is not a function of ${keyCols}: ${badKey[0]} -> ${[...badKey[1]]}`);
          }
          if (bad) {
            const counts = {};
            for (const r of rows) counts[String(r[c])] = (counts[String(r[c])] ?? 0) + 1;
            derived[c] = `per shape (not a function of ${by}): ${Object.entries(counts).map(([v, n]) => `${v} ${n}`).join(', ')}`;
            continue;
          }
          const vals = [...new Set(rows.map((r) => String(r[c])))];
          derived[c] = vals.length === 1 ? vals[0]
            : Object.fromEntries(Object.entries(map).map(([key, set]) => [key, [...set][0]]));
        }
        // Duplicate keys would make the table ambiguous: report them (rows are kept as in the source).
        const keys = new Set();
        let dups = 0;
        for (const r of rows) {
          const key = keyOf(r);
          if (keys.has(key)) dups++; else keys.add(key);
        }
        let dropped = '';
        if (!args.full && k.compact) rows = rows.filter(k.compact);
        if (!args.full && engine !== 'trtllm' && k.compactOther) rows = rows.filter(k.compactOther);
        let csv = toCsv(rows, k, args.sig);
        if (!args.full && k.kind === 'gemm' && csv.length > MAX_FILE) {
          const before = rows.length;
          const gone = [...new Set(rows.filter((r) => !GEMM_KEEP_DTYPES.has(r.gemm_dtype)).map((r) => r.gemm_dtype))];
          rows = rows.filter((r) => GEMM_KEEP_DTYPES.has(r.gemm_dtype));
          if (rows.length < before) {
            dropped = `dropped ${before - rows.length} rows of gemm_dtype ${gone.join(',')}`;
            csv = toCsv(rows, k, args.sig);
          }
        }
        outputs.push({
          engine, gpu, kind: k.kind, version: pick.version, path: pick.path, nIn, nOut: rows.length, csv, meta,
          dups, dropped, resolved, seen: pick.seen, derived,
        });
      }
    }
  }
  // Whole-set budget (brief), all engines: drop kinds from the end of KINDS until the set fits; reported.
  const MAX_TOTAL = args.maxTotal;
  const order = KINDS.map((k) => k.kind);
  let total = outputs.reduce((s, o) => s + o.csv.length, 0);
  for (let i = order.length - 1; i > 0 && total > MAX_TOTAL && !args.full; i--) {
    const kind = order[i];
    const gone = outputs.filter((o) => o.kind === kind);
    if (!gone.length) continue;
    total -= gone.reduce((s, o) => s + o.csv.length, 0);
    problems.push(`kind ${kind} dropped: the set exceeded ${MAX_TOTAL} bytes`);
    for (const o of gone) outputs.splice(outputs.indexOf(o), 1);
  }
  const other = outputs.filter((o) => o.engine !== 'trtllm').reduce((s, o) => s + o.csv.length, 0);
  if (other > MAX_OTHER && !args.full) problems.push(`vllm + sglang files are ${other} B, over ${MAX_OTHER} B`);
  for (const o of outputs) {
    const file = path.join(outDir, o.engine, `${o.gpu}_${o.kind}.csv`);
    if (!args.dry) {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, o.csv);
    }
    console.log([`${o.engine}/${o.gpu}_${o.kind}.csv`, `rows ${o.nOut}/${o.nIn}`, `${o.csv.length} B`, o.path,
      `device "${o.meta.device}"`, o.dups ? `DUPLICATE KEYS ${o.dups}` : '', o.resolved, o.dropped,
      Object.keys(o.derived).length ? `derived ${JSON.stringify(o.derived)}` : '',
      `versions ${o.seen.join(' ')}`].filter(Boolean).join('  '));
  }
  for (const eng of ENGINES) {
    const mine = outputs.filter((o) => o.engine === eng.engine);
    console.log(`${eng.engine}: ${mine.reduce((s, o) => s + o.csv.length, 0)} B in ${mine.length} files`);
  }
  console.log(`total ${total} B in ${outputs.length} files (vllm + sglang ${other} B)`);
  for (const p of problems) console.log(`NOTE ${p}`);
}

main().catch((e) => { console.error(e.stack || String(e)); process.exit(1); });
