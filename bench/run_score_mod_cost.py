#!/usr/bin/env python3
"""What a score modification costs (issue 33): the forward and the backward
of rocke.torch.attention with FlashAttention's softcap and ALiBi arguments
and with learnable sinks, next to the same op unmodified and to
FlexAttention compiled for the shape with the same score_mod, in one run.
Flex has no sinks: its row is Flex's output rescaled by its own LSE, O
exp(lse) / (exp(lse) + exp(sink)) = O sigmoid(lse - sink), differentiated
through both (the sinks' gradient included), as a Flex user would write
it. Flex has no dropout either: the dropout row's peer is SDPA's flash
backend (FlashAttention-2's kernels) with the same dropout_p, and its
results are not compared (the masks differ). The bias row: an f32 bias
[1, H, S, S] (broadcast over the batch, so dBias sums by atomic adds) with
its gradient; Flex reads it in its score_mod as a captured tensor.

Problem: bf16, D = 128, S = 4096, B = 4, H = 16 (query and key heads), no
mask and causal. FLOP as bench/cases.py counts them: 4 (forward) or 10
(backward) * B * H * S^2 * D, halved for causal; the modification's own
arithmetic is not counted, so a slower modified kernel shows as fewer
TFLOP/s. Timed: the median of CUDA-event-timed iterations after warm-up,
forward and backward apart (the backward is autograd.grad on a retained
graph), ours through the op as a user calls it. Flex runs on its own
[B, H, S, D] tensors, compiled once per shape and score_mod
(torch.compile(flex_attention, dynamic=False)), its block mask built
outside the timing. Ours' O, dQ, dK, dV are compared with Flex's.

  python3 bench/run_score_mod_cost.py --prebuild   (here: rocke-opt, no GPU)
  python3 bench/run_score_mod_cost.py --out DIR    (GPU; carry bench/out/torch-cache)
"""
import math
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "python"))
sys.path.insert(0, str(HERE))
import rocke.torch as rt  # noqa: E402
from cases import (alibi_slopes, prebuild_torch_op,  # noqa: E402
                   sink_logits, torch_op_arguments, write_report)

B, S, HEADS, D = 4, 4096, 16, 128
CAP = 30.0  # Gemma 2's attention softcap
WARMUP = 3
MODS = ("none", "softcap", "alibi", "sinks", "dropout", "bias")
BIAS_SHAPE = (1, HEADS, S, S)
DROPOUT_P = 0.1


def op_arguments(mod):
    """rocke.torch.attention's keywords for modification `mod` (the slopes
    and sinks as lists)."""
    return dict(softcap=CAP if mod == "softcap" else 0.0,
                alibi_slopes=alibi_slopes(HEADS) if mod == "alibi" else None,
                sinks=sink_logits(HEADS) if mod == "sinks" else None,
                dropout_p=DROPOUT_P if mod == "dropout" else 0.0)


def problems():
    """What --prebuild compiles: every modification, both masks."""
    shape = (B, S, HEADS, D)
    return [rt.problem(shape, shape, "bf16", causal=causal, **op_arguments(m),
                       **({"bias": (BIAS_SHAPE, "f32")} if m == "bias"
                          else {}))
            for m in MODS for causal in (False, True)]


def flops(causal, per_pair):
    return per_pair * B * HEADS * S * S * D / (2 if causal else 1)


def bench_row(torch, mod, causal, iters):
    from run_bwd import time_ms
    from peers import causal_block_mask, checked_flex, compiled_flex
    gen = torch.Generator(device="cuda").manual_seed(7)
    q, k, v, do = (torch.randn(B, S, HEADS, D, device="cuda",
                               dtype=torch.bfloat16, generator=gen)
                   for _ in range(4))
    kw = op_arguments(mod)
    for key in ("alibi_slopes", "sinks"):
        if kw[key] is not None:
            kw[key] = torch.tensor(kw[key], device="cuda")
    slopes, sinks = kw.pop("alibi_slopes"), kw.pop("sinks")
    scale = 1.0 / math.sqrt(D)
    # The extra differentiable input (sinks, bias), as both take it.
    extra = () if sinks is None else (sinks,)
    if mod == "bias":
        extra = (torch.randn(BIAS_SHAPE, device="cuda", generator=gen) * 0.5,)

    def score_mod(score, b, h, qi, ki):
        if mod == "softcap":
            return CAP * torch.tanh(score / CAP)
        return score - slopes[h] * (qi - ki).abs()
    block_mask = causal_block_mask(S) if causal else None
    flex = compiled_flex()

    def flex_with_sinks(q, k, v, sink):
        o, lse = flex(q, k, v, block_mask=block_mask, scale=scale,
                      return_lse=True)
        return o * torch.sigmoid(lse - sink[None, :, None])[..., None]

    def flex_with_bias(q, k, v, bias):
        return flex(q, k, v, score_mod=lambda score, b, h, qi, ki:
                    score + bias[0, h, qi, ki], block_mask=block_mask,
                    scale=scale)

    # Each runner: its forward of (q, k, v[, extra]) and its tensors.
    if mod == "dropout":
        def ours(q, k, v):
            return rt.attention(q, k, v, causal=causal, **kw)

        def theirs(q, k, v):
            from torch.nn.attention import SDPBackend, sdpa_kernel
            with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
                return torch.nn.functional.scaled_dot_product_attention(
                    q, k, v, dropout_p=DROPOUT_P, is_causal=causal,
                    scale=scale)
    elif sinks is not None:
        ours = (lambda q, k, v, s: rt.attention(q, k, v, causal=causal,
                                                sinks=s, **kw))
        theirs = flex_with_sinks
    elif mod == "bias":
        ours = (lambda q, k, v, bias: rt.attention(q, k, v, causal=causal,
                                                   bias=bias, **kw))
        theirs = flex_with_bias
    else:
        def ours(q, k, v):
            return rt.attention(q, k, v, causal=causal, alibi_slopes=slopes,
                                **kw)

        def theirs(q, k, v):
            return flex(q, k, v,
                        score_mod=None if mod == "none" else score_mod,
                        block_mask=block_mask, scale=scale)
    runners = {
        "ours": (ours, (q, k, v) + extra, do),
        "flex": (theirs, tuple(t.transpose(1, 2).contiguous()
                               for t in (q, k, v)) + extra,
                 do.transpose(1, 2).contiguous()),
    }
    row = dict(mod=mod, causal=causal, fwd_flop=flops(causal, 4),
               bwd_flop=flops(causal, 10))
    results = {}
    def measure(forward, inputs, g):
        with torch.no_grad():
            fwd_ms = time_ms(lambda: forward(*inputs), iters, WARMUP)
        leaves = [t.detach().requires_grad_() for t in inputs]
        o = forward(*leaves)
        grads = torch.autograd.grad(o, leaves, g, retain_graph=True)
        bwd_ms = time_ms(lambda: torch.autograd.grad(
            o, leaves, g, retain_graph=True), iters, WARMUP)
        return dict(fwd_ms=fwd_ms, bwd_ms=bwd_ms), (o.detach(),) + grads

    for name, (forward, inputs, g) in runners.items():
        try:
            run = (lambda: measure(forward, inputs, g))
            # A Flex peer that Dynamo ran eagerly is an error, not a time.
            row[name], results[name] = run() if name == "ours" or \
                mod == "dropout" else checked_flex(run)
        except Exception as e:  # a peer failing is reported, not fatal
            row[name] = dict(error=(str(e).splitlines() or [repr(e)])[0]
                             [:160])
        torch.cuda.synchronize()
    if "ours" in results and "flex" in results and mod != "dropout":
        row["ours"]["rel_vs_flex"] = {
            n: float((x.float() - r.transpose(1, 2).float()).abs().max() /
                     r.float().abs().max().clamp_min(1e-30))
            for n, x, r in zip(("o", "dq", "dk", "dv"), results["ours"],
                               results["flex"])}
        if extra:
            x, r = results["ours"][4].float(), results["flex"][4].float()
            row["ours"]["rel_vs_flex"]["d" + mod] = float(
                (x - r).abs().max() / r.abs().max().clamp_min(1e-30))
    return row


def table(rows, what, per_flop):
    """Per modification and mask: ours and Flex in ms (TFLOP/s), ours over
    ours unmodified, ours over Flex."""
    plain = {r["causal"]: r["ours"].get(what) for r in rows
             if r["mod"] == "none" and "ours" in r}
    out = ["| modification | mask | ours ms (TFLOP/s) | Flex ms (TFLOP/s) | "
           "ours time / ours unmodified | ours / Flex (speed) |",
           "|---|---|---|---|---|---|"]
    for r in rows:
        cells = [r["mod"], "causal" if r["causal"] else "none"]
        for n in ("ours", "flex"):
            x = r.get(n, {})
            cells.append("%.3f (%.0f)" % (x[what], r[per_flop] / x[what] / 1e9)
                         if what in x else "ERR: " + x.get("error", "not run"))
        ours, flex = r.get("ours", {}).get(what), r.get("flex", {}).get(what)
        base = plain.get(r["causal"])
        cells.append("%.2f" % (ours / base) if ours and base else "-")
        cells.append("%.2fx" % (flex / ours) if ours and flex else "-")
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def markdown(results):
    rows = results["rows"]
    out = ["Device: %s. bf16, B = %d, S = %d, H = %d, D = %d; softcap %g, "
           "ALiBi slopes 2^(-8i/H), sinks -1 .. 2 (Flex: its output "
           "rescaled by its LSE), dropout p = %g (the 'Flex' column: SDPA's "
           "flash backend with the same p)." % (results["device"], B, S,
                                                HEADS, D, CAP, DROPOUT_P),
           "", "Forward:", "", table(rows, "fwd_ms", "fwd_flop"), "",
           "Backward:", "", table(rows, "bwd_ms", "bwd_flop"), "",
           "Ours against Flex (relative error):", ""]
    for r in rows:
        rel = r.get("ours", {}).get("rel_vs_flex")
        if rel:
            out.append("- %s %s: %s" % (
                r["mod"], "causal" if r["causal"] else "none",
                ", ".join("%s %.1e" % kv for kv in rel.items())))
    return "\n".join(out) + "\n"


def main():
    ap = torch_op_arguments(__doc__, "the rows")
    ap.add_argument("--iters", type=int, default=20)
    a = ap.parse_args()
    os.environ["ROCKE_CACHE_DIR"] = a.cache
    if a.prebuild:
        prebuild_torch_op(a, problems())
        return 0
    import torch
    from peers import raise_recompile_limits
    raise_recompile_limits(len(MODS) * 2)
    results = dict(device="%s, torch %s" % (torch.cuda.get_device_name(),
                                             torch.__version__), rows=[])
    for mod in MODS:
        for causal in (False, True):
            row = bench_row(torch, mod, causal, a.iters)
            results["rows"].append(row)
            print(row, flush=True)
    text = markdown(results)
    print(text)
    if a.out:
        write_report(a.out, results, "run_score_mod_cost.json", text,
                     "run_score_mod_cost.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
