#!/usr/bin/env python3
"""GPU check of score modifications (issue 33): softcap, ALiBi and dropout
forward -> backward chains on sm_90a, against a float32 eager PyTorch
reference with the same modification (for dropout, the same mask Z drawn
by its own Philox4x32-10, bench/cases.philox_keep: README "Dropout").

Two steps, as bench/torch_check.py: where rocke-opt is (no GPU, no PyTorch
needed),
  python3 bench/run_score_mod.py --build [--rocke-opt build/bin/rocke-opt]
writes bench/out/score_mod/<name>.{ptx,ptx.json,config.json}; on the GPU
machine (PyTorch + CuPy; carry bench/out/score_mod),
  python3 bench/run_score_mod.py [--out DIR]
runs each chain (our forward's O and LSE feed our backward) on random
inputs and compares O, LSE, dQ, dK, dV with the float32 autograd of the
eager reference; a result fails past max(3 x the bf16 eager reference's
error, a floor), as bench/run_bwd.py does.
"""
import argparse
import json
import math
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DIR = REPO / "bench" / "out" / "score_mod"
CHIP = "sm_90a"
# (modification, its parameter, mask): a softcap cap small enough to bend
# the scores of randn inputs at scale 1/sqrt(D); ALiBi with the usual
# geometric slopes; dropout's p.
CASES = [
    ("softcap", 2.0, "causal"),
    ("softcap", 2.0, "none"),
    ("alibi", None, "causal"),
    ("dropout", 0.1, "causal"),
    ("dropout", 0.5, "none"),
]
# Dropout's seed and offset: their high words are not 0, and n = offset +
# b Hq + h carries into the counter's high word from the second (b, h).
SEED, OFFSET = 0x123456789ABCD, 0xFFFFFFFF
HEADS = (16, 4)  # Hq, Hkv (GQA)
HEAD_DIMS = (64, 128)
SIZES = ((2, 1000), (1, 4096))  # (B, S), Sq = Sk
REL_FLOOR = 1.6e-2  # bf16, as run_bwd.py
LSE_FLOOR = 1e-3


def case_name(mod, param, mask, d):
    label = mod if param is None else "%s%g" % (mod, param)
    return "%s_%s_bf16_d%d" % (label, mask, d)


def mlir_text(mod, param, mask, d):
    """The chain on [B, H, S, D] torch tensors seen as [B, S, H, D]."""
    hq, hkv = HEADS

    def t(h):
        return "memref<?x?x%dx%dxbf16, strided<[?, %d, ?, 1]>>" % (h, d, d)
    lse = "memref<?x%dx?xf32>" % hq
    attrs = " {mask = #fmha.mask<causal>}" if mask == "causal" else ""
    # The modification's argument, its clauses after the operands and after
    # their types, and the score_mod after everything.
    arg = value = typed = score_mod = ""
    if mod == "softcap":
        score_mod = "\n    score_mod softcap(%r)" % param
    elif mod == "alibi":
        arg = ", %%slopes: memref<%dxf32>" % hq
        score_mod = "\n    score_mod alibi(%%slopes : memref<%dxf32>)" % hq
    else:
        arg = ", %so: memref<2xi64>"
        value = " dropout(%%so, p = %r)" % param
        typed = " dropout(memref<2xi64>)"
    q, kv = t(hq), t(hkv)
    return (
        "func.func @chain(%%q: %s, %%k: %s, %%v: %s, %%o: %s, %%do: %s, "
        "%%lse: %s, %%dq: %s, %%dk: %s, %%dv: %s%s) {\n"
        "  fmha.attention_fwd %%q, %%k, %%v -> %%o, stats(%%lse)%s%s\n"
        "    : %s, %s, %s -> %s, stats(%s)%s%s\n"
        "  fmha.attention_bwd %%q, %%k, %%v, %%o, %%do, stats(%%lse)%s -> "
        "%%dq, %%dk, %%dv%s\n"
        "    : %s, %s, %s, %s, %s, stats(%s)%s -> %s, %s, %s%s\n"
        "  return\n}\n" % (q, kv, kv, q, q, lse, q, kv, kv, arg,
                           value, attrs, q, kv, kv, q, lse, typed, score_mod,
                           value, attrs, q, kv, kv, q, q, lse, typed, q, kv,
                           kv, score_mod))


def build(a):
    a.dir.mkdir(parents=True, exist_ok=True)
    for mod, param, mask in CASES:
        for d in HEAD_DIMS:
            name = case_name(mod, param, mask, d)
            text = mlir_text(mod, param, mask, d)
            out = a.dir / (name + ".ptx")
            pipe = ("builtin.module(fmha-bwd-nvvm{chip=%s},"
                    "fmha-dump-binary{output=%s})" % (CHIP, out))
            subprocess.run([a.rocke_opt, "-", "-o", "/dev/null",
                            "-pass-pipeline=" + pipe], input=text, text=True,
                           check=True)
            cfg = dict(name=name, kind="chain", strategy="tiled",
                       dtype="bf16", D=d, Hq=HEADS[0], Hkv=HEADS[1],
                       mask=mask, alignment="top_left", deterministic=False,
                       modification=mod, param=param)
            (a.dir / (name + ".config.json")).write_text(json.dumps(
                {"config": cfg, "pipeline": pipe, "mlir": text}, indent=1))
            print("built", out)


def markdown(rows):
    """The validation as a Markdown table: per chain and size, each
    result's relative error against the float32 reference and its
    tolerance."""
    whats = ("O", "lse", "dQ", "dK", "dV")
    lines = ["| case | B | S | dropped | " + " | ".join(
                 "%s rel (tol)" % w for w in whats) + " | result |",
             "|---" * (len(whats) + 5) + "|"]
    for r in rows:
        e = r["errors"]
        lines.append("| %s | %d | %d | %s | %s | %s |" % (
            r["case"], r["B"], r["S"],
            "%.4f" % r["dropped"] if "dropped" in r else "-",
            " | ".join("%.1e (%.1e)" % (e[w]["rel"], e[w]["tol"])
                       for w in whats),
            "pass" if all(e[w]["ok"] for w in whats) else "FAIL"))
    return "\n".join(lines) + "\n"


def validate(a):
    import torch
    sys.path.insert(0, str(REPO / "bench"))
    from run_bwd import KernelModule, logical, rel_err  # noqa: E402
    from cases import (alibi_slopes, modified_scores,  # noqa: E402
                       philox_keep, write_report)

    def slopes_of(hq):
        return torch.tensor(alibi_slopes(hq), device="cuda",
                            dtype=torch.float32)

    def reference(cfg, p, dtype, keep=None):
        """O, LSE and the gradients of the eager modified attention in
        `dtype` (LSE in float32); dropout's kept probabilities `keep`."""
        q, k, v = (p[n].detach().to(dtype, copy=True).requires_grad_()
                   for n in ("q", "k", "v"))
        group = cfg["Hq"] // cfg["Hkv"]
        kk = k.repeat_interleave(group, dim=1)
        vv = v.repeat_interleave(group, dim=1)
        s = (q @ kk.transpose(-1, -2)) * p["scale"]
        sq, sk = s.shape[-2], s.shape[-1]
        if cfg["modification"] == "softcap":
            s = modified_scores(torch, s, softcap=cfg["param"])
        elif cfg["modification"] == "alibi":
            s = modified_scores(torch, s, slopes=p["slopes"])
        if cfg["mask"] == "causal":
            i = torch.arange(sq, device="cuda")[:, None]
            j = torch.arange(sk, device="cuda")[None, :]
            s = s.masked_fill(j > i, float("-inf"))
        lse = torch.logsumexp(s.float(), dim=-1)
        probs = torch.softmax(s.float(), dim=-1)
        if keep is not None:
            probs = probs * keep / (1.0 - cfg["param"])
        o = probs.to(dtype) @ vv
        grads = torch.autograd.grad(o, (q, k, v), p["do"].to(dtype))
        return [o.detach(), lse.detach()] + list(grads)

    failures = 0
    rows = []
    for mod, param, mask in CASES:
        for d in HEAD_DIMS:
            name = case_name(mod, param, mask, d)
            km = KernelModule(str(a.dir), name)
            cfg = km.cfg
            hq, hkv = cfg["Hq"], cfg["Hkv"]
            for b, s in SIZES:
                g = torch.Generator(device="cuda").manual_seed(0)

                def rnd(*shape):
                    return torch.randn(*shape, generator=g,
                                       device="cuda").to(torch.bfloat16)
                p = dict(q=rnd(b, hq, s, d), k=rnd(b, hkv, s, d),
                         v=rnd(b, hkv, s, d), do=rnd(b, hq, s, d),
                         scale=1.0 / math.sqrt(d), slopes=slopes_of(hq))
                t = {n: logical(p[n]) for n in ("q", "k", "v", "do")}
                o = torch.empty(b, hq, s, d, device="cuda",
                                dtype=torch.bfloat16)
                lse = torch.empty(b, hq, s, device="cuda")
                grads = [torch.empty_like(p[n]) for n in ("q", "k", "v")]
                t.update(o=logical(o), lse=lse, dq=logical(grads[0]),
                         dk=logical(grads[1]), dv=logical(grads[2]))
                keep = None
                if mod == "alibi":
                    t["capture0"] = p["slopes"]
                elif mod == "dropout":
                    t["dropout_seed_offset"] = torch.tensor(
                        [SEED, OFFSET], device="cuda", dtype=torch.int64)
                    keep = philox_keep(torch, SEED, OFFSET, param, b, hq, s,
                                       s)
                env = dict(B=b, Sq=s, Sk=s, Hq=hq, Hkv=hkv, Dqk=d, Dv=d)
                KernelModule.launch(km.bind(env, t,
                                            scratch_fill=float("nan")))
                torch.cuda.synchronize()
                ref = reference(cfg, p, torch.float32, keep)
                low = reference(cfg, p, torch.bfloat16, keep)
                ours = [o, lse] + grads
                line = []
                row = dict(case=name, B=b, S=s, errors={})
                if keep is not None:
                    row["dropped"] = 1.0 - keep.float().mean().item()
                    line.append("dropped %.4f" % row["dropped"])
                for what, x, r, lo in zip(("O", "lse", "dQ", "dK", "dV"),
                                          ours, ref, low):
                    _, rel = rel_err(x, r)
                    _, rel_low = rel_err(lo, r)
                    tol = max(3 * rel_low,
                              LSE_FLOOR if what == "lse" else REL_FLOOR)
                    ok = bool(torch.isfinite(x).all()) and rel <= tol
                    failures += not ok
                    row["errors"][what] = dict(rel=rel, tol=tol, ok=ok)
                    line.append("%s %.1e/%.1e%s" % (what, rel, tol,
                                                    "" if ok else " FAIL"))
                print("%-28s B=%d S=%-5d %s" % (name, b, s, "  ".join(line)))
                rows.append(row)
    print("%d failures" % failures)
    if a.out:
        write_report(a.out, dict(device=torch.cuda.get_device_name(),
                                 rows=rows, failures=failures),
                     "run_score_mod.json", markdown(rows), "run_score_mod.md")
    return 1 if failures else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", action="store_true",
                    help="compile the kernels (needs rocke-opt, no GPU)")
    ap.add_argument("--rocke-opt", default=str(REPO / "build/bin/rocke-opt"))
    ap.add_argument("--dir", type=Path, default=DEFAULT_DIR)
    ap.add_argument("--out", default=os.environ.get("OUT"),
                    help="where to write run_score_mod.{json,md}")
    a = ap.parse_args()
    if a.build:
        build(a)
        return 0
    return validate(a)


if __name__ == "__main__":
    sys.exit(main())
