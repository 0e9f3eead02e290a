#!/usr/bin/env python3
"""GPU check of dropout (issue 33): forward -> backward chains on sm_90a
with `dropout(%seed_offset, p = ...)`, against a float32 eager PyTorch
reference that draws the same mask Z with its own Philox4x32-10 (README,
"Dropout": counter (k, q, n lo, n hi), key (seed lo, seed hi), n = offset
+ b Hq + h, Z = first word * 2^-32 >= p).

Two steps, as bench/run_score_mod.py: where rocke-opt is,
  python3 bench/run_dropout.py --build [--rocke-opt build/bin/rocke-opt]
writes bench/out/dropout/<name>.{ptx,ptx.json,config.json}; on the GPU
machine (PyTorch + CuPy; carry bench/out/dropout),
  python3 bench/run_dropout.py [--out DIR]
runs each chain (our forward's O and LSE feed our backward) on random
inputs and compares O, LSE, dQ, dK, dV with the float32 autograd of the
reference; a result fails past max(3 x the bf16 eager reference's error,
a floor), as bench/run_bwd.py does.
"""
import argparse
import json
import math
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DIR = REPO / "bench" / "out" / "dropout"
CHIP = "sm_90a"
CASES = [(0.1, "causal"), (0.5, "none")]  # (p, mask)
HEADS = (16, 4)  # Hq, Hkv (GQA)
HEAD_DIMS = (64, 128)
SIZES = ((2, 1000), (1, 2048))  # (B, S), Sq = Sk
# The seed's and the offset's high words are not 0; n carries into the
# counter's high word from the second (batch, head).
SEED, OFFSET = 0x123456789ABCD, 0xFFFFFFFF
REL_FLOOR = 1.6e-2  # bf16, as run_bwd.py
LSE_FLOOR = 1e-3


def case_name(p, mask, d):
    return "dropout%g_%s_bf16_d%d" % (p, mask, d)


def mlir_text(p, mask, d):
    """The chain on [B, H, S, D] torch tensors seen as [B, S, H, D]."""
    hq, hkv = HEADS

    def t(h):
        return "memref<?x?x%dx%dxbf16, strided<[?, %d, ?, 1]>>" % (h, d, d)
    lse = "memref<?x%dx?xf32>" % hq
    attrs = " {mask = #fmha.mask<causal>}" if mask == "causal" else ""
    clause = " dropout(%%so, p = %r)" % p
    q, kv = t(hq), t(hkv)
    return (
        "func.func @chain(%%q: %s, %%k: %s, %%v: %s, %%o: %s, %%do: %s, "
        "%%lse: %s, %%dq: %s, %%dk: %s, %%dv: %s, %%so: memref<2xi64>) {\n"
        "  fmha.attention_fwd %%q, %%k, %%v -> %%o, stats(%%lse)%s%s\n"
        "    : %s, %s, %s -> %s, stats(%s) dropout(memref<2xi64>)\n"
        "  fmha.attention_bwd %%q, %%k, %%v, %%o, %%do, stats(%%lse)%s -> "
        "%%dq, %%dk, %%dv%s\n"
        "    : %s, %s, %s, %s, %s, stats(%s) dropout(memref<2xi64>) -> "
        "%s, %s, %s\n"
        "  return\n}\n" % (q, kv, kv, q, q, lse, q, kv, kv,
                           clause, attrs, q, kv, kv, q, lse,
                           clause, attrs, q, kv, kv, q, q, lse, q, kv, kv))


def build(a):
    a.dir.mkdir(parents=True, exist_ok=True)
    for p, mask in CASES:
        for d in HEAD_DIMS:
            name = case_name(p, mask, d)
            text = mlir_text(p, mask, d)
            out = a.dir / (name + ".ptx")
            pipe = ("builtin.module(fmha-bwd-nvvm{chip=%s},"
                    "fmha-dump-binary{output=%s})" % (CHIP, out))
            subprocess.run([a.rocke_opt, "-", "-o", "/dev/null",
                            "-pass-pipeline=" + pipe], input=text, text=True,
                           check=True)
            cfg = dict(name=name, kind="chain", strategy="tiled",
                       dtype="bf16", D=d, Hq=HEADS[0], Hkv=HEADS[1],
                       mask=mask, alignment="top_left", deterministic=False,
                       dropout_p=p)
            (a.dir / (name + ".config.json")).write_text(json.dumps(
                {"config": cfg, "pipeline": pipe, "mlir": text}, indent=1))
            print("built", out)


def markdown(rows):
    whats = ("O", "lse", "dQ", "dK", "dV")
    lines = ["| case | B | S | dropped | " + " | ".join(
                 "%s rel (tol)" % w for w in whats) + " | result |",
             "|---" * (len(whats) + 5) + "|"]
    for r in rows:
        e = r["errors"]
        lines.append("| %s | %d | %d | %.4f | %s | %s |" % (
            r["case"], r["B"], r["S"], r["dropped"],
            " | ".join("%.1e (%.1e)" % (e[w]["rel"], e[w]["tol"])
                       for w in whats),
            "pass" if all(e[w]["ok"] for w in whats) else "FAIL"))
    return "\n".join(lines) + "\n"


def validate(a):
    import torch
    sys.path.insert(0, str(REPO / "bench"))
    sys.path.insert(0, str(REPO / "python"))
    from run_bwd import KernelModule, logical, rel_err  # noqa: E402
    from cases import philox_keep, write_report  # noqa: E402
    from rocke import kernel_abi  # noqa: E402
    from rocke.torch import buffer_of  # noqa: E402

    def bind(km, env, tensors):
        """KernelModule.bind with the i64 {seed, offset} buffer, which
        rocke.torch's buffer_of does not name."""
        launches = []
        scratch = []

        def allocate(name, elt, shape, init):
            buf = torch.full(shape, float("nan"), device="cuda",
                             dtype={"f32": torch.float32,
                                    "bf16": torch.bfloat16}[elt])
            scratch.append(buf)
            return buffer_of(buf)

        bufs = {r: (kernel_abi.Buffer(t.data_ptr(), "i64", tuple(t.shape),
                                      tuple(t.stride()))
                    if t.dtype == torch.int64 else buffer_of(t))
                for r, t in tensors.items()}
        for l in km.module.plans.get(env).pack(bufs, allocate):
            launches.append((km.module.pointers[l.kernel], l))
        return launches, scratch

    def reference(cfg, prm, keep, dtype):
        q, k, v = (prm[n].detach().to(dtype, copy=True).requires_grad_()
                   for n in ("q", "k", "v"))
        group = cfg["Hq"] // cfg["Hkv"]
        kk = k.repeat_interleave(group, dim=1)
        vv = v.repeat_interleave(group, dim=1)
        s = (q @ kk.transpose(-1, -2)) * prm["scale"]
        sq, sk = s.shape[-2], s.shape[-1]
        if cfg["mask"] == "causal":
            i = torch.arange(sq, device="cuda")[:, None]
            j = torch.arange(sk, device="cuda")[None, :]
            s = s.masked_fill(j > i, float("-inf"))
        lse = torch.logsumexp(s.float(), dim=-1)
        pr = torch.softmax(s.float(), dim=-1)
        pr = pr * keep / (1.0 - cfg["dropout_p"])
        o = pr.to(dtype) @ vv
        grads = torch.autograd.grad(o, (q, k, v), prm["do"].to(dtype))
        return [o.detach(), lse.detach()] + list(grads)

    failures = 0
    rows = []
    for p, mask in CASES:
        for d in HEAD_DIMS:
            name = case_name(p, mask, d)
            km = KernelModule(str(a.dir), name)
            cfg = km.cfg
            hq, hkv = cfg["Hq"], cfg["Hkv"]
            for b, s in SIZES:
                g = torch.Generator(device="cuda").manual_seed(0)

                def rnd(*shape):
                    return torch.randn(*shape, generator=g,
                                       device="cuda").to(torch.bfloat16)
                prm = dict(q=rnd(b, hq, s, d), k=rnd(b, hkv, s, d),
                           v=rnd(b, hkv, s, d), do=rnd(b, hq, s, d),
                           scale=1.0 / math.sqrt(d))
                t = {n: logical(prm[n]) for n in ("q", "k", "v", "do")}
                o = torch.empty(b, hq, s, d, device="cuda",
                                dtype=torch.bfloat16)
                lse = torch.empty(b, hq, s, device="cuda")
                grads = [torch.empty_like(prm[n]) for n in ("q", "k", "v")]
                so = torch.tensor([SEED, OFFSET], device="cuda",
                                  dtype=torch.int64)
                t.update(o=logical(o), lse=lse, dq=logical(grads[0]),
                         dk=logical(grads[1]), dv=logical(grads[2]),
                         dropout_seed_offset=so)
                env = dict(B=b, Sq=s, Sk=s, Hq=hq, Hkv=hkv, Dqk=d, Dv=d)
                launches, _scratch = bind(km, env, t)
                KernelModule.launch(launches)
                torch.cuda.synchronize()
                keep = philox_keep(torch, SEED, OFFSET, p, b, hq, s, s)
                ref = reference(cfg, prm, keep, torch.float32)
                low = reference(cfg, prm, keep, torch.bfloat16)
                ours = [o, lse] + grads
                line = []
                dropped = 1.0 - keep.float().mean().item()
                row = dict(case=name, B=b, S=s, dropped=dropped, errors={})
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
                print("%-26s B=%d S=%-5d dropped %.4f  %s"
                      % (name, b, s, dropped, "  ".join(line)))
                rows.append(row)
    print("%d failures" % failures)
    if a.out:
        write_report(a.out, dict(device=torch.cuda.get_device_name(),
                                 rows=rows, failures=failures),
                     "run_dropout.json", markdown(rows), "run_dropout.md")
    return 1 if failures else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", action="store_true",
                    help="compile the kernels (needs rocke-opt, no GPU)")
    ap.add_argument("--rocke-opt", default=str(REPO / "build/bin/rocke-opt"))
    ap.add_argument("--dir", type=Path, default=DEFAULT_DIR)
    ap.add_argument("--out", default=os.environ.get("OUT"),
                    help="where to write run_dropout.{json,md}")
    a = ap.parse_args()
    if a.build:
        build(a)
        return 0
    return validate(a)


if __name__ == "__main__":
    sys.exit(main())
