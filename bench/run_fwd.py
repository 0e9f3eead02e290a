#!/usr/bin/env python3
"""Validate and benchmark the generated fmha forward kernels on an NVIDIA GPU.

Reads the forward (fwd_*) and forward-then-backward (fwdbwd_*) configurations
bench/build_kernels.py wrote (--kinds fwd,chain) and launches them with
run_bwd.py's machinery (KernelModule binds tensors by argument role):

1. validation: per forward configuration, the backward's problem sizes plus,
   for bottom-right masks, Sq > Sk; random inputs, O and the statistics
   NaN-filled before the launch (so unwritten elements show). O is compared
   with float32 SDPA (relative error; a case fails past max(3 x PyTorch's
   own low-precision SDPA error, floor)), the natural-log LSE (from M and L
   for log2_max_sum) with a float32 log-sum-exp (relative error past
   LSE_REL_TOL fails), on the query rows that see a key; rows that see none
   must hold O = 0 and LSE = -inf.
2. chain validation: our forward, then our backward fed our O and
   statistics, in one launch list; O and LSE as above, dQ, dK, dV against
   the float32 autograd of SDPA as in run_bwd.py.
3. benchmark: TFLOP/s = 4*B*Hq*Sq*Sk*D (halved for causal) / median time of
   >= 10 CUDA-event-timed iterations after warm-up, ours (fwd_tiled) against
   the forward of the peers of bench/peers.py (as in run_bwd.py: SDPA pinned
   to cuDNN and to flash, Flex compiled per shape); bf16, H=16,
   B*S = 16384.

Needs PyTorch and CuPy (both on the H200 image).
  python3 bench/run_fwd.py [--dir bench/out] [--out DIR] [--skip-bench]
                           [--skip-validate] [--only SUBSTRING ...]
"""
import math
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import sdpa_kernel

from cases import (BENCH_HEADS, STATS_ROLES, bench_batch,
                   forward_flops, forward_sizes, kind_of, mask_label)
from peers import (bench_header, causal_block_mask, compiled_flex,
                   markdown_bench, sdpa_default_backend, time_peers)
from run_bwd import (REL_FLOOR, KernelModule, check_against, check_grads,
                     env_of, fail, finish, launch_timed, logical,
                     make_problem, rel_err, run_bench, run_explore,
                     run_validation, runner_arguments, start_run, sdpa,
                     time_ms, time_within_budget)

NAN = float("nan")
# The statistics are float32 functions of exactly the kernel's inputs: ours
# and the reference differ only in summation order and exp2 rounding.
LSE_REL_TOL = 1e-4


# --------------------------------------------------------------------------
# Tensors
# --------------------------------------------------------------------------

def forward_tensors(cfg, p):
    """Our forward's arguments by role: Q, K, V of problem p (as the
    [B,S,H,D] views the memrefs describe), O and the statistics
    NaN-filled."""
    b, h, sq, _ = p["q"].shape
    t = {n: logical(p[n]) for n in ("q", "k", "v")}
    t["o"] = logical(torch.full_like(p["q"], NAN))
    for role in STATS_ROLES[cfg["stats"]]:
        t[role] = torch.full((b, h, sq), NAN, device="cuda",
                             dtype=torch.float32)
    return t


def gradient_tensors(p):
    """The backward's further arguments: dO of problem p and dQ, dK, dV
    NaN-filled."""
    t = {"do": logical(p["do"])}
    for grad, like in (("dq", "q"), ("dk", "k"), ("dv", "v")):
        t[grad] = logical(torch.full_like(p[like], NAN))
    return t


def natural_lse(cfg, t):
    """The natural-log LSE [B,H,Sq] our forward wrote: itself, or
    (M + log2 L) * ln 2 from log2_max_sum's M and L (-inf where L = 0, a row
    that sees no key)."""
    if cfg["stats"] == "lse":
        return t["lse"]
    m, l = t["m"], t["l"]
    return torch.where(l > 0, (m + torch.log2(l)) * math.log(2),
                       torch.full_like(m, float("-inf")))


def rows_without_keys(p, sq):
    """[Sq] bool: the query rows whose mask hides every key."""
    if p["mask"] is None:
        return torch.zeros(sq, dtype=torch.bool, device="cuda")
    return ~p["mask"].any(dim=-1)


# --------------------------------------------------------------------------
# Validation
# --------------------------------------------------------------------------

def check_forward(row, cfg, p, t):
    """Our O and LSE against float32 references on the rows that see a key;
    O = 0 and LSE = -inf on the rows that see none."""
    empty = rows_without_keys(p, p["q"].shape[2])
    seen = ~empty
    with torch.no_grad():
        ref = sdpa(*(p[n].float() for n in ("q", "k", "v")), p, cfg)
        low = sdpa(p["q"], p["k"], p["v"], p, cfg)
    o = t["o"].permute(0, 2, 1, 3)  # back to [B,H,S,D]
    check_against(row, "o", o[:, :, seen], ref[:, :, seen], low[:, :, seen],
                  REL_FLOOR[cfg["dtype"]])
    for role in STATS_ROLES[cfg["stats"]]:
        if torch.isnan(t[role]).any():
            fail(row, "%s has unwritten (NaN) elements" % role)
    lse = natural_lse(cfg, t)
    abs_e, rel = rel_err(lse[:, :, seen], p["lse"][:, :, seen])
    row["lse"] = dict(abs=abs_e, rel=rel, tol=LSE_REL_TOL)
    if not rel <= LSE_REL_TOL:
        fail(row, "lse rel %.2e > %.2e" % (rel, LSE_REL_TOL))
    row["empty_rows"] = int(empty.sum())
    if empty.any():
        if not bool((o[:, :, empty] == 0).all()):
            fail(row, "O != 0 on rows that see no key")
        if not bool((lse[:, :, empty] == float("-inf")).all()):
            fail(row, "LSE != -inf on rows that see no key")


def validate(fm, b, sq, sk):
    """Launch a forward or chain configuration on one random problem; the
    checked and printed row."""
    cfg = fm.cfg
    chain = kind_of(cfg) == "chain"
    p = make_problem(cfg, b, sq, sk)
    t = forward_tensors(cfg, p)
    if chain:
        t.update(gradient_tensors(p))
    ms = launch_timed(fm.bind(env_of(cfg, b, sq, sk), t, scratch_fill=NAN))
    row = dict(name=cfg["name"], kind=kind_of(cfg), dtype=cfg["dtype"],
               D=cfg["D"], Hq=cfg["Hq"], Hkv=cfg["Hkv"], mask=mask_label(cfg),
               stats=cfg["stats"], B=b, Sq=sq, Sk=sk, ms=ms, ok=True,
               notes="")
    check_forward(row, cfg, p, t)
    if chain:
        check_grads(row, cfg, p, t)
    print_validation_row(row)
    return row


def print_validation_row(r):
    def e(n):
        return "%s %.1e/%.1e" % (n, r[n]["rel"], r[n]["torch_rel"])
    grads = "  ".join(e(n) for n in ("dq", "dk", "dv") if n in r)
    print("%-5s %-4s %3d %2d/%-2d %-13s %-4s %5d %5d | %s  lse %.1e  empty %d"
          " %s| %8.1f ms | %s %s" % (
              r["kind"], r["dtype"], r["D"], r["Hq"], r["Hkv"], r["mask"],
              "lse" if r["stats"] == "lse" else "m/l", r["Sq"], r["Sk"],
              e("o"), r["lse"]["rel"], r["empty_rows"],
              grads + " " if grads else "", r["ms"],
              "PASS" if r["ok"] else "FAIL", r["notes"]), flush=True)


def markdown_validation(rows):
    out = ["| kind | dtype | D | Hq/Hkv | mask | stats | Sq | Sk | O rel "
           "(torch) | LSE rel | rows without keys | dQ rel (torch) | dK rel "
           "(torch) | dV rel (torch) | ms | result |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        e = ["%.1e (%.1e)" % (r[n]["rel"], r[n]["torch_rel"]) if n in r
             else "-" for n in ("o", "dq", "dk", "dv")]
        out.append("| %s | %s | %d | %d/%d | %s | %s | %d | %d | %s | %.1e | "
                   "%d | %s | %s | %s | %.1f | %s |" % (
                       r["kind"], r["dtype"], r["D"], r["Hq"], r["Hkv"],
                       r["mask"], r["stats"], r["Sq"], r["Sk"], e[0],
                       r["lse"]["rel"], r["empty_rows"], e[1], e[2], e[3],
                       r["ms"], "pass" if r["ok"] else "FAIL " + r["notes"]))
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------
# Benchmark
# --------------------------------------------------------------------------

def bench_point(fm, s, d, causal, iters, budget_left, baselines=True):
    """One benchmark problem: bf16, H heads, B = bench_batch(S), Sq = Sk = S;
    ours (when fm is built) and, with `baselines`, the peers' forward."""
    b, h = bench_batch(s), BENCH_HEADS
    flops = forward_flops(b, h, s, s, d, causal)
    g = torch.Generator(device="cuda").manual_seed(1)
    q, k, v = (torch.randn(b, h, s, d, generator=g, device="cuda",
                           dtype=torch.float32).to(torch.bfloat16)
               for _ in range(3))
    scale = 1.0 / math.sqrt(d)
    row = dict(S=s, D=d, B=b, H=h, causal=causal, flops=flops)

    def sdpa_fwd(backend):
        with sdpa_kernel(backend), torch.no_grad():
            def fn():
                return F.scaled_dot_product_attention(
                    q, k, v, is_causal=causal, scale=scale)
            return time_ms(fn, iters, 3), fn()

    def flex_fwd():
        bm = causal_block_mask(s) if causal else None
        with torch.no_grad():
            def fn():
                return compiled_flex()(q, k, v, block_mask=bm, scale=scale)
            return time_ms(fn, iters, 3), fn()

    ref = None
    if baselines:
        ref = time_peers(row, flops, sdpa_fwd, flex_fwd)
        row["sdpa_default_backend"] = sdpa_default_backend(q, k, v, causal,
                                                           scale)
    if fm is not None:
        t = forward_tensors(fm.cfg, dict(q=q, k=k, v=v))
        launches = fm.bind(env_of(fm.cfg, b, s, s), t)
        row["ours"] = time_within_budget(
            lambda: KernelModule.launch(launches), iters, flops, budget_left)
        if ref is not None and "ms" in row["ours"]:
            row["ours"]["rel_vs_sdpa"] = rel_err(t["o"].permute(0, 2, 1, 3),
                                                 ref.float())[1]
    return row


# --------------------------------------------------------------------------

def main():
    ap = runner_arguments(__doc__)
    ap.add_argument("--explore", action="store_true",
                    help="also time the forward tile variants "
                    "build_kernels.py built (--fwd-tile-variants), ours only")
    a = ap.parse_args()
    start, budget_left, results, modules = start_run(a, ("fwd", "chain"))

    if not a.skip_validate:
        print("\n== validation (rel err ours/PyTorch-lowprec vs float32 SDPA "
              "(O; dQ, dK, dV for chains), LSE rel err, query rows without "
              "keys) ==")
        run_validation(modules, lambda cfg: forward_sizes(cfg, a.sanitize),
                       validate, a, budget_left, results)

    if not a.skip_bench:
        print("\n" + bench_header("forward", "fwd_tiled"))
        run_bench(modules,
                  lambda d, causal: "fwd_tiled_bf16_d%d_h16_16_%s" % (
                      d, "causal" if causal else "none"),
                  lambda fm, s, d, causal: bench_point(
                      fm, s, d, causal, a.iters, budget_left,
                      baselines=not a.no_peers),
                  a, budget_left, results)

    if a.explore:
        print("\n== tile exploration: ours only ==")
        run_explore(modules,
                    lambda fm, s: bench_point(
                        fm, s, fm.cfg["D"], fm.cfg["mask"] == "causal",
                        a.iters, budget_left, baselines=False),
                    a, budget_left, results)

    return finish(results, start, a.out,
                  markdown_validation(results["validation"]) + "\n" +
                  markdown_bench(results["bench"]))


if __name__ == "__main__":
    sys.exit(main())
