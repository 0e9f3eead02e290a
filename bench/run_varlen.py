#!/usr/bin/env python3
"""Packed (variable-length) batches on the GPU (issue 32, part 1): the
forward and the backward of rocke.torch.attention with cu_seqlens against
every varlen path the machine has, timed in one run.

The batch: sequence lengths drawn uniformly from [--min-len, --max-len]
(seeded) until --tokens tokens, the last one cut to fit; H = 16 query and
key heads, bf16, D = 64 and 128, no mask and causal (within each sequence).
FLOP: the sum over sequences of 4 (forward) or 10 (backward) * H * L^2 * D,
halved for causal, as bench/cases.py counts dense problems.

Timed: the median of CUDA-event-timed iterations after warm-up, forward and
backward apart (the backward is autograd.grad on a retained graph, so no
forward is in its time). Each peer in its best configuration:
- ours: rocke.torch.attention(q, k, v, cu_seqlens_q=..., max_seqlen_q=...),
  the op as a user calls it, its host work included;
- varlen: torch.nn.attention.varlen.varlen_attn (PyTorch's FlashAttention-2
  varlen kernels);
- flash_attn: flash_attn_varlen_func of FlashAttention 3, else 2, where
  installed;
- njt-cudnn / njt-flash / njt-efficient: SDPA on nested jagged tensors,
  each backend pinned;
- flex: flex_attention compiled for the shape (dynamic=False) with a
  document mask (plus causal) over the packed tokens, its block mask built
  once outside the timing.
A peer that fails prints its error in its cell. Ours' O, dQ, dK and dV are
compared with the reference peer's (varlen, else the first that ran):
relative error max|x - ref| / max|ref|, which bench/torch_check.py bounds
against float32 per sequence.

Writes run_varlen.json and run_varlen.md under --out.
  python3 bench/run_varlen.py --prebuild     (needs rocke-opt, not PyTorch)
  python3 bench/run_varlen.py --out DIR      (GPU; carry bench/out/torch-cache)
"""
import inspect
import json
import os
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "python"))
from rocke import torch as rt  # noqa: E402
from cases import (prebuild_torch_op, torch_op_arguments,  # noqa: E402
                   write_report)

HEADS = 16
HEAD_DIMS = (64, 128)
WARMUP = 3
PEERS = ("varlen", "flash_attn", "njt-cudnn", "njt-flash", "njt-efficient",
         "flex")


def lengths(tokens, low, high, seed):
    """Sequence lengths drawn from [low, high] until `tokens` in all, the
    last cut to fit."""
    draw, out = random.Random(seed), []
    while sum(out) < tokens:
        out.append(min(draw.randint(low, high), tokens - sum(out)))
    return out


def offsets(lens):
    out = [0]
    for n in lens:
        out.append(out[-1] + n)
    return out


# (D, causal) of every benchmark row.
POINTS = [(d, causal) for d in HEAD_DIMS for causal in (False, True)]


def flops(lens, d, causal, per_element):
    return sum(per_element * HEADS * n * n * d for n in lens) * (
        0.5 if causal else 1.0)


def problems(lens):
    """The Problems the rows run (what --prebuild compiles)."""
    cu = offsets(lens)
    return [rt.problem((cu[-1], HEADS, d), (cu[-1], HEADS, d), "bf16",
                       causal=causal, cu_seqlens_q=cu, cu_seqlens_k=cu,
                       max_seqlen_q=max(lens), max_seqlen_k=max(lens))
            for d, causal in POINTS]


# --------------------------------------------------------------------------
# On the GPU
# --------------------------------------------------------------------------

def runners(torch, lens, causal):
    """name -> forward(q, k, v, cu, max_len) -> O [T, H, D] for each peer
    (they import lazily: a missing one fails in its cell)."""
    def varlen(q, k, v, cu, m):
        from torch.nn.attention.varlen import varlen_attn
        params = inspect.signature(varlen_attn).parameters
        # PyTorch 2.10 spells the mask is_causal, later ones window_size.
        kw = dict(is_causal=causal) if "is_causal" in params else \
            dict(window_size=(-1, 0) if causal else (-1, -1))
        return varlen_attn(q, k, v, cu, cu, m, m, **kw)

    def flash_attn(q, k, v, cu, m):
        try:
            from flash_attn_interface import flash_attn_varlen_func
        except ImportError:
            from flash_attn import flash_attn_varlen_func
        out = flash_attn_varlen_func(q, k, v, cu, cu, m, m, causal=causal)
        return out[0] if isinstance(out, tuple) else out

    def njt(backend):
        from torch.nn.attention import SDPBackend, sdpa_kernel
        import torch.nn.functional as F

        def run(q, k, v, cu, m):
            nested = [torch.nested.nested_tensor_from_jagged(
                t, cu.long(), max_seqlen=m).transpose(1, 2)
                for t in (q, k, v)]
            with sdpa_kernel(getattr(SDPBackend, backend)):
                o = F.scaled_dot_product_attention(*nested, is_causal=causal)
            return o.transpose(1, 2).values()
        return run

    doc = torch.repeat_interleave(
        torch.arange(len(lens), device="cuda"),
        torch.tensor(lens, device="cuda"))
    block_mask = []

    def flex(q, k, v, cu, m):
        from torch.nn.attention.flex_attention import create_block_mask
        from peers import compiled_flex

        def document(b, h, qi, ki):
            same = doc[qi] == doc[ki]
            return same & (qi >= ki) if causal else same
        t = q.shape[0]
        if not block_mask:
            block_mask.append(create_block_mask(document, None, None, t, t,
                                                device="cuda"))
        o = compiled_flex()(*(x.transpose(0, 1).unsqueeze(0)
                              for x in (q, k, v)), block_mask=block_mask[0])
        return o[0].transpose(0, 1)

    return {"varlen": varlen, "flash_attn": flash_attn,
            "njt-cudnn": njt("CUDNN_ATTENTION"),
            "njt-flash": njt("FLASH_ATTENTION"),
            "njt-efficient": njt("EFFICIENT_ATTENTION"), "flex": flex}


def rel_err(x, ref):
    return float((x.float() - ref.float()).abs().max() /
                 ref.float().abs().max().clamp_min(1e-30))


def measure(torch, forward, tensors, iters):
    """{fwd_ms, bwd_ms} of `forward` and (O, dQ, dK, dV) for the errors."""
    from run_bwd import time_ms
    q, k, v, do, cu, m = tensors
    with torch.no_grad():
        fwd_ms = time_ms(lambda: forward(q, k, v, cu, m), iters, WARMUP)
    leaves = [t.detach().requires_grad_() for t in (q, k, v)]
    o = forward(*leaves, cu, m)
    grads = torch.autograd.grad(o, leaves, do, retain_graph=True)
    bwd_ms = time_ms(lambda: torch.autograd.grad(
        o, leaves, do, retain_graph=True), iters, WARMUP)
    return dict(fwd_ms=fwd_ms, bwd_ms=bwd_ms), (o.detach(),) + tuple(grads)


def bench_row(torch, lens, d, causal, iters):
    gen = torch.Generator(device="cuda").manual_seed(d + causal)
    t = sum(lens)
    q, k, v, do = (torch.randn(t, HEADS, d, device="cuda",
                               dtype=torch.bfloat16, generator=gen)
                   for _ in range(4))
    cu = torch.tensor(offsets(lens), dtype=torch.int32, device="cuda")
    m = max(lens)
    tensors = (q, k, v, do, cu, m)
    row = dict(D=d, causal=causal, fwd_flop=flops(lens, d, causal, 4),
               bwd_flop=flops(lens, d, causal, 10))

    def ours(q, k, v, cu, m):
        return rt.attention(q, k, v, causal=causal, cu_seqlens_q=cu,
                            cu_seqlens_k=cu, max_seqlen_q=m, max_seqlen_k=m)

    results = {}
    for name, forward in [("ours", ours)] + list(
            runners(torch, lens, causal).items()):
        try:
            row[name], results[name] = measure(torch, forward, tensors,
                                               iters)
        except Exception as e:  # a peer failing is reported, not fatal
            row[name] = dict(error=(str(e).splitlines() or [repr(e)])[0]
                             [:160])
        torch.cuda.synchronize()
    ref = next((p for p in PEERS if p in results), None)
    if "ours" in results and ref:
        row["reference"] = ref
        row["ours"]["rel"] = {
            n: rel_err(x, r) for n, x, r in zip(
                ("o", "dq", "dk", "dv"), results["ours"], results[ref])}
    return row


def best_peer(row, what):
    ms = {p: row[p][what] for p in PEERS if what in row.get(p, {})}
    return min(ms, key=ms.get) if ms else None


def table(rows, lens, what, per_flop):
    names = ("ours",) + PEERS
    head = ["D", "mask"] + ["%s ms (TFLOP/s)" % n for n in names] + [
        "ours / best peer"]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        cells = [str(r["D"]), "causal" if r["causal"] else "none"]
        for n in names:
            x = r.get(n, {})
            cells.append("%.3f (%.0f)" % (x[what], r[per_flop] / x[what] /
                                          1e9) if what in x else
                         "ERR: " + x.get("error", "not run"))
        best = best_peer(r, what)
        cells.append("%.2fx %s" % (r[best][what] / r["ours"][what], best)
                     if best and what in r.get("ours", {}) else "-")
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def markdown(results):
    lens, rows = results["lengths"], results["rows"]
    out = ["Device: %s. %d sequences, %d tokens, lengths %d..%d (mean %.0f),"
           " H = %d, bf16." % (results["device"], len(lens), sum(lens),
                               min(lens), max(lens), sum(lens) / len(lens),
                               HEADS), "", "Forward:", "",
           table(rows, lens, "fwd_ms", "fwd_flop"), "", "Backward:", "",
           table(rows, lens, "bwd_ms", "bwd_flop"), "",
           "Ours against the reference peer (relative error):", ""]
    for r in rows:
        rel = r.get("ours", {}).get("rel")
        if rel:
            out.append("- D=%d %s vs %s: %s" % (
                r["D"], "causal" if r["causal"] else "none", r["reference"],
                ", ".join("%s %.1e" % kv for kv in rel.items())))
    return "\n".join(out) + "\n"


def main():
    ap = torch_op_arguments(__doc__, "the rows")
    ap.add_argument("--tokens", type=int, default=16384)
    ap.add_argument("--min-len", type=int, default=64)
    ap.add_argument("--max-len", type=int, default=4096)
    ap.add_argument("--seed", type=int, default=32)
    ap.add_argument("--iters", type=int, default=20)
    a = ap.parse_args()
    if not 1 <= a.min_len <= a.max_len or a.tokens < 1:
        ap.error("need 1 <= --min-len <= --max-len and --tokens >= 1")
    os.environ["ROCKE_CACHE_DIR"] = a.cache
    lens = lengths(a.tokens, a.min_len, a.max_len, a.seed)
    if a.prebuild:
        prebuild_torch_op(a, problems(lens))
        return 0
    import torch
    sys.path.insert(0, str(HERE))
    from peers import raise_recompile_limits
    raise_recompile_limits(len(POINTS))
    results = dict(device="%s, torch %s" % (torch.cuda.get_device_name(),
                                             torch.__version__),
                   lengths=lens, rows=[])
    print(results["device"], "lengths", lens, flush=True)
    for d, causal in POINTS:
        row = bench_row(torch, lens, d, causal, a.iters)
        results["rows"].append(row)
        print(json.dumps(row), flush=True)
    text = markdown(results)
    print(text)
    if a.out:
        write_report(a.out, results, "run_varlen.json", text,
                     "run_varlen.md")
    return 0 if all("fwd_ms" in r.get("ours", {}) for r in
                    results["rows"]) else 1


if __name__ == "__main__":
    sys.exit(main())
