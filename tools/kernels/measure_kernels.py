#!/usr/bin/env python3
"""Measure, on one GPU, the kernel times that collsim's step model assumes.

Usage: python3 measure_kernels.py OUT_DIR

Writes (each flushed row by row, so a timeout keeps what was measured):
  env.csv           torch / CUDA / GPU / nvidia-smi readings
  gemm_bf16.csv     torch.matmul x[M,K] @ W[K,N], bf16, Llama-3-70B shapes (TP8, TP1)
  gemm_fp8.csv      torch._scaled_mm, e4m3 x e4m3 -> bf16, per-tensor scales, same grid
  moe_bmm.csv       torch.bmm over E experts of t tokens (DeepSeek-V3 expert shapes),
                    plus torch._grouped_mm rows where it exists (kind=grouped_mm)
  attn_decode.csv   SDPA, q length 1, GQA, per backend
  attn_prefill.csv  SDPA, causal, batch 1, per backend
  hbm.csv           tensor.copy_ and x.sum() at 4 KiB .. 4 GiB
  launch.csv        launch floors: eager, in a CUDA graph, 1-token RMSNorm

Timing: CUDA events. Each measured unit is warmed up eagerly; if one call takes
under 1 ms, a CUDA graph of `inner` calls (cycling over the rotating buffers) is
captured and each rep is one replay (time / inner); otherwise each rep is one
eager call, all reps queued back to back and synchronised once. time_us is the
median over the reps, min_us the minimum. L2 is never flushed; weight-read-bound
cases rotate among several weight buffers totalling more than 4x the L2 so the
weights come from HBM (the `l2` column says what was done).
"""
import csv
import math
import os
import statistics
import subprocess
import sys
import time
import traceback
import warnings

import torch
import torch.nn.functional as F

OUT = sys.argv[1] if len(sys.argv) > 1 else "."
os.makedirs(OUT, exist_ok=True)
DEV = torch.device("cuda")
BF16 = torch.bfloat16
T0 = time.time()
warnings.filterwarnings("ignore")  # SDPA backend refusals warn per call; errors are recorded as rows


def log(*a):
    print("[%6.1fs]" % (time.time() - T0), *a, flush=True)


PROPS = torch.cuda.get_device_properties(0)
L2 = int(getattr(PROPS, "L2_cache_size", 0) or 60 * 1024 * 1024)
ROTATE_BYTES = 4 * L2  # rotate weights until the set is >= 4x L2

COMMON = ["kind", "dtype", "time_us", "min_us", "tflops", "gbps", "flops", "bytes",
          "reps", "inner", "timing", "l2", "note"]


class Csv:
    def __init__(self, name, fields):
        self.path = os.path.join(OUT, name)
        self.f = open(self.path, "w", newline="")
        self.w = csv.DictWriter(self.f, fieldnames=fields, restval="", extrasaction="ignore")
        self.w.writeheader()
        self.f.flush()

    def row(self, **kw):
        self.w.writerow(kw)
        self.f.flush()

    def close(self):
        self.f.close()


def err_text(e):
    s = "%s: %s" % (type(e).__name__, str(e))
    s = " ".join(s.split())
    return s[:300]


def free():
    torch.cuda.synchronize()
    torch.cuda.empty_cache()


def _events(n):
    return [torch.cuda.Event(enable_timing=True) for _ in range(n)]


def bench(fns, reps=15, warm=3, target_us=2000.0, max_inner=256, eager_over_us=1000.0,
          force_eager=False):
    """Time one call of fns[i]; consecutive calls cycle over fns.

    Returns dict(time_us, min_us, reps, inner, timing)."""
    n = len(fns)
    for f in fns:
        f()
    torch.cuda.synchronize()
    # rough estimate of one call (eager, includes launch cost)
    s, e = _events(2)
    s.record()
    for f in fns:
        f()
    e.record()
    e.synchronize()
    est = max(s.elapsed_time(e) * 1000.0 / n, 0.5)

    if est >= eager_over_us or force_eager:
        for i in range(warm):
            fns[i % n]()
        ev = _events(2 * reps)
        for r in range(reps):
            ev[2 * r].record()
            fns[r % n]()
            ev[2 * r + 1].record()
        torch.cuda.synchronize()
        ts = [ev[2 * r].elapsed_time(ev[2 * r + 1]) * 1000.0 for r in range(reps)]
        return dict(time_us=statistics.median(ts), min_us=min(ts), reps=reps, inner=1,
                    timing="eager, 1 call per event pair")

    inner = int(math.ceil(target_us / est))
    inner = max(n, min(max_inner, inner))
    inner = int(math.ceil(inner / n)) * n
    g = None
    try:
        st = torch.cuda.Stream()
        st.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(st):
            for f in fns:
                f()
        torch.cuda.current_stream().wait_stream(st)
        torch.cuda.synchronize()
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            for i in range(inner):
                fns[i % n]()
        torch.cuda.synchronize()
    except Exception as ex:  # capture failed: eager loop instead
        log("  graph capture failed (%s); eager loop" % err_text(ex)[:120])
        g = None
        try:
            torch.cuda.synchronize()
        except Exception:
            pass
    if g is not None:
        for _ in range(warm):
            g.replay()
        ev = _events(2 * reps)
        for r in range(reps):
            ev[2 * r].record()
            g.replay()
            ev[2 * r + 1].record()
        torch.cuda.synchronize()
        ts = [ev[2 * r].elapsed_time(ev[2 * r + 1]) * 1000.0 / inner for r in range(reps)]
        del g
        return dict(time_us=statistics.median(ts), min_us=min(ts), reps=reps, inner=inner,
                    timing="cuda graph of %d calls per replay, /%d" % (inner, inner))
    for _ in range(warm):
        for i in range(n):
            fns[i]()
    ev = _events(2 * reps)
    for r in range(reps):
        ev[2 * r].record()
        for i in range(inner):
            fns[i % n]()
        ev[2 * r + 1].record()
    torch.cuda.synchronize()
    ts = [ev[2 * r].elapsed_time(ev[2 * r + 1]) * 1000.0 / inner for r in range(reps)]
    return dict(time_us=statistics.median(ts), min_us=min(ts), reps=reps, inner=inner,
                timing="eager loop of %d calls per event pair, /%d (graph capture failed)" % (inner, inner))


def derived(res, flops, nbytes):
    t = res["time_us"] * 1e-6
    out = dict(res)
    out["flops"] = int(flops) if flops else ""
    out["bytes"] = int(nbytes) if nbytes else ""
    out["tflops"] = round(flops / t / 1e12, 3) if flops and t > 0 else ""
    out["gbps"] = round(nbytes / t / 1e9, 2) if nbytes and t > 0 else ""
    out["time_us"] = round(res["time_us"], 3)
    out["min_us"] = round(res["min_us"], 3)
    return out


def n_rotate(buf_bytes, cap=32):
    return max(1, min(cap, int(math.ceil(ROTATE_BYTES / max(buf_bytes, 1)))))


def l2_note(nbuf, buf_bytes):
    tot = nbuf * buf_bytes
    where = "> L2" if tot > L2 else "may be L2-resident"
    if nbuf > 1:
        return "no flush; rotating %d buffers of %.1f MB = %.0f MB (%s %.0f MB)" % (
            nbuf, buf_bytes / 1e6, tot / 1e6, where, L2 / 1e6)
    return "no flush; single buffer %.1f MB (%s %.0f MB)" % (buf_bytes / 1e6, where, L2 / 1e6)


def smi(fields):
    try:
        r = subprocess.run(["nvidia-smi", "--query-gpu=" + fields, "--format=csv"],
                           capture_output=True, text=True, timeout=20)
        return (r.stdout.strip() or r.stderr.strip()).replace("\n", " | ")
    except Exception as e:
        return "nvidia-smi failed: " + err_text(e)


# ---------------------------------------------------------------- env
ENV = Csv("env.csv", ["key", "value"])


def env_rows(stage):
    ENV.row(key="nvidia-smi %s" % stage,
            value=smi("name,clocks.sm,clocks.max.sm,clocks.mem,driver_version"))
    ENV.row(key="nvidia-smi extra %s" % stage,
            value=smi("clocks.max.mem,power.draw,power.limit,temperature.gpu,memory.total,pstate"))


def section_env():
    ENV.row(key="date_utc", value=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
    ENV.row(key="python", value=sys.version.split()[0])
    ENV.row(key="torch", value=torch.__version__)
    ENV.row(key="torch.version.cuda", value=torch.version.cuda)
    try:
        ENV.row(key="cudnn", value=torch.backends.cudnn.version())
    except Exception as e:
        ENV.row(key="cudnn", value=err_text(e))
    try:
        import triton
        ENV.row(key="triton", value=triton.__version__)
    except Exception as e:
        ENV.row(key="triton", value=err_text(e))
    ENV.row(key="gpu_name", value=PROPS.name)
    ENV.row(key="compute_capability", value="%d.%d" % (PROPS.major, PROPS.minor))
    ENV.row(key="sm_count", value=PROPS.multi_processor_count)
    ENV.row(key="l2_bytes", value=L2)
    ENV.row(key="total_memory_bytes", value=PROPS.total_memory)
    ENV.row(key="allow_tf32_matmul", value=torch.backends.cuda.matmul.allow_tf32)
    ENV.row(key="bf16_reduced_precision_reduction",
            value=torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction)
    env_rows("at start")


# ---------------------------------------------------------------- GEMM
M_LIST = [1, 2, 4, 8, 16, 32, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 2048, 4096, 8192, 16384]
SHAPES = [  # name, N, K
    ("qkv_tp8", 1280, 8192),
    ("o_tp8", 8192, 1024),
    ("gate_up_tp8", 7168, 8192),
    ("down_tp8", 8192, 3584),
    ("gate_up_tp1", 57344, 8192),
    ("down_tp1", 8192, 28672),
]
GEMM_FIELDS = ["kind", "shape", "dtype", "M", "N", "K", "fast_accum", "time_us", "min_us",
               "tflops", "gbps", "flops", "bytes", "intensity", "reps", "inner", "timing", "l2",
               "layout", "note"]


def section_gemm_bf16():
    out = Csv("gemm_bf16.csv", GEMM_FIELDS)
    try:
        plan = [(name, N, K, M_LIST) for name, N, K in SHAPES] + [("square", 8192, 8192, [8192])]
        for name, N, K, ms in plan:
            try:
                wb = K * N * 2
                nbuf = n_rotate(wb)
                W0 = torch.randn(K, N, device=DEV, dtype=BF16)
                Ws = [W0] + [W0.clone() for _ in range(nbuf - 1)]
                for M in ms:
                    try:
                        x = torch.randn(M, K, device=DEV, dtype=BF16)
                        fns = [(lambda W=W: torch.matmul(x, W)) for W in Ws]
                        res = bench(fns)
                        flops = 2.0 * M * N * K
                        nbytes = (M * K + K * N + M * N) * 2
                        d = derived(res, flops, nbytes)
                        out.row(kind="matmul", shape=name, dtype="bf16", M=M, N=N, K=K,
                                intensity=round(flops / nbytes, 1), l2=l2_note(nbuf, wb),
                                layout="x[M,K] row-major @ W[K,N] row-major", **d)
                        log("bf16 %-12s M=%-5d %9.2f us %8.1f TF/s %7.0f GB/s" % (
                            name, M, d["time_us"], d["tflops"] or 0, d["gbps"] or 0))
                        del x, fns
                    except Exception as e:
                        out.row(kind="matmul", shape=name, dtype="bf16", M=M, N=N, K=K,
                                note="ERROR " + err_text(e))
                        log("bf16 %s M=%d ERROR %s" % (name, M, err_text(e)))
                del W0, Ws
                free()
            except Exception as e:
                out.row(kind="matmul", shape=name, dtype="bf16", N=N, K=K, note="ERROR " + err_text(e))
                log("bf16 %s ERROR %s" % (name, err_text(e)))
                free()
    finally:
        out.close()
        free()


def section_gemm_fp8():
    out = Csv("gemm_fp8.csv", GEMM_FIELDS)
    f8 = torch.float8_e4m3fn
    try:
        sa = torch.ones((), device=DEV, dtype=torch.float32)
        sb = torch.ones((), device=DEV, dtype=torch.float32)
        plan = [(name, N, K, M_LIST) for name, N, K in SHAPES] + [("square", 8192, 8192, [8192])]
        for name, N, K, ms in plan:
            try:
                wb = K * N
                nbuf = n_rotate(wb)
                W0 = torch.randn(N, K, device=DEV, dtype=BF16).to(f8)  # [N,K] contiguous
                Ws = [W0] + [W0.clone() for _ in range(nbuf - 1)]
                Bs = [W.t() for W in Ws]  # [K,N] column-major, as _scaled_mm wants
                for M in ms:
                    x = torch.randn(M, K, device=DEV, dtype=BF16).to(f8)
                    for fast in (False, True):
                        try:
                            fns = [(lambda B=B, fast=fast: torch._scaled_mm(
                                x, B, scale_a=sa, scale_b=sb, out_dtype=BF16,
                                use_fast_accum=fast)) for B in Bs]
                            res = bench(fns)
                            flops = 2.0 * M * N * K
                            nbytes = M * K + K * N + M * N * 2
                            d = derived(res, flops, nbytes)
                            out.row(kind="scaled_mm", shape=name, dtype="fp8_e4m3->bf16", M=M, N=N,
                                    K=K, fast_accum=fast, intensity=round(flops / nbytes, 1),
                                    l2=l2_note(nbuf, wb),
                                    layout="x[M,K] row-major @ W[N,K].t() (column-major); per-tensor scales",
                                    **d)
                            log("fp8  %-12s M=%-5d fa=%d %9.2f us %8.1f TF/s %7.0f GB/s" % (
                                name, M, fast, d["time_us"], d["tflops"] or 0, d["gbps"] or 0))
                        except Exception as e:
                            out.row(kind="scaled_mm", shape=name, dtype="fp8_e4m3->bf16", M=M, N=N,
                                    K=K, fast_accum=fast, note="ERROR " + err_text(e))
                            log("fp8 %s M=%d ERROR %s" % (name, M, err_text(e)))
                    del x
                del W0, Ws, Bs
                free()
            except Exception as e:
                out.row(kind="scaled_mm", shape=name, dtype="fp8_e4m3->bf16", N=N, K=K,
                        note="ERROR " + err_text(e))
                log("fp8 %s ERROR %s" % (name, err_text(e)))
                free()
    finally:
        out.close()
        free()


# ---------------------------------------------------------------- MoE
MOE_FIELDS = ["kind", "shape", "dtype", "E", "t", "N", "K", "time_us", "min_us", "tflops", "gbps",
              "flops", "bytes", "reps", "inner", "timing", "l2", "layout", "note"]
MOE_SHAPES = [("gate_up", 4096, 7168), ("down", 7168, 2048)]  # DeepSeek-V3: hidden 7168, moe_inter 2048
MOE_E = [8, 32, 256]
MOE_T = [1, 4, 16, 64, 256]
MOE = None


def section_moe_bmm():
    out = MOE
    for name, N, K in MOE_SHAPES:
        for E in MOE_E:
            try:
                wb = E * K * N * 2
                W = torch.randn(E, K, N, device=DEV, dtype=BF16)
                for t in MOE_T:
                    try:
                        x = torch.randn(E, t, K, device=DEV, dtype=BF16)
                        res = bench([lambda: torch.bmm(x, W)])
                        flops = 2.0 * E * t * N * K
                        nbytes = wb + E * t * (K + N) * 2
                        d = derived(res, flops, nbytes)
                        out.row(kind="bmm", shape=name, dtype="bf16", E=E, t=t, N=N, K=K,
                                l2=l2_note(1, wb), layout="x[E,t,K] @ W[E,K,N] row-major", **d)
                        log("bmm  %-8s E=%-3d t=%-3d %9.2f us %8.1f TF/s %7.0f GB/s" % (
                            name, E, t, d["time_us"], d["tflops"] or 0, d["gbps"] or 0))
                        del x
                    except Exception as e:
                        out.row(kind="bmm", shape=name, dtype="bf16", E=E, t=t, N=N, K=K,
                                note="ERROR " + err_text(e))
                        log("bmm %s E=%d t=%d ERROR %s" % (name, E, t, err_text(e)))
                del W
                free()
            except Exception as e:
                out.row(kind="bmm", shape=name, dtype="bf16", E=E, N=N, K=K, note="ERROR " + err_text(e))
                log("bmm %s E=%d ERROR %s" % (name, E, err_text(e)))
                free()


def section_grouped_mm():
    """torch._grouped_mm (private; the kernel MoE layers in torch use), if present."""
    out = MOE
    if not hasattr(torch, "_grouped_mm"):
        out.row(kind="grouped_mm", note="torch._grouped_mm not present")
        return
    for name, N, K in MOE_SHAPES:
        for E in (8, 32, 256):
            try:
                wb = E * K * N * 2
                Wn = torch.randn(E, N, K, device=DEV, dtype=BF16)
                B = Wn.transpose(-2, -1)  # [E,K,N], column-major per expert
                for t in MOE_T:
                    try:
                        a = torch.randn(E * t, K, device=DEV, dtype=BF16)
                        offs = (torch.arange(1, E + 1, device=DEV, dtype=torch.int32) * t)
                        res = bench([lambda: torch._grouped_mm(a, B, offs=offs, out_dtype=BF16)])
                        flops = 2.0 * E * t * N * K
                        nbytes = wb + E * t * (K + N) * 2
                        d = derived(res, flops, nbytes)
                        out.row(kind="grouped_mm", shape=name, dtype="bf16", E=E, t=t, N=N, K=K,
                                l2=l2_note(1, wb),
                                layout="a[E*t,K] row-major, B[E,N,K].transpose(-2,-1), offs=t*(1..E)",
                                **d)
                        log("gmm  %-8s E=%-3d t=%-3d %9.2f us %8.1f TF/s %7.0f GB/s" % (
                            name, E, t, d["time_us"], d["tflops"] or 0, d["gbps"] or 0))
                        del a, offs
                    except Exception as e:
                        out.row(kind="grouped_mm", shape=name, dtype="bf16", E=E, t=t, N=N, K=K,
                                note="ERROR " + err_text(e))
                        log("gmm %s E=%d t=%d ERROR %s" % (name, E, t, err_text(e)))
                del Wn, B
                free()
            except Exception as e:
                out.row(kind="grouped_mm", shape=name, dtype="bf16", E=E, N=N, K=K,
                        note="ERROR " + err_text(e))
                log("gmm %s E=%d ERROR %s" % (name, E, err_text(e)))
                free()


# ---------------------------------------------------------------- attention
ATTN_FIELDS = ["kind", "config", "dtype", "backend", "default_choice", "batch", "q_len", "ctx",
               "hq", "hkv", "hd", "time_us", "min_us", "tflops", "gbps", "flops", "bytes", "reps",
               "inner", "timing", "l2", "note"]
HEADS = [("llama70b_tp8", 8, 1, 128), ("llama70b_tp1", 64, 8, 128)]


def _backends():
    try:
        from torch.nn.attention import SDPBackend, sdpa_kernel
    except Exception:
        return [("default", None)], None
    bl = [("default", None)]
    for nm, attr in (("flash", "FLASH_ATTENTION"), ("efficient", "EFFICIENT_ATTENTION"),
                     ("cudnn", "CUDNN_ATTENTION")):
        if hasattr(SDPBackend, attr):
            bl.append((nm, getattr(SDPBackend, attr)))
    return bl, sdpa_kernel


_BK_NAMES = {-1: "error/none", 0: "math", 1: "flash", 2: "efficient", 3: "cudnn", 4: "overrideable"}


def default_choice(q, k, v, causal):
    try:
        c = torch._fused_sdp_choice(q, k, v, None, 0.0, causal, scale=None, enable_gqa=True)
        return _BK_NAMES.get(int(c), str(c))
    except Exception as e:
        return "unknown (%s)" % err_text(e)[:80]


def make_sdpa(q, k, v, causal, bk, sdpa_kernel):
    if bk is None:
        return lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=True)

    def f():
        with sdpa_kernel([bk]):
            return F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=True)
    return f


def section_attn_decode():
    out = Csv("attn_decode.csv", ATTN_FIELDS)
    bl, sdpa_kernel = _backends()
    try:
        for cfg, hq, hkv, hd in HEADS:
            for B in (1, 8, 32, 128, 256):
                for S in (512, 2048, 8192, 32768):
                    kvb = 2 * B * hkv * S * hd * 2
                    if kvb > 40e9:
                        out.row(kind="sdpa_decode", config=cfg, batch=B, q_len=1, ctx=S, hq=hq,
                                hkv=hkv, hd=hd, bytes=kvb, note="skipped: KV > 40 GB")
                        continue
                    try:
                        nbuf = n_rotate(kvb, cap=16)
                        q = torch.randn(B, hq, 1, hd, device=DEV, dtype=BF16)
                        kvs = []
                        for _ in range(nbuf):
                            kvs.append((torch.randn(B, hkv, S, hd, device=DEV, dtype=BF16),
                                        torch.randn(B, hkv, S, hd, device=DEV, dtype=BF16)))
                        choice = default_choice(q, kvs[0][0], kvs[0][1], False)
                        flops = 4.0 * B * hq * S * hd
                        nbytes = kvb + 2 * B * hq * hd * 2
                        for bname, bk in bl:
                            try:
                                fns = [make_sdpa(q, k, v, False, bk, sdpa_kernel) for k, v in kvs]
                                res = bench(fns)
                                d = derived(res, flops, nbytes)
                                out.row(kind="sdpa_decode", config=cfg, dtype="bf16", backend=bname,
                                        default_choice=choice, batch=B, q_len=1, ctx=S, hq=hq,
                                        hkv=hkv, hd=hd, l2=l2_note(nbuf, kvb),
                                        note="enable_gqa=True; gbps counts K+V+q+out bytes", **d)
                                log("dec  %s B=%-3d S=%-5d %-9s %9.2f us %7.0f GB/s" % (
                                    cfg, B, S, bname, d["time_us"], d["gbps"] or 0))
                            except Exception as e:
                                out.row(kind="sdpa_decode", config=cfg, dtype="bf16", backend=bname,
                                        default_choice=choice, batch=B, q_len=1, ctx=S, hq=hq,
                                        hkv=hkv, hd=hd, note="ERROR " + err_text(e))
                                log("dec %s B=%d S=%d %s ERROR %s" % (cfg, B, S, bname, err_text(e)[:150]))
                        fns = None
                        del q, kvs
                        free()
                    except Exception as e:
                        out.row(kind="sdpa_decode", config=cfg, batch=B, q_len=1, ctx=S, hq=hq,
                                hkv=hkv, hd=hd, note="ERROR " + err_text(e))
                        log("dec %s B=%d S=%d ERROR %s" % (cfg, B, S, err_text(e)))
                        free()
    finally:
        out.close()
        free()


def section_attn_prefill():
    out = Csv("attn_prefill.csv", ATTN_FIELDS)
    bl, sdpa_kernel = _backends()
    try:
        for cfg, hq, hkv, hd in HEADS:
            for S in (512, 1024, 2048, 4096, 8192, 16384):
                try:
                    q = torch.randn(1, hq, S, hd, device=DEV, dtype=BF16)
                    k = torch.randn(1, hkv, S, hd, device=DEV, dtype=BF16)
                    v = torch.randn(1, hkv, S, hd, device=DEV, dtype=BF16)
                    choice = default_choice(q, k, v, True)
                    flops = 2.0 * 2.0 * S * S * hq * hd / 2.0
                    nbytes = (2 * hq + 2 * hkv) * S * hd * 2
                    for bname, bk in bl:
                        try:
                            res = bench([make_sdpa(q, k, v, True, bk, sdpa_kernel)])
                            d = derived(res, flops, nbytes)
                            out.row(kind="sdpa_prefill_causal", config=cfg, dtype="bf16",
                                    backend=bname, default_choice=choice, batch=1, q_len=S, ctx=S,
                                    hq=hq, hkv=hkv, hd=hd, l2=l2_note(1, nbytes),
                                    note="enable_gqa=True; flops = 2*2*S^2*hq*hd/2 (causal)", **d)
                            log("pre  %s S=%-5d %-9s %9.2f us %7.1f TF/s" % (
                                cfg, S, bname, d["time_us"], d["tflops"] or 0))
                        except Exception as e:
                            out.row(kind="sdpa_prefill_causal", config=cfg, dtype="bf16",
                                    backend=bname, default_choice=choice, batch=1, q_len=S, ctx=S,
                                    hq=hq, hkv=hkv, hd=hd, note="ERROR " + err_text(e))
                            log("pre %s S=%d %s ERROR %s" % (cfg, S, bname, err_text(e)[:150]))
                    del q, k, v
                    free()
                except Exception as e:
                    out.row(kind="sdpa_prefill_causal", config=cfg, q_len=S, ctx=S, hq=hq, hkv=hkv,
                            hd=hd, note="ERROR " + err_text(e))
                    log("pre %s S=%d ERROR %s" % (cfg, S, err_text(e)))
                    free()
    finally:
        out.close()
        free()


# ---------------------------------------------------------------- HBM
HBM_FIELDS = ["kind", "dtype", "size_bytes", "time_us", "min_us", "gbps", "bytes", "reps", "inner",
              "timing", "l2", "note"]


def section_hbm():
    out = Csv("hbm.csv", HBM_FIELDS)
    try:
        size = 4096
        while size <= 4 * 1024 ** 3:
            n = size // 4
            try:
                x = torch.randn(n, device=DEV, dtype=torch.float32)
                y = torch.empty_like(x)
                for kind in ("copy", "sum"):
                    try:
                        if kind == "copy":
                            fn = lambda: y.copy_(x)
                            nbytes = 2 * size
                            ws = 2 * size
                        else:
                            fn = lambda: x.sum()
                            nbytes = size
                            ws = size
                        res = bench([fn], reps=20)
                        d = derived(res, 0, nbytes)
                        out.row(kind=kind, dtype="fp32", size_bytes=size, l2=l2_note(1, ws),
                                note="gbps counts bytes read%s" % (" + written" if kind == "copy" else ""),
                                **d)
                        log("hbm  %-4s %11d B %9.2f us %8.1f GB/s" % (kind, size, d["time_us"], d["gbps"]))
                    except Exception as e:
                        out.row(kind=kind, dtype="fp32", size_bytes=size, note="ERROR " + err_text(e))
                        log("hbm %s %d ERROR %s" % (kind, size, err_text(e)))
                del x, y
                free()
            except Exception as e:
                out.row(kind="alloc", size_bytes=size, note="ERROR " + err_text(e))
                log("hbm %d ERROR %s" % (size, err_text(e)))
                free()
            size *= 4
    finally:
        out.close()
        free()


# ---------------------------------------------------------------- launch floors
LAUNCH_FIELDS = ["kind", "dtype", "shape", "mode", "kernels_per_unit", "time_us", "min_us",
                 "reps", "inner", "timing", "note"]


def _time_loop(body, reps):
    """body() issues some work; one event pair around it per rep (queued back to back)."""
    ev = _events(2 * reps)
    for r in range(reps):
        ev[2 * r].record()
        body()
        ev[2 * r + 1].record()
    torch.cuda.synchronize()
    return [ev[2 * r].elapsed_time(ev[2 * r + 1]) * 1000.0 for r in range(reps)]


def _graph_of(fn, count):
    st = torch.cuda.Stream()
    st.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(st):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(st)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(count):
            fn()
    torch.cuda.synchronize()
    return g


LAUNCH = None


def launch_cases():
    a = torch.ones(1, device=DEV, dtype=torch.float32)
    c = torch.empty_like(a)
    x = torch.randn(1, 8192, device=DEV, dtype=BF16)
    w = torch.randn(8192, device=DEV, dtype=BF16)
    yb = torch.empty_like(x)

    def rms_manual():
        xf = x.float()
        return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-5)).to(BF16) * w

    return [
        ("add_1elem", "fp32", "[1]", lambda: torch.add(a, a, out=c), 1),
        ("mul_1x8192", "bf16", "[1,8192]", lambda: torch.mul(x, w, out=yb), 1),
        ("rms_norm_F", "bf16", "[1,8192]",
         lambda: F.rms_norm(x, (8192,), w, 1e-5) if hasattr(F, "rms_norm") else None, None),
        ("rms_norm_manual", "bf16", "[1,8192]", rms_manual, None),
    ]


def section_kernel_counts():
    """How many GPU activities one call of each launch case makes (torch.profiler), best effort."""
    out = LAUNCH
    cases = launch_cases()
    from torch.profiler import profile, ProfilerActivity
    for name, dt, shape, fn, kpu in cases:
        fn()
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            fn()
            torch.cuda.synchronize()
        nk = sum(1 for e in prof.events() if str(getattr(e, "device_type", "")).endswith("CUDA"))
        out.row(kind=name, dtype=dt, shape=shape, mode="profile", kernels_per_unit=nk,
                note="GPU activities seen by torch.profiler for one call")
        log("launch %-16s kernels/call %d" % (name, nk))


def section_launch():
    out = LAUNCH
    reps = 15
    try:
        cases = launch_cases()
        for name, dt, shape, fn, kpu in cases:
            # eager: 1000 calls inside one event pair
            try:
                for _ in range(50):
                    fn()
                torch.cuda.synchronize()

                def body():
                    for _ in range(1000):
                        fn()
                ts = [t / 1000.0 for t in _time_loop(body, reps)]
                out.row(kind=name, dtype=dt, shape=shape, mode="eager", kernels_per_unit=kpu or "",
                        time_us=round(statistics.median(ts), 3), min_us=round(min(ts), 3), reps=reps,
                        inner=1000, timing="1000 eager calls per event pair, /1000",
                        note="per call; includes the host's launch cost (CPU-bound)")
                log("launch %-16s eager %7.3f us/call" % (name, statistics.median(ts)))
            except Exception as e:
                out.row(kind=name, mode="eager", note="ERROR " + err_text(e))
                log("launch %s eager ERROR %s" % (name, err_text(e)))
            # graph of 100 calls, 20 replays per event pair
            try:
                g = _graph_of(fn, 100)
                for _ in range(5):
                    g.replay()

                def body():
                    for _ in range(20):
                        g.replay()
                ts = [t / 2000.0 for t in _time_loop(body, reps)]
                out.row(kind=name, dtype=dt, shape=shape, mode="graph100", kernels_per_unit=kpu or "",
                        time_us=round(statistics.median(ts), 3), min_us=round(min(ts), 3), reps=reps,
                        inner=2000, timing="20 replays of a 100-call graph per event pair, /2000",
                        note="per call inside a CUDA graph")
                log("launch %-16s graph %7.3f us/call" % (name, statistics.median(ts)))
                del g
            except Exception as e:
                out.row(kind=name, mode="graph100", note="ERROR " + err_text(e))
                log("launch %s graph ERROR %s" % (name, err_text(e)))
            # graph of 1 call, 1000 replays per event pair (graph-launch floor)
            if name == "add_1elem":
                try:
                    g = _graph_of(fn, 1)
                    for _ in range(20):
                        g.replay()

                    def body():
                        for _ in range(1000):
                            g.replay()
                    ts = [t / 1000.0 for t in _time_loop(body, reps)]
                    out.row(kind=name, dtype=dt, shape=shape, mode="graph1_replay", kernels_per_unit=1,
                            time_us=round(statistics.median(ts), 3), min_us=round(min(ts), 3),
                            reps=reps, inner=1000,
                            timing="1000 replays of a 1-kernel graph per event pair, /1000",
                            note="per graph replay (host launch of a graph)")
                    log("launch %-16s graph1 replay %7.3f us" % (name, statistics.median(ts)))
                    del g
                except Exception as e:
                    out.row(kind=name, mode="graph1_replay", note="ERROR " + err_text(e))
                    log("launch graph1 ERROR %s" % err_text(e))
    finally:
        free()


# ---------------------------------------------------------------- main
def run(name, fn):
    t = time.time()
    log("=== %s" % name)
    try:
        fn()
    except Exception as e:
        log("SECTION %s FAILED: %s" % (name, err_text(e)))
        traceback.print_exc()
        try:
            ENV.row(key="section_error %s" % name, value=err_text(e))
        except Exception:
            pass
    dt = time.time() - t
    log("=== %s done in %.1f s" % (name, dt))
    try:
        ENV.row(key="section_seconds %s" % name, value=round(dt, 1))
    except Exception:
        pass


def main():
    global MOE, LAUNCH
    run("env", section_env)
    run("gemm_bf16", section_gemm_bf16)
    env_rows("after gemm_bf16")
    run("attn_decode", section_attn_decode)
    run("attn_prefill", section_attn_prefill)
    run("gemm_fp8", section_gemm_fp8)
    LAUNCH = Csv("launch.csv", LAUNCH_FIELDS)
    run("launch", section_launch)
    run("hbm", section_hbm)
    MOE = Csv("moe_bmm.csv", MOE_FIELDS)
    run("moe_bmm", section_moe_bmm)
    run("grouped_mm", section_grouped_mm)
    MOE.close()
    run("kernel_counts", section_kernel_counts)
    LAUNCH.close()
    env_rows("at end")
    ENV.row(key="total_seconds", value=round(time.time() - T0, 1))
    ENV.close()
    log("done")


if __name__ == "__main__":
    main()
