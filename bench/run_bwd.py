#!/usr/bin/env python3
"""Validate and benchmark the generated fmha backward kernels on an NVIDIA GPU.

Reads what bench/build_kernels.py wrote (per configuration: <name>.ptx, the
fmha-dump-binary sidecar <name>.ptx.json with each kernel's recorded signature
and `rocke.launch` facts, and <name>.config.json), loads the PTX with CuPy,
and in one process:

1. validation: for each configuration and problem size, random inputs, O and
   LSE from a float32 forward, scratch buffers allocated from the argument
   roles, the kernels launched in `order` with grids evaluated from their
   expressions; dQ, dK, dV compared with the float32 autograd of
   torch.nn.functional.scaled_dot_product_attention (max abs and relative
   error; a case fails past max(3 x PyTorch's own low-precision error,
   floor)); deterministic configurations must give identical bits twice.
2. benchmark: TFLOP/s = 10*B*Hq*Sq*Sk*D (halved for causal) / median time of
   >= 10 CUDA-event-timed iterations after warm-up, ours (tiled) against the
   backward of the peers of bench/peers.py: SDPA pinned to its cuDNN backend
   (SDPBackend.CUDNN_ATTENTION, the H200's default) and to its flash backend
   (FLASH_ATTENTION, FlashAttention-2), and FlexAttention compiled per shape
   (torch.compile(flex_attention, dynamic=False); a Flex cell Dynamo ran
   eagerly is an error, "eager fallback").

Needs PyTorch and CuPy (both on the H200 image); plain python3 otherwise.
  python3 bench/run_bwd.py [--dir bench/out] [--out DIR] [--skip-bench]
                           [--skip-validate] [--only SUBSTRING ...]
"""
import argparse
import json
import math
import os
import statistics
import sys
import time

from pathlib import Path

import torch
import torch.nn.functional as F
from torch.nn.attention import sdpa_kernel

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
from rocke.kernel_abi import launch_list  # noqa: E402
from rocke.launch_cuda import RecipeModule, launch_packed  # noqa: E402
from rocke.torch import buffer_of  # noqa: E402

from cases import (BENCH_HEADS, backward_flops, bench_batch, config_names,
                   mask_label, sanitize_sizes, validation_sizes,
                   write_report)
from peers import (bench_header, bench_line, causal_block_mask,
                   compiled_flex, markdown_bench, raise_recompile_limits,
                   sdpa_default_backend, time_peers)

try:
    import cupy as cp
except ImportError as e:  # pragma: no cover - depends on the machine
    sys.exit("run_bwd.py needs CuPy: %s" % e)

DTYPES = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32}
# Relative-error floors (max abs error / max |reference|) below which a
# result passes whatever PyTorch's own low-precision error is.
REL_FLOOR = {"f16": 2e-3, "bf16": 1.6e-2}


class KernelModule:
    """One configuration's PTX module (a backward, a forward or both) and
    its launch recipe: the kernels in launch order, bound to tensors by
    argument role (rocke.kernel_abi's launch plans)."""

    def __init__(self, directory, name):
        with open(os.path.join(directory, name + ".config.json")) as f:
            self.cfg = json.load(f)["config"]
        with open(os.path.join(directory, name + ".ptx.json")) as f:
            kernels = launch_list(json.load(f))
        self.module = RecipeModule(os.path.join(directory, name + ".ptx"),
                                   kernels)
        self.kernels = [(k, self.module.functions[k["name"]])
                        for k in kernels]

    def bind(self, env, tensors, scratch_fill=None):
        """Launch list [(CUfunction, PackedLaunch)] for one problem, each
        grid checked against the recipe's limits; the scratch buffers are
        allocated here (filled with `scratch_fill` to catch kernels that
        read what nobody wrote) and kept alive by the list."""
        launches = BoundLaunches()

        def allocate(name, elt, shape, init):
            buf = torch.empty(shape, dtype=DTYPES[elt], device="cuda")
            if scratch_fill is not None:
                buf.fill_(scratch_fill)
            launches.scratch.append(buf)
            return buffer_of(buf)

        for l in self.module.plans.get(env).pack(
                {r: buffer_of(t) for r, t in tensors.items()}, allocate):
            launches.append((self.module.pointers[l.kernel], l))
        return launches

    @staticmethod
    def launch(launches):
        stream = torch.cuda.current_stream().cuda_stream
        for fn, l in launches:
            launch_packed(fn, l, stream)


class BoundLaunches(list):
    """A launch list holding the scratch tensors its arguments point to."""

    def __init__(self):
        super().__init__()
        self.scratch = []


# --------------------------------------------------------------------------
# Problems, references
# --------------------------------------------------------------------------

def visible_mask(cfg, sq, sk):
    """[Sq, Sk] bool, True where key k is visible from query q (the band of
    dialect/Mask.h), or None for no mask."""
    kind = cfg["mask"]
    if kind == "none":
        return None
    off = sk - sq if cfg["alignment"] == "bottom_right" else 0
    q = torch.arange(sq, device="cuda")[:, None]
    k = torch.arange(sk, device="cuda")[None, :]
    if kind == "causal":
        return k <= q + off
    if kind == "sliding_window":
        return (q + off - cfg["left"] <= k) & (k <= q + off + cfg["right"])
    return q + off - k < cfg["left"]  # one_sided_window


def make_problem(cfg, b, sq, sk, seed=0):
    """Inputs [B,H,S,D] (torch layout; the kernels see the logical
    [B,S,H,D] view through strides), O and LSE from a float32 forward."""
    g = torch.Generator(device="cuda").manual_seed(seed)
    dt = DTYPES[cfg["dtype"]]
    hq, hkv, d = cfg["Hq"], cfg["Hkv"], cfg["D"]

    def rnd(*shape):
        return torch.randn(*shape, generator=g, device="cuda",
                           dtype=torch.float32).to(dt)

    q, k, v = rnd(b, hq, sq, d), rnd(b, hkv, sk, d), rnd(b, hkv, sk, d)
    do = rnd(b, hq, sq, d)
    scale = 1.0 / math.sqrt(d)
    mask = visible_mask(cfg, sq, sk)
    o = torch.empty(b, hq, sq, d, device="cuda", dtype=dt)
    lse = torch.empty(b, hq, sq, device="cuda", dtype=torch.float32)
    group = hq // hkv
    for bi in range(b):
        for h in range(hq):
            s = (q[bi, h].float() @ k[bi, h // group].float().T) * scale
            if mask is not None:
                s.masked_fill_(~mask, float("-inf"))
            l = torch.logsumexp(s, dim=-1)
            lse[bi, h] = l
            o[bi, h] = (torch.exp(s - l[:, None]) @ v[bi, h // group].float()
                        ).to(dt)
    return dict(q=q, k=k, v=v, do=do, o=o, lse=lse, mask=mask, scale=scale)


def sdpa(q, k, v, p, cfg):
    """SDPA with the configuration's mask (is_causal for top-left causal so
    the flash/cuDNN kernels apply)."""
    gqa = cfg["Hq"] != cfg["Hkv"]
    if cfg["mask"] == "causal" and cfg["alignment"] == "top_left":
        return F.scaled_dot_product_attention(q, k, v, is_causal=True,
                                              scale=p["scale"],
                                              enable_gqa=gqa)
    return F.scaled_dot_product_attention(q, k, v, attn_mask=p["mask"],
                                          scale=p["scale"], enable_gqa=gqa)


def sdpa_grads(p, cfg, dtype):
    q, k, v = (p[n].detach().to(dtype, copy=True).requires_grad_()
               for n in ("q", "k", "v"))
    out = sdpa(q, k, v, p, cfg)
    return torch.autograd.grad(out, (q, k, v), p["do"].to(dtype))


def logical(t):
    """[B,H,S,D] tensor -> the [B,S,H,D] view the memrefs describe."""
    return t.permute(0, 2, 1, 3)


def our_tensors(p):
    t = {n: logical(p[n]) for n in ("q", "k", "v", "o", "do")}
    t["lse"] = p["lse"]
    t["dq"] = logical(torch.empty_like(p["q"]))
    t["dk"] = logical(torch.empty_like(p["k"]))
    t["dv"] = logical(torch.empty_like(p["v"]))
    return t


def env_of(cfg, b, sq, sk):
    env = dict(B=b, Sq=sq, Sk=sk, Hq=cfg["Hq"], Hkv=cfg["Hkv"],
               Dqk=cfg["D"], Dv=cfg["D"])
    return env


def rel_err(x, ref):
    err = (x.float() - ref).abs().max().item()
    return err, err / max(ref.abs().max().item(), 1e-30)


# --------------------------------------------------------------------------
# Validation
# --------------------------------------------------------------------------

def fail(row, note):
    row["ok"] = False
    row["notes"] += note + "; "


def check_against(row, name, x, ref, low, floor):
    """Record row[name]: x's error against the float32 `ref` next to that of
    PyTorch's low-precision result `low`; x fails past max(3 x PyTorch's
    error, floor) or when not finite."""
    abs_e, rel = rel_err(x, ref)
    _, rel_torch = rel_err(low, ref)
    tol = max(3 * rel_torch, floor)
    finite = bool(torch.isfinite(x).all())
    row[name] = dict(abs=abs_e, rel=rel, torch_rel=rel_torch, tol=tol)
    if not finite or not rel <= tol:
        fail(row, "%s %s" % (name, "non-finite" if not finite
                             else "rel %.2e > %.2e" % (rel, tol)))


def check_grads(row, cfg, p, t):
    """Our dQ, dK, dV (t's [B,S,H,D] views) against the float32 autograd of
    SDPA on problem p, PyTorch's low-precision autograd setting the
    tolerance."""
    ref = sdpa_grads(p, cfg, torch.float32)
    low = sdpa_grads(p, cfg, DTYPES[cfg["dtype"]])
    for name, r, lo in zip(("dq", "dk", "dv"), ref, low):
        check_against(row, name, t[name].permute(0, 2, 1, 3), r, lo,
                      REL_FLOOR[cfg["dtype"]])


def launch_timed(launches):
    """Run a launch list once; wall milliseconds."""
    torch.cuda.synchronize()
    t0 = time.time()
    KernelModule.launch(launches)
    torch.cuda.synchronize()
    return (time.time() - t0) * 1e3


def validate(bw, b, sq, sk, log):
    cfg = bw.cfg
    p = make_problem(cfg, b, sq, sk)
    t = our_tensors(p)
    env = env_of(cfg, b, sq, sk)
    ms = launch_timed(bw.bind(env, t, scratch_fill=float("nan")))
    row = dict(name=cfg["name"], strategy=cfg["strategy"], dtype=cfg["dtype"],
               D=cfg["D"], Hq=cfg["Hq"], Hkv=cfg["Hkv"],
               mask=mask_label(cfg), B=b, Sq=sq, Sk=sk,
               det=cfg["deterministic"], ms=ms, ok=True, notes="")
    check_grads(row, cfg, p, t)
    if cfg["deterministic"]:
        ours = [t[n] for n in ("dq", "dk", "dv")]
        first = [x.clone() for x in ours]
        for x in ours:
            x.zero_()
        KernelModule.launch(bw.bind(env, t, scratch_fill=float("nan")))
        torch.cuda.synchronize()
        same = all(torch.equal(a.view(torch.int16), c.view(torch.int16))
                   for a, c in zip(first, ours))
        row["bitwise_repeat"] = same
        if not same:
            fail(row, "bits differ between two runs")
    log(row)
    return row


def print_validation_row(r):
    def e(n):
        return "%.1e/%.1e" % (r[n]["rel"], r[n]["torch_rel"])
    print("%-5s %-4s %3d %2d/%-2d %-13s %5d %5d %-3s | dq %s  dk %s  dv %s |"
          " %8.1f ms | %s %s" % (
              r["strategy"], r["dtype"], r["D"], r["Hq"], r["Hkv"], r["mask"],
              r["Sq"], r["Sk"], "det" if r["det"] else "", e("dq"), e("dk"),
              e("dv"), r["ms"], "PASS" if r["ok"] else "FAIL",
              r["notes"]), flush=True)


# --------------------------------------------------------------------------
# Benchmark
# --------------------------------------------------------------------------

def time_ms(fn, iters, warmup):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(iters):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(
            enable_timing=True)
        s.record()
        fn()
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e))
    return statistics.median(times)


def time_within_budget(fn, iters, flops, budget_left):
    """{ms, tflops}: fn's median time over `iters` runs, or {error} when,
    judged by one timed run, they would not fit in the time budget."""
    one = time_ms(fn, 1, 1)
    warm = 3 if one < 200 else 1
    if one * (iters + warm) / 1e3 > budget_left():
        return dict(error="skipped: one iteration %.0f ms, %d would exceed "
                    "the time budget" % (one, iters + warm))
    ms = time_ms(fn, iters, warm)
    return dict(ms=ms, tflops=flops / ms / 1e9)


def bench_point(bw, cfg, s, d, causal, iters, budget_left, baselines=True):
    b = bench_batch(s)
    h = BENCH_HEADS
    flops = backward_flops(b, h, s, s, d, causal)
    dt = torch.bfloat16
    g = torch.Generator(device="cuda").manual_seed(1)
    q, k, v, do = (torch.randn(b, h, s, d, generator=g, device="cuda",
                               dtype=torch.float32).to(dt) for _ in range(4))
    scale = 1.0 / math.sqrt(d)
    row = dict(S=s, D=d, B=b, H=h, causal=causal, flops=flops)

    def sdpa_bwd(backend):
        qq, kk, vv = (x.clone().requires_grad_() for x in (q, k, v))
        with sdpa_kernel(backend):
            out = F.scaled_dot_product_attention(qq, kk, vv, is_causal=causal,
                                                 scale=scale)
            fn = (lambda: torch.autograd.grad(out, (qq, kk, vv), do,
                                              retain_graph=True))
            ms = time_ms(fn, iters, 3)
            grads = fn()
        return ms, grads

    def flex_bwd():
        qq, kk, vv = (x.clone().requires_grad_() for x in (q, k, v))
        bm = causal_block_mask(s) if causal else None
        out = compiled_flex()(qq, kk, vv, block_mask=bm, scale=scale)
        fn = (lambda: torch.autograd.grad(out, (qq, kk, vv), do,
                                          retain_graph=True))
        return time_ms(fn, iters, 3), fn()

    ref = None
    if baselines:
        ref = time_peers(row, flops, sdpa_bwd, flex_bwd)
        # Asked with requires_grad inputs: SDPA's choice also checks what
        # each backend's backward supports.
        row["sdpa_default_backend"] = sdpa_default_backend(
            *(x.detach().requires_grad_() for x in (q, k, v)), causal, scale)
    if bw is not None:
        out, lse = flash_forward(q, k, v, causal, scale)
        p = dict(q=q, k=k, v=v, do=do, o=out, lse=lse)
        t = our_tensors(p)
        launches = bw.bind(env_of(cfg, b, s, s), t)
        row["ours"] = time_within_budget(
            lambda: KernelModule.launch(launches), iters, flops, budget_left)
        if "ms" in row["ours"]:
            # Before the per-kernel timing, which reruns kernels out of
            # sequence (accumulators not re-zeroed) and spoils the results.
            if ref is not None:
                row["ours"]["rel_vs_sdpa"] = max(
                    rel_err(x.permute(0, 2, 1, 3), r.float())[1]
                    for x, r in zip((t["dq"], t["dk"], t["dv"]), ref))
            row["ours"]["kernels_ms"] = kernel_breakdown(bw, launches)
    return row


def kernel_breakdown(bw, launches):
    """Median ms of each kernel alone (where the time goes)."""
    out = {}
    for (k, _), launch in zip(bw.kernels, launches):
        out[k["name"]] = time_ms(lambda: KernelModule.launch([launch]), 5, 1)
    return out


def flash_forward(q, k, v, causal, scale):
    """O and natural-log LSE [B,H,S] from PyTorch's flash forward."""
    r = torch.ops.aten._scaled_dot_product_flash_attention(
        q, k, v, 0.0, causal, False, scale=scale)
    out, lse = r[0], r[1]
    if tuple(lse.shape) != tuple(q.shape[:3]):
        lse = lse[..., :q.shape[2]].contiguous()
    return out, lse.float().contiguous()


def markdown(results):
    """The validation and benchmark tables as Markdown (docs/BENCHMARKS.md)."""
    return (markdown_validation(results["validation"]) + "\n" +
            markdown_bench(results["bench"]))


def markdown_validation(rows):
    out = ["| strategy | dtype | D | Hq/Hkv | mask | Sq | Sk | det | "
           "dQ rel (torch) | dK rel (torch) | dV rel (torch) | ms | result |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        e = ["%.1e (%.1e)" % (r[n]["rel"], r[n]["torch_rel"])
             for n in ("dq", "dk", "dv")]
        det = ""
        if r["det"]:
            det = "bits equal" if r.get("bitwise_repeat") else "bits differ"
        out.append("| %s | %s | %d | %d/%d | %s | %d | %d | %s | %s | %s | %s "
                   "| %.1f | %s |" % (
                       r["strategy"], r["dtype"], r["D"], r["Hq"], r["Hkv"],
                       r["mask"], r["Sq"], r["Sk"], det, e[0], e[1], e[2],
                       r["ms"], "pass" if r["ok"] else "FAIL " + r["notes"]))
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------
# Driver (shared with run_fwd.py)
# --------------------------------------------------------------------------

def runner_arguments(doc):
    """The options run_bwd.py and run_fwd.py share."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--dir", default=os.path.join(os.path.dirname(
        os.path.abspath(__file__)), "out"))
    ap.add_argument("--out", default=os.environ.get("OUT"))
    ap.add_argument("--only", nargs="*", default=[])
    ap.add_argument("--skip-validate", action="store_true")
    ap.add_argument("--skip-bench", action="store_true")
    ap.add_argument("--max-s", type=int, default=4096,
                    help="largest validation sequence length")
    ap.add_argument("--bench-s", default="1024,2048,4096,8192")
    ap.add_argument("--iters", type=int, default=10)
    ap.add_argument("--budget-s", type=float, default=480,
                    help="stop starting new work after this many seconds")
    ap.add_argument("--no-peers", action="store_true",
                    help="time ours only (a second kernel set beside a run "
                    "that timed the peers)")
    ap.add_argument("--sanitize", action="store_true",
                    help="validate only the small tail shapes of "
                    "cases.sanitize_sizes, B=1 (run under compute-sanitizer "
                    "by bench/sanitize.py)")
    return ap


def print_build_info(directory):
    print("device: %s, torch %s, cupy %s" % (torch.cuda.get_device_name(),
                                             torch.__version__, cp.__version__))
    info = os.path.join(directory, "BUILD_INFO.txt")
    if os.path.exists(info):
        print("kernels built from " + open(info).read().strip())


class Modules:
    """The KernelModules of the configurations `names`, each loaded on first
    use; one that fails to load is reported in `errors` and is None."""

    def __init__(self, directory, names, errors):
        self.directory, self.names, self.errors = directory, names, errors
        self._loaded = {}

    def __getitem__(self, name):
        if name not in self._loaded:
            try:
                self._loaded[name] = KernelModule(self.directory, name)
            except Exception as e:  # report and go on with the others
                self.errors.append("%s: %s" % (name, e))
                print("LOAD FAIL %s: %s" % (name, e), flush=True)
                self._loaded[name] = None
        return self._loaded[name]

    def get(self, name):
        """The module of `name`, or None when it is not among `names`."""
        return self[name] if name in self.names else None


def attempt(results, what, budget_left, fn):
    """fn() while the time budget lasts, else None; a skip or an exception is
    printed and recorded in results["errors"] (and None returned)."""
    if budget_left() < 0:
        results["errors"].append("budget: skipped %s" % what)
        print("SKIP (time budget) %s" % what, flush=True)
        return None
    try:
        return fn()
    except Exception as e:  # report and go on with the others
        results["errors"].append("%s: %r" % (what, e))
        print("ERROR %s: %r" % (what, e), flush=True)
        return None
    finally:
        torch.cuda.empty_cache()


def run_validation(modules, sizes_of, check, a, budget_left, results):
    """results["validation"] += check(module, B, Sq, Sk) for each
    configuration not only for the benchmark, at its sizes_of(cfg) up to
    --max-s, with B = 1 under --sanitize and 2 otherwise."""
    batch = 1 if a.sanitize else 2
    for name in modules.names:
        m = modules[name]
        if m is None or m.cfg["purpose"] == "bench":
            continue
        for sq, sk in sizes_of(m.cfg):
            if max(sq, sk) > a.max_s:
                continue
            row = attempt(results, "%s %d/%d" % (name, sq, sk), budget_left,
                          lambda: check(m, batch, sq, sk))
            if row is not None:
                results["validation"].append(row)


def run_bench(modules, name_of, bench_one, a, budget_left, results):
    """results["bench"] += bench_one(module, S, D, causal) for D 64 and 128,
    no mask and causal, S of --bench-s; the module is name_of(D, causal)'s,
    None when not built (peers only)."""
    sizes = [int(x) for x in a.bench_s.split(",")]
    problems = [(d, causal) for d in (64, 128) for causal in (False, True)]
    # Each point compiles Flex for a shape of its own.
    raise_recompile_limits(len(problems) * len(sizes))
    for d, causal in problems:
        name = name_of(d, causal)
        m = modules.get(name)
        for s in sizes:
            r = attempt(results, "bench %s S=%d" % (name, s), budget_left,
                        lambda: bench_one(m, s, d, causal))
            if r is not None:
                r["config"] = name if m else None
                results["bench"].append(r)
                print(bench_line(r), flush=True)


def run_explore(modules, bench_one, a, budget_left, results):
    """results["bench"] += bench_one(module, S) for each tile variant
    (purpose "explore") at the S of --bench-s."""
    for name in modules.names:
        m = modules[name]
        if m is None or m.cfg["purpose"] != "explore":
            continue
        for s in (int(x) for x in a.bench_s.split(",")):
            r = attempt(results, "explore %s S=%d" % (name, s), budget_left,
                        lambda: bench_one(m, s))
            if r is not None:
                r["config"] = name
                results["bench"].append(r)
                print(bench_line(r), flush=True)


def start_run(a, kinds):
    """A runner's state: its start time, budget_left() (seconds of --budget-s
    left), the results to fill and the modules of `kinds` under --dir
    (--only), after printing what they were built from."""
    start = time.time()

    def budget_left():
        return a.budget_s - (time.time() - start)

    print_build_info(a.dir)
    results = dict(validation=[], bench=[], errors=[])
    modules = Modules(a.dir, config_names(a.dir, a.only, kinds),
                      results["errors"])
    return start, budget_left, results, modules


def finish(results, start, out, tables):
    """Print the summary and write results.json and the Markdown `tables`
    under `out` (when given); the exit status."""
    failed = [r for r in results["validation"] if not r["ok"]]
    print("\nvalidation: %d cases, %d failed; errors: %d; %.0f s" % (
        len(results["validation"]), len(failed), len(results["errors"]),
        time.time() - start))
    for e in results["errors"]:
        print("  error:", e)
    if out:
        write_report(out, results, "results.json", tables, "tables.md")
    return 1 if failed or results["errors"] else 0


def main():
    ap = runner_arguments(__doc__)
    ap.add_argument("--bench-strategy", default="tiled")
    ap.add_argument("--explore", action="store_true",
                    help="also time the tile variants build_kernels.py "
                    "built (--tile-variants), ours only")
    a = ap.parse_args()
    start, budget_left, results, modules = start_run(a, ("bwd",))

    if not a.skip_validate:
        print("\n== validation (rel err ours/PyTorch-lowprec vs float32 SDPA "
              "autograd) ==")
        run_validation(modules,
                       sanitize_sizes if a.sanitize else validation_sizes,
                       lambda bw, b, sq, sk: validate(bw, b, sq, sk,
                                                      print_validation_row),
                       a, budget_left, results)

    if not a.skip_bench:
        print("\n" + bench_header("backward", a.bench_strategy))
        run_bench(modules,
                  lambda d, causal: "%s_bf16_d%d_h16_16_%s" % (
                      a.bench_strategy, d, "causal" if causal else "none"),
                  lambda bw, s, d, causal: bench_point(
                      bw, bw.cfg if bw else None, s, d, causal, a.iters,
                      budget_left, baselines=not a.no_peers),
                  a, budget_left, results)

    if a.explore:
        print("\n== tile exploration: ours only ==")
        run_explore(modules,
                    lambda bw, s: bench_point(
                        bw, bw.cfg, s, bw.cfg["D"], bw.cfg["mask"] == "causal",
                        a.iters, budget_left, baselines=False),
                    a, budget_left, results)

    return finish(results, start, a.out, markdown(results))


if __name__ == "__main__":
    sys.exit(main())
