#!/usr/bin/env python3
"""rocke.torch.attention on the GPU, checked in one process (issue 32, part
2): the evidence that the PyTorch op computes what SDPA does.

1. gradients: per case (dtype bf16 / f16, D = 64 ... 256, MHA 16/16 and GQA
   16/4, no mask / causal, Sq != Sk, windows, deterministic mode, inputs in
   SDPA's [B, H, S, D] memory order), O and dQ, dK, dV of our op (forward,
   then autograd's backward with a random dO) against float32 SDPA (the
   math backend on float32 copies, K and V repeated per query head, the
   mask as a boolean matrix): relative error max|x - ref| / max|ref|; a
   case fails past max(3 x PyTorch's own low-precision SDPA error, floor)
   as in bench/run_bwd.py, the statistics (natural-log LSE) past 1e-4;
   deterministic cases must give identical bits twice. Query rows a
   bottom-right mask leaves without keys (Sq > Sk) must get O = 0, dQ = 0
   and LSE = -inf; the references take the other rows.
   Packed (varlen) batches, q [T_q, Hq, D] with cu_seqlens: the same
   checks against float32 SDPA run on each sequence's slice (masks
   bottom-right within each sequence), with an empty sequence, length 1,
   lengths no tile divides, Sq != Sk per sequence, GQA, deterministic mode
   and tokens past the last sequence (O and gradients 0 there).
2. errors: CPU tensors, float32, an unsupported head dim and malformed
   varlen arguments (and, with check_offsets, offsets past max_seqlen) are
   refused with the exception the docstring names.
3. torch.compile: a two-block transformer using the op, compiled with
   fullgraph=True, against eager (output and every parameter gradient), our
   kernels counted in the compiled run; a second sequence length (Dynamo's
   automatic dynamic shapes recompile the graph with symbolic sizes); a
   packed batch's call compiled against eager.

Writes torch_check.json and torch_check.md under --out; exit status 1 when
any check fails or errs.

Where rocke-opt is (no GPU, no PyTorch needed), compile every case's
kernels into the cache first; the GPU machine then needs no compiler:
  python3 bench/torch_check.py --prebuild [--cache bench/out/torch-cache]
On the GPU machine (PyTorch >= 2.4 and CuPy; carry bench/out/torch-cache):
  python3 bench/torch_check.py --out DIR [--cache bench/out/torch-cache]
"""
import json
import math
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "python"))
from rocke import torch as rt  # noqa: E402
from cases import (alibi_slopes, modified_scores,  # noqa: E402
                   philox_keep, sink_logits, softmax_with_sinks,
                   prebuild_torch_op, torch_op_arguments, write_report)

LSE_REL_TOL = 1e-4  # as bench/run_fwd.py
# Dropout cases' Philox seed and offset (high words not 0).
DROPOUT_SEED, DROPOUT_OFFSET = 0x123456789ABCD, 0xFFFFFFFF


def case(dtype, D, Hq, Hkv, Sq, Sk=None, B=2, causal=False, window=None,
         deterministic=False, layout="bshd", softcap=0.0, alibi=False,
         sinks=False, dropout=0.0, bias=None):
    c = dict(dtype=dtype, D=D, Hq=Hq, Hkv=Hkv, B=B, Sq=Sq,
             Sk=Sq if Sk is None else Sk, causal=causal, window=window,
             deterministic=deterministic, layout=layout, softcap=softcap,
             alibi=alibi, sinks=sinks, dropout=dropout, bias=bias)
    mask = "causal" if causal else "none"
    if window:
        mask = "window%d,%d%s" % (window[0], window[1],
                                  "+causal" if causal else "")
    c["name"] = "%s_d%d_h%d_%d_%s_%dx%d%s%s%s%s%s%s" % (
        dtype, D, Hq, Hkv, mask, c["Sq"], c["Sk"],
        "_det" if deterministic else "",
        "_" + layout if layout != "bshd" else "",
        "_softcap%g" % softcap if softcap else "_alibi" if alibi else "",
        "_sinks" if sinks else "", "_dropout%g" % dropout if dropout else "",
        "_bias_%s_%s" % bias if bias else "")
    return c


def score_mods(c):
    """rocke.torch.attention's score-modification arguments of case c (the
    slopes and sinks as lists: rt.problem needs only their count)."""
    return dict(softcap=c.get("softcap", 0.0),
                alibi_slopes=alibi_slopes(c["Hq"]) if c.get("alibi")
                else None,
                sinks=sink_logits(c["Hq"]) if c.get("sinks") else None,
                dropout_p=c.get("dropout", 0.0))


def bias_shape(c):
    """Case c's bias shape: `c["bias"]` = (broadcast, dtype), broadcast
    "none" ([B, Hq, Sq, Sk]), "batch" or "heads" (extent 1 there)."""
    over = c["bias"][0]
    return (1 if over == "batch" else c["B"], 1 if over == "heads" else
            c["Hq"], c["Sq"], c["Sk"])


def bias_argument(c):
    """rt.problem's bias keyword of case c (its gradient asked for)."""
    return dict(bias=(bias_shape(c), c["bias"][1])) if c.get("bias") else {}


def cases():
    """The gradient matrix: every dtype, D 64 and 128, MHA / GQA, no mask /
    causal at S = 500 (a multiple of no tile); D 96, 192, 256 in two
    corners; Sq != Sk (bottom-right causal, Sq < Sk, so every query sees a
    key); windows; deterministic mode; [B, H, S, D] memory order."""
    out = []
    for dtype in ("bf16", "f16"):
        for D in (64, 128):
            for hq, hkv in ((16, 16), (16, 4)):
                for causal in (False, True):
                    out.append(case(dtype, D, hq, hkv, 500, causal=causal))
    for D in (96, 192, 256):
        out.append(case("bf16", D, 16, 4, 384, causal=True))
        out.append(case("f16", D, 16, 16, 300))
    out += [case("bf16", 64, 16, 4, 200, 520, causal=True),
            case("f16", 128, 16, 16, 300, 100),
            case("bf16", 128, 16, 4, 300, 100, causal=True),  # 200 keyless
            case("bf16", 64, 16, 4, 700, causal=True, window=(128, 0)),
            case("bf16", 128, 16, 16, 600, window=(64, 64)),
            case("bf16", 128, 16, 4, 1000, causal=True, deterministic=True),
            case("f16", 64, 16, 16, 513, deterministic=True),
            case("bf16", 64, 16, 4, 640, causal=True, layout="bhsd"),
            # Score modifications (issue 33) against an eager reference: a
            # cap small enough to bend randn scores; ALiBi's usual slopes.
            case("bf16", 128, 16, 4, 500, causal=True, softcap=2.0),
            case("f16", 64, 16, 16, 300, softcap=2.0),
            case("bf16", 128, 16, 4, 500, causal=True, alibi=True),
            case("f16", 64, 16, 16, 300, alibi=True),
            # Learnable sinks (GPT-OSS), with dSink against autograd: with
            # keyless rows (their LSE is the sink), GQA, a softcap.
            case("bf16", 128, 16, 4, 300, 100, causal=True, sinks=True),
            case("f16", 64, 16, 16, 500, sinks=True),
            case("bf16", 64, 16, 4, 500, causal=True, softcap=2.0,
                 sinks=True),
            # Dropout (Philox; the reference draws the same mask), through
            # the custom ops with a given seed: GQA causal, and with sinks.
            case("bf16", 128, 16, 4, 500, causal=True, dropout=0.1),
            case("f16", 64, 16, 16, 300, sinks=True, dropout=0.3),
            # An additive bias with dBias against autograd: f32 per batch
            # and head (stored), bf16 broadcast over the heads with a
            # softcap and GQA (atomic adds), f16 over the batch.
            case("bf16", 128, 16, 4, 500, causal=True, bias=("none", "f32")),
            case("bf16", 64, 16, 4, 400, softcap=2.0, bias=("heads", "bf16")),
            case("f16", 64, 16, 16, 300, causal=True, bias=("batch", "f16"))]
    return out


def varlen_case(dtype, D, Hq, Hkv, seqs_q, seqs_k=None, causal=False,
                window=None, deterministic=False, pad=0):
    """A packed batch: sequence b has seqs_q[b] queries and seqs_k[b] keys
    (default seqs_q); `pad` tokens follow the last sequence in q and k."""
    seqs_k = list(seqs_q if seqs_k is None else seqs_k)
    c = dict(varlen=True, dtype=dtype, D=D, Hq=Hq, Hkv=Hkv,
             seqs_q=list(seqs_q), seqs_k=seqs_k, causal=causal,
             window=window, deterministic=deterministic, pad=pad,
             layout="bshd")
    mask = "causal" if causal else "none"
    if window:
        mask = "window%d,%d%s" % (window[0], window[1],
                                  "+causal" if causal else "")
    c["name"] = "varlen_%s_d%d_h%d_%d_%s_%s%s%s" % (
        dtype, D, Hq, Hkv, mask, "+".join(
            "%dx%d" % qk if qk[0] != qk[1] else str(qk[0])
            for qk in zip(c["seqs_q"], seqs_k)),
        "_pad%d" % pad if pad else "", "_det" if deterministic else "")
    return c


def sequences(c):
    """The per-sequence cases (B = 1) of a packed case."""
    return [dict(c, varlen=False, B=1, Sq=sq, Sk=sk)
            for sq, sk in zip(c["seqs_q"], c["seqs_k"])]


def offsets(lengths):
    out = [0]
    for n in lengths:
        out.append(out[-1] + n)
    return out


def varlen_cases():
    """Packed batches: an empty sequence, length 1, lengths no tile
    divides, Sq != Sk per sequence (bottom-right causal, and rows without
    keys), GQA, windows, deterministic mode, padding tokens, a mix of
    lengths."""
    import random
    mix = random.Random(32)
    lengths = [mix.randint(1, 1100) for _ in range(12)]
    return [
        varlen_case("bf16", 128, 16, 4, [300, 1, 0, 517, 64], causal=True,
                    pad=3),
        varlen_case("bf16", 64, 16, 4, [100, 1, 0, 250], [300, 7, 5, 250],
                    causal=True),
        varlen_case("f16", 128, 16, 16, [129, 1, 400], [33, 260, 1]),
        varlen_case("bf16", 128, 16, 4, [700, 1, 0, 333], causal=True,
                    deterministic=True),
        varlen_case("f16", 64, 16, 16, [513, 2, 200], [640, 9, 200],
                    deterministic=True),
        varlen_case("bf16", 64, 16, 16, [200, 513, 3], window=(64, 64)),
        varlen_case("bf16", 128, 16, 4, [300, 50, 4], [100, 80, 0],
                    causal=True),  # 200 + 4 rows see no key
        varlen_case("bf16", 128, 16, 4, lengths, causal=True),
    ]


def varlen_problem(c):
    total_q, total_k = sum(c["seqs_q"]) + c["pad"], sum(c["seqs_k"]) + \
        c["pad"]
    return rt.problem((total_q, c["Hq"], c["D"]), (total_k, c["Hkv"], c["D"]),
                      c["dtype"], causal=c["causal"], window=c["window"],
                      deterministic=c["deterministic"],
                      cu_seqlens_q=offsets(c["seqs_q"]),
                      cu_seqlens_k=offsets(c["seqs_k"]),
                      max_seqlen_q=max(max(c["seqs_q"]), 1),
                      max_seqlen_k=max(max(c["seqs_k"]), 1))


# The torch.compile model: blocks of d_model = HEADS * HEAD_DIM.
MODEL = dict(heads=4, head_dim=64, blocks=2, batch=2, seqs=(256, 192))
# A packed batch under torch.compile against eager.
COMPILE_VARLEN = varlen_case("bf16", 64, 4, 2, [200, 1, 0, 311],
                             causal=True)


def problems():
    """Every Problem this script runs (what --prebuild compiles)."""
    out = [rt.problem((c["B"], c["Sq"], c["Hq"], c["D"]),
                      (c["B"], c["Sk"], c["Hkv"], c["D"]), c["dtype"],
                      causal=c["causal"], window=c["window"],
                      deterministic=c["deterministic"], **score_mods(c),
                      **bias_argument(c))
           for c in cases()]
    out += [varlen_problem(c) for c in varlen_cases() + [COMPILE_VARLEN]]
    for s in MODEL["seqs"]:
        out.append(rt.problem((MODEL["batch"], s, MODEL["heads"],
                               MODEL["head_dim"]),
                              (MODEL["batch"], s, MODEL["heads"],
                               MODEL["head_dim"]), "bf16", causal=True))
    return out


def visible(c):
    """The band of keys a query sees, (left, right, Sk - Sq): query i sees
    key j for i + off - left <= j <= i + off + right (a bound of -1 is
    none; FlashAttention's bottom-right alignment), None for no mask."""
    left, right = rt.window_extents(c["causal"], c["window"])
    if left < 0 and right < 0:
        return None
    return left, right, c["Sk"] - c["Sq"]


def keyless_rows(c):
    """How many query rows see no key."""
    if c.get("varlen"):
        return sum(keyless_rows(s) for s in sequences(c))
    band = visible(c)
    if band is None:
        return 0 if c["Sk"] else c["Sq"]
    left, right, off = band
    n = 0
    for i in range(c["Sq"]):
        lo = 0 if left < 0 else max(0, i + off - left)
        hi = c["Sk"] - 1 if right < 0 else min(c["Sk"] - 1, i + off + right)
        n += lo > hi
    return n


# --------------------------------------------------------------------------
# On the GPU
# --------------------------------------------------------------------------

def gpu_checks(a, results):
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel
    from run_bwd import REL_FLOOR, attempt, check_against, fail, rel_err

    torch.set_float32_matmul_precision("highest")  # float32 references
    DT = {"bf16": torch.bfloat16, "f16": torch.float16}
    start = time.time()

    def budget_left():
        return a.budget_s - (time.time() - start)

    def mask_matrix(c):
        band = visible(c)
        if band is None:
            return None
        left, right, off = band
        i = torch.arange(c["Sq"], device="cuda")[:, None]
        j = torch.arange(c["Sk"], device="cuda")[None, :]
        m = torch.ones(c["Sq"], c["Sk"], dtype=torch.bool, device="cuda")
        if right >= 0:
            m &= j <= i + off + right
        if left >= 0:
            m &= j >= i + off - left
        return m

    def sdpa(c, q, k, v, do, mask, dtype):
        """O and (dQ, dK, dV), [B, S, H, D], of SDPA on `dtype` copies with
        the boolean `mask` [Sq, Sk] (None: none): float32 on the math
        backend (the reference), the low-precision dtype on SDPA's own
        choice (PyTorch's error, for the tolerance; is_causal where the mask
        is the top-left causal one, so flash / cuDNN run)."""
        leaves = [x.detach().to(dtype).requires_grad_() for x in (q, k, v)]
        group = c["Hq"] // c["Hkv"]
        qt = leaves[0].transpose(1, 2)
        kt, vt = (x.transpose(1, 2).repeat_interleave(group, dim=1)
                  for x in leaves[1:])
        scale = 1.0 / math.sqrt(c["D"])
        sq, sk = q.shape[1], k.shape[1]
        top_left_causal = mask is not None and sq == sk and torch.equal(
            mask, torch.ones_like(mask).tril())
        if dtype == torch.float32:
            with sdpa_kernel(SDPBackend.MATH):
                o = F.scaled_dot_product_attention(qt, kt, vt, attn_mask=mask,
                                                   scale=scale)
        elif top_left_causal:
            o = F.scaled_dot_product_attention(qt, kt, vt, is_causal=True,
                                               scale=scale)
        else:
            o = F.scaled_dot_product_attention(qt, kt, vt, attn_mask=mask,
                                               scale=scale)
        o = o.transpose(1, 2)
        grads = torch.autograd.grad(o, leaves, do.to(dtype))
        return o.detach(), grads

    def case_scores(c, qt, kt, rows):
        """The scaled scores [B, Hq, Sq, Sk] of [B, H, S, D] operands with
        case c's score modification; `rows`, the query positions of qt's
        rows (ALiBi's |q - k| counts from the sequence's start)."""
        s = (qt @ kt.transpose(-1, -2)) / math.sqrt(c["D"])
        slopes = torch.tensor(alibi_slopes(c["Hq"]), device="cuda") \
            if c.get("alibi") else None
        return modified_scores(torch, s, c.get("softcap", 0.0), slopes, rows)

    def eager(c, q, k, v, do, mask, dtype, rows, sinks=None, keep=None,
              bias=None):
        """sdpa()'s results for a case with a score modification, sinks or
        dropout (`keep`, the mask of kept probabilities), which SDPA does
        not take: attention written out in `dtype` (float32 the reference,
        the low precision for the tolerance); the gradients end with dSinks
        where there are sinks (float32 leaves), then dBias (the bias's
        dtype; `bias` holds the rows of `rows`)."""
        leaves = [x.detach().to(dtype).requires_grad_() for x in (q, k, v)]
        if sinks is not None:
            leaves.append(sinks.detach().float().requires_grad_())
        if bias is not None:  # the reference's in float32
            leaves.append(bias.detach().to(
                torch.float32 if dtype == torch.float32 else bias.dtype)
                .requires_grad_())
        group = c["Hq"] // c["Hkv"]
        qt = leaves[0].transpose(1, 2)
        kt, vt = (x.transpose(1, 2).repeat_interleave(group, dim=1)
                  for x in leaves[1:3])
        s = case_scores(c, qt, kt, rows)
        if bias is not None:
            s = s + leaves[-1].to(s.dtype)
        if mask is not None:
            s = s.masked_fill(~mask, float("-inf"))
        probs = softmax_with_sinks(torch, s.float(),
                                   leaves[3] if sinks is not None else None)
        if keep is not None:
            probs = probs * keep / (1.0 - rt.round_to_f32(c["dropout"]))
        o = (probs.to(dtype) @ vt).transpose(1, 2)
        grads = torch.autograd.grad(o, leaves, do.to(dtype))
        return o.detach(), grads

    def reference_lse(c, q, k, mask, rows=None, sinks=None, bias=None):
        """Natural-log LSE [B, Hq, Sq] in float32, the bias and the sinks
        included."""
        group = c["Hq"] // c["Hkv"]
        qt = q.float().transpose(1, 2)
        kt = k.float().transpose(1, 2).repeat_interleave(group, dim=1)
        s = case_scores(c, qt, kt, rows)
        if bias is not None:
            s = s + bias.float()
        if mask is not None:
            s = s.masked_fill(~mask, float("-inf"))
        if sinks is not None:
            s = torch.cat([s, sinks.float()[None, :, None, None].expand(
                *s.shape[:3], 1)], dim=-1)
        return torch.logsumexp(s, dim=-1)

    def check_repeat(row, grads, again):
        """Deterministic mode: a second run's gradients, bit for bit."""
        same = all(torch.equal(x.view(torch.int16), y.view(torch.int16))
                   for x, y in zip(grads, again))
        row["bitwise_repeat"] = same
        if not same:
            fail(row, "gradient bits differ between two runs")

    def tensors_of(c):
        """score_mods(c) with the slopes and sinks as float32 tensors."""
        mods = score_mods(c)
        for key in ("alibi_slopes", "sinks"):
            if mods[key] is not None:
                mods[key] = torch.tensor(mods[key], device="cuda")
        return mods

    def seed_offset_of(c):
        return torch.tensor([DROPOUT_SEED, DROPOUT_OFFSET], device="cuda",
                            dtype=torch.int64) if c["dropout"] else None

    def forward_op(c, q, k, v, mods, seed_offset):
        """The custom op's O and LSE (dropout needs its seed given, which
        attention() draws)."""
        p = rt.check_inputs(q, k, v, causal=c["causal"], window=c["window"],
                            **mods)
        return torch.ops.rocke.attention_forward(
            q, k, v, p.window_left, p.window_right, p.scale,
            c["deterministic"], None, None, 0, 0, p.softcap,
            mods["alibi_slopes"], mods["sinks"], p.dropout_p, seed_offset,
            mods.get("bias"))

    def ours(c, q, k, v, do, bias=None):
        """O and the gradients of q, k, v (then of the sinks and of the
        bias, where the case has them): through attention(), or, with
        dropout, the custom ops and their autograd."""
        leaves = [x.detach().clone().requires_grad_() for x in (q, k, v)]
        mods = tensors_of(c)
        if mods["sinks"] is not None:
            mods["sinks"].requires_grad_()
            leaves.append(mods["sinks"])
        if bias is not None:
            mods["bias"] = bias.detach().clone().requires_grad_()
            leaves.append(mods["bias"])
        if c["dropout"]:
            o = forward_op(c, *leaves[:3], mods, seed_offset_of(c))[0]
        else:
            o = rt.attention(*leaves[:3], causal=c["causal"],
                             window=c["window"],
                             deterministic=c["deterministic"], **mods)
        o.backward(do)
        return o.detach(), [x.grad for x in leaves]

    def check_drawn_seeds(row, c, q, k, v):
        """attention(dropout_p=) draws its seed from PyTorch's generator:
        torch.manual_seed repeats a mask, another seed changes it."""
        mods = tensors_of(c)

        def run(seed):
            torch.manual_seed(seed)
            return rt.attention(q, k, v, causal=c["causal"],
                                window=c["window"], **mods)
        first, again, other = run(1), run(1), run(2)
        if not torch.equal(first, again):
            fail(row, "attention(dropout_p) differs under one manual_seed")
        if torch.equal(first, other):
            fail(row, "attention(dropout_p) ignores manual_seed")

    def check_case(c):
        g = torch.Generator(device="cuda").manual_seed(1234)
        dt = DT[c["dtype"]]

        def rnd(s, h):
            x = torch.randn(c["B"], s, h, c["D"], generator=g, device="cuda",
                            dtype=torch.float32).to(dt)
            if c["layout"] == "bhsd":  # [B, S, H, D] view of [B, H, S, D]
                x = x.transpose(1, 2).contiguous().transpose(1, 2)
            return x
        q, k, v = rnd(c["Sq"], c["Hq"]), rnd(c["Sk"], c["Hkv"]), \
            rnd(c["Sk"], c["Hkv"])
        do = rnd(c["Sq"], c["Hq"])
        bias = None
        if c["bias"]:
            bias = (torch.randn(bias_shape(c), generator=g, device="cuda") *
                    0.5).to(DT.get(c["bias"][1], torch.float32))
        row = dict(case=c["name"], ok=True, notes="")
        torch.cuda.synchronize()
        t0 = time.time()
        o, grads = ours(c, q, k, v, do, bias)  # includes kernel loading
        torch.cuda.synchronize()
        row["first_call_ms"] = (time.time() - t0) * 1e3
        t0 = time.time()
        o, grads = ours(c, q, k, v, do, bias)
        torch.cuda.synchronize()
        row["ms"] = (time.time() - t0) * 1e3
        mask = mask_matrix(c)
        seen = mask.any(dim=1) if mask is not None else \
            torch.ones(c["Sq"], dtype=torch.bool, device="cuda")
        row["keyless_rows"] = int((~seen).sum())
        assert row["keyless_rows"] == keyless_rows(c), "mask matrix"
        # The references on the rows that see a key: keyless rows add
        # nothing to dK, dV (and make SDPA's rows NaN).
        sub = (q[:, seen], k, v, do[:, seen],
               None if mask is None else mask[seen])
        sinks = tensors_of(c)["sinks"]
        keep = None
        if c["dropout"]:
            keep = philox_keep(torch, DROPOUT_SEED, DROPOUT_OFFSET,
                               c["dropout"], c["B"], c["Hq"], c["Sq"],
                               c["Sk"])[:, :, seen]
            row["dropped"] = float(1.0 - keep.float().mean())
            check_drawn_seeds(row, c, q, k, v)
        seen_bias = None if bias is None else bias[:, :, seen]
        if c["softcap"] or c["alibi"] or c["sinks"] or c["dropout"] or \
                c["bias"]:
            rows = torch.arange(c["Sq"], device="cuda")[seen]
            ref_o, ref_g = eager(c, *sub, torch.float32, rows, sinks, keep,
                                 seen_bias)
            low_o, low_g = eager(c, *sub, dt, rows, sinks, keep, seen_bias)
        else:
            ref_o, ref_g = sdpa(c, *sub[:4], sub[4], torch.float32)
            low_o, low_g = sdpa(c, *sub[:4], sub[4], dt)
        floor = REL_FLOOR[c["dtype"]]
        check_against(row, "o", o[:, seen], ref_o, low_o, floor)
        names = ["dq", "dk", "dv"] + ["dsinks"] * bool(c["sinks"]) + \
            ["dbias"] * bool(c["bias"])
        for name, x, r, lo in zip(names, grads, ref_g, low_g):
            check_against(row, name, x[:, seen] if name == "dq" else
                          x[:, :, seen] if name == "dbias" else x, r, lo,
                          floor)
        with torch.no_grad():
            mods = tensors_of(c)
            mods["bias"] = bias
            _, lse = forward_op(c, q, k, v, mods, seed_offset_of(c))
            _, lse_rel = rel_err(lse[:, :, seen],
                                 reference_lse(c, q, k, mask, None, sinks,
                                               bias)[:, :, seen])
        row["lse"] = dict(rel=lse_rel, tol=LSE_REL_TOL)
        if not lse_rel <= LSE_REL_TOL:
            fail(row, "lse rel %.2e > %.2e" % (lse_rel, LSE_REL_TOL))
        if row["keyless_rows"]:
            if not bool((o[:, ~seen] == 0).all()):
                fail(row, "O != 0 on rows that see no key")
            if not bool((grads[0][:, ~seen] == 0).all()):
                fail(row, "dQ != 0 on rows that see no key")
            if sinks is None:
                if not bool((lse[:, :, ~seen] == float("-inf")).all()):
                    fail(row, "LSE != -inf on rows that see no key")
            # The sink alone: its logit, through the kernels' log2 domain
            # (sink log2 e, then ln 2), so within an ulp or two.
            elif not torch.allclose(
                    lse[:, :, ~seen],
                    sinks[None, :, None].expand_as(lse)[:, :, ~seen],
                    rtol=1e-6, atol=0.0):
                fail(row, "LSE != the sink on rows that see no key")
        if c["deterministic"]:
            check_repeat(row, grads, ours(c, q, k, v, do, bias)[1])
        return row

    def ours_varlen(c, q, k, v, do, cu_q, cu_k):
        leaves = [x.detach().clone().requires_grad_() for x in (q, k, v)]
        o = rt.attention(*leaves, causal=c["causal"], window=c["window"],
                         deterministic=c["deterministic"], cu_seqlens_q=cu_q,
                         cu_seqlens_k=cu_k,
                         max_seqlen_q=max(max(c["seqs_q"]), 1),
                         max_seqlen_k=max(max(c["seqs_k"]), 1))
        o.backward(do)
        return o.detach(), [x.grad for x in leaves]

    def check_varlen_case(c):
        """A packed batch against float32 SDPA on each sequence's slice;
        the packed results compared as a whole (rows that see a key)."""
        g = torch.Generator(device="cuda").manual_seed(1234)
        dt = DT[c["dtype"]]
        oq, ok = offsets(c["seqs_q"]), offsets(c["seqs_k"])
        tq, tk = oq[-1] + c["pad"], ok[-1] + c["pad"]

        def rnd(t, h):
            return torch.randn(t, h, c["D"], generator=g, device="cuda",
                               dtype=torch.float32).to(dt)
        q, k, v, do = rnd(tq, c["Hq"]), rnd(tk, c["Hkv"]), \
            rnd(tk, c["Hkv"]), rnd(tq, c["Hq"])
        cu_q, cu_k = (torch.tensor(x, dtype=torch.int32, device="cuda")
                      for x in (oq, ok))
        row = dict(case=c["name"], ok=True, notes="")
        torch.cuda.synchronize()
        t0 = time.time()
        o, grads = ours_varlen(c, q, k, v, do, cu_q, cu_k)
        torch.cuda.synchronize()
        row["first_call_ms"] = (time.time() - t0) * 1e3
        t0 = time.time()
        o, grads = ours_varlen(c, q, k, v, do, cu_q, cu_k)
        torch.cuda.synchronize()
        row["ms"] = (time.time() - t0) * 1e3
        with torch.no_grad():
            p = varlen_problem(c)
            _, lse = torch.ops.rocke.attention_forward(
                q, k, v, p.window_left, p.window_right, p.scale, False, cu_q,
                cu_k, p.max_seqlen_q, p.max_seqlen_k)
        seen = torch.zeros(tq, dtype=torch.bool, device="cuda")
        # Per packed tensor, the reference pieces (float32 and PyTorch's
        # low precision) in token order; rows without keys and padding
        # tokens compared to 0 (-inf for the LSE) separately.
        refs = {n: ([], []) for n in ("o", "dq", "dk", "dv")}
        ref_lse, our_lse = [], []
        for s, (q0, q1, k0, k1) in zip(sequences(c), zip(
                oq, oq[1:], ok, ok[1:])):
            qs, ks, vs, dos = (x[a:b][None] for x, a, b in (
                (q, q0, q1), (k, k0, k1), (v, k0, k1), (do, q0, q1)))
            mask = mask_matrix(s)
            rows = mask.any(dim=1) if mask is not None else torch.full(
                (s["Sq"],), s["Sk"] > 0, dtype=torch.bool, device="cuda")
            seen[q0:q1] = rows
            if not bool(rows.any()):  # no query sees a key: dK = dV = 0
                for n in ("dk", "dv"):
                    for part, dtype in zip(refs[n], (torch.float32, dt)):
                        part.append(torch.zeros(s["Sk"], c["Hkv"], c["D"],
                                                dtype=dtype, device="cuda"))
                continue
            sub = (qs[:, rows], ks, vs, dos[:, rows],
                   None if mask is None else mask[rows])
            for part, dtype in zip((0, 1), (torch.float32, dt)):
                o_ref, g_ref = sdpa(s, *sub[:4], sub[4], dtype)
                refs["o"][part].append(o_ref[0])
                for n, x in zip(("dq", "dk", "dv"), g_ref):
                    refs[n][part].append(x[0])
            ref_lse.append(reference_lse(s, qs, ks, mask)[0][:, rows])
            our_lse.append(lse[:, q0:q1][:, rows])
        row["keyless_rows"] = int((~seen[:oq[-1]]).sum())
        assert row["keyless_rows"] == keyless_rows(c), "mask matrices"
        floor = REL_FLOOR[c["dtype"]]
        ours_by_name = dict(o=o[seen], dq=grads[0][seen],
                            dk=grads[1][:ok[-1]], dv=grads[2][:ok[-1]])
        for n, (ref, low) in refs.items():
            check_against(row, n, ours_by_name[n], torch.cat(ref),
                          torch.cat(low), floor)
        _, lse_rel = rel_err(torch.cat(our_lse, 1), torch.cat(ref_lse, 1))
        row["lse"] = dict(rel=lse_rel, tol=LSE_REL_TOL)
        if not lse_rel <= LSE_REL_TOL:
            fail(row, "lse rel %.2e > %.2e" % (lse_rel, LSE_REL_TOL))
        unseen = ~seen  # keyless rows and padding
        if bool(unseen.any()):
            if not bool((o[unseen] == 0).all()):
                fail(row, "O != 0 on rows that see no key or pad")
            if not bool((grads[0][unseen] == 0).all()):
                fail(row, "dQ != 0 on rows that see no key or pad")
            if not bool((lse[:, :oq[-1]][:, unseen[:oq[-1]]]
                         == float("-inf")).all()):
                fail(row, "LSE != -inf on rows that see no key")
        if c["pad"] and not all(bool((x[ok[-1]:] == 0).all())
                                for x in grads[1:]):
            fail(row, "dK / dV != 0 on padding tokens")
        if c["deterministic"]:
            check_repeat(row, grads, ours_varlen(c, q, k, v, do, cu_q, cu_k)[1])
        return row

    # Packed cases first: they are the newer path.
    for c in varlen_cases() + cases():
        check = check_varlen_case if c.get("varlen") else check_case
        row = attempt(results, "case " + c["name"], budget_left,
                      lambda: check(c))
        if row is not None:
            results["gradients"].append(row)
            print_row(row)

    # --- errors ---------------------------------------------------------
    def expect(what, exc, fn):
        try:
            fn()
        except exc as e:
            results["errors_raised"].append(dict(what=what, ok=True,
                                                 message=str(e)))
            return
        except Exception as e:  # the wrong kind
            results["errors_raised"].append(dict(
                what=what, ok=False, message="%s: %s" % (type(e).__name__,
                                                         e)))
            return
        results["errors_raised"].append(dict(what=what, ok=False,
                                             message="no error"))

    x = torch.zeros(1, 64, 2, 64, dtype=torch.bfloat16, device="cuda")
    expect("CPU tensors -> ValueError", ValueError,
           lambda: rt.attention(x.cpu(), x.cpu(), x.cpu()))
    expect("float32 -> TypeError", TypeError,
           lambda: rt.attention(x.float(), x.float(), x.float()))
    y = torch.zeros(1, 64, 2, 80, dtype=torch.bfloat16, device="cuda")
    expect("head dim 80 -> ValueError", ValueError,
           lambda: rt.attention(y, y, y))
    cu = torch.tensor([0, 64], dtype=torch.int32, device="cuda")
    t = x[0]  # packed [64, 2, 64]

    def packed(q=t, cu_q=cu, cu_k=cu, **kw):
        args = dict(cu_seqlens_q=cu_q, cu_seqlens_k=cu_k, max_seqlen_q=64,
                    max_seqlen_k=64)
        args.update(kw)
        return lambda: rt.attention(q, t, t, **args)
    expect("cu_seqlens int64 -> TypeError", TypeError,
           packed(cu_q=cu.long()))
    expect("cu_seqlens on CPU -> ValueError", ValueError,
           packed(cu_k=cu.cpu()))
    expect("cu_seqlens_q alone -> ValueError", ValueError,
           packed(cu_k=None))
    expect("max_seqlen_q 0 -> ValueError", ValueError,
           packed(max_seqlen_q=0))
    expect("4-D q with cu_seqlens -> ValueError", ValueError, packed(q=x))
    expect("3-D q without cu_seqlens -> ValueError", ValueError,
           lambda: rt.attention(t, t, t))
    expect("check_offsets, sequence past max_seqlen -> ValueError",
           ValueError, packed(max_seqlen_q=32, check_offsets=True))
    for e in results["errors_raised"]:
        print("%-36s %s  %s" % (e["what"], "PASS" if e["ok"] else "FAIL",
                                e["message"][:100]), flush=True)

    # --- torch.compile ----------------------------------------------------
    row = attempt(results, "torch.compile model", budget_left,
                  lambda: compile_check(torch, rel_err))
    if row is not None:
        results["compile"] = row
        print("torch.compile: %s %s" % ("PASS" if row["ok"] else "FAIL",
                                         json.dumps(row)), flush=True)
    row = attempt(results, "torch.compile packed batch", budget_left,
                  lambda: compile_varlen_check(torch, rel_err))
    if row is not None:
        results["compile_varlen"] = row
        print("torch.compile, packed: %s %s" % (
            "PASS" if row["ok"] else "FAIL", json.dumps(row)), flush=True)


def compile_varlen_check(torch, rel_err):
    """rocke.torch.attention on a packed batch (COMPILE_VARLEN), eager and
    torch.compile(fullgraph=True): O and dQ, dK, dV within bf16 noise of
    each other (the same kernels; dQ's atomics may sum in another order),
    our kernels launched by the compiled graph (a forward and a
    backward)."""
    c = COMPILE_VARLEN
    oq, ok = offsets(c["seqs_q"]), offsets(c["seqs_k"])
    cu_q, cu_k = (torch.tensor(x, dtype=torch.int32, device="cuda")
                  for x in (oq, ok))
    g = torch.Generator(device="cuda").manual_seed(7)
    q, k, v = (torch.randn(t, h, c["D"], generator=g, device="cuda")
               .to(torch.bfloat16) for t, h in ((oq[-1], c["Hq"]),
                                                 (ok[-1], c["Hkv"]),
                                                 (ok[-1], c["Hkv"])))

    def f(q, k, v, cu_q, cu_k):
        return rt.attention(q, k, v, causal=c["causal"], cu_seqlens_q=cu_q,
                            cu_seqlens_k=cu_k,
                            max_seqlen_q=max(c["seqs_q"]),
                            max_seqlen_k=max(c["seqs_k"]))

    def run(fn):
        leaves = [x.clone().requires_grad_() for x in (q, k, v)]
        o = fn(*leaves, cu_q, cu_k)
        o.float().square().mean().backward()
        return [o.detach()] + [x.grad for x in leaves]

    ref = run(f)
    launches = {"n": 0}
    eager_run = rt._run

    def counting_run(*args, **kw):
        launches["n"] += 1
        return eager_run(*args, **kw)
    rt._run = counting_run
    try:
        got = run(torch.compile(f, fullgraph=True))
        torch.cuda.synchronize()
    finally:
        rt._run = eager_run
    rel = {n: rel_err(x, r.float())[1]
           for n, x, r in zip(("o", "dq", "dk", "dv"), got, ref)}
    row = dict(case=c["name"], ok=True, notes="", rel=rel,
               our_launches=launches["n"])
    if not max(rel.values()) <= 0.02:
        row["ok"] = False
        row["notes"] += "rel err %.2e > 0.02; " % max(rel.values())
    if launches["n"] != 2:
        row["ok"] = False
        row["notes"] += "%d launches of our kernels, want 2; " % \
            launches["n"]
    return row


def compile_check(torch, rel_err):
    """A two-block causal transformer on rocke.torch.attention, eager and
    torch.compile(fullgraph=True): outputs and every parameter gradient
    within bf16 noise of each other, our kernels launched by the compiled
    graph, at two sequence lengths."""
    import torch.nn as nn

    heads, hd = MODEL["heads"], MODEL["head_dim"]
    width = heads * hd

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.norm1, self.norm2 = nn.LayerNorm(width), nn.LayerNorm(width)
            self.q, self.k, self.v, self.proj = (nn.Linear(width, width)
                                                 for _ in range(4))
            self.mlp = nn.Sequential(nn.Linear(width, 4 * width), nn.GELU(),
                                     nn.Linear(4 * width, width))

        def forward(self, x):
            b, s, _ = x.shape
            h = self.norm1(x)
            q, k, v = (f(h).view(b, s, heads, hd)
                       for f in (self.q, self.k, self.v))
            x = x + self.proj(rt.attention(q, k, v, causal=True)
                              .reshape(b, s, width))
            return x + self.mlp(self.norm2(x))

    torch.manual_seed(0)
    model = nn.Sequential(*[Block() for _ in range(MODEL["blocks"])]).to(
        device="cuda", dtype=torch.bfloat16)
    compiled = torch.compile(model, fullgraph=True)
    launches = {"n": 0}
    run = rt._run

    def counting_run(*args, **kw):
        launches["n"] += 1
        return run(*args, **kw)

    def step(m, x):
        model.zero_grad(set_to_none=True)
        out = m(x)
        out.float().pow(2).mean().backward()
        return out.detach(), {n: p.grad.detach().clone()
                              for n, p in model.named_parameters()}

    def grad_scale(name, grads):
        """What a gradient's error is measured against: its own largest
        element, except the key projection's bias, whose exact gradient is
        0 (a bias on every key adds q.b to a whole row of scores, which
        softmax ignores), so both runs give rounding noise alone: that
        noise is measured against the key projection's weight gradient,
        which the same dK makes."""
        if name.endswith(".k.bias"):
            name = name[:-len("bias")] + "weight"
        return max(grads[name].abs().max().item(), 1e-30)

    row = dict(ok=True, notes="", seqs={})
    for s in MODEL["seqs"]:
        x = torch.randn(MODEL["batch"], s, width, device="cuda",
                        dtype=torch.bfloat16,
                        generator=torch.Generator(device="cuda")
                        .manual_seed(s))
        ref_out, ref_grads = step(model, x)
        rt._run = counting_run
        try:
            launches["n"] = 0
            out, grads = step(compiled, x)
            torch.cuda.synchronize()
        finally:
            rt._run = run
        grad_rel = {n: rel_err(g, ref_grads[n].float())[0]
                    / grad_scale(n, ref_grads) for n, g in grads.items()}
        worst = max(grad_rel, key=grad_rel.get)
        errs = [rel_err(out, ref_out.float())[1], grad_rel[worst]]
        r = dict(out_rel=errs[0], max_grad_rel=errs[1], worst_grad=worst,
                 our_launches=launches["n"])
        row["seqs"][s] = r
        # bf16 everywhere: Inductor's fusions round differently from eager
        if not max(errs) <= 0.05:
            row["ok"] = False
            row["notes"] += "S=%d: rel err %.2e > 0.05; " % (s, max(errs))
        if launches["n"] != 2 * MODEL["blocks"]:
            row["ok"] = False
            row["notes"] += ("S=%d: %d launches of our kernels, want %d "
                             "(forward and backward per block); "
                             % (s, launches["n"], 2 * MODEL["blocks"]))
    return row


def print_row(r):
    def e(n):
        return "%s %.1e/%.1e" % (n, r[n]["rel"], r[n]["torch_rel"])
    sinks = "".join("  " + e(n) for n in ("dsinks", "dbias") if n in r)
    print("%-40s %s  %s  %s  %s%s  lse %.1e | %7.1f ms (first %7.1f) | %s %s"
          % (r["case"], e("o"), e("dq"), e("dk"), e("dv"), sinks,
             r["lse"]["rel"],
             r["ms"], r["first_call_ms"], "PASS" if r["ok"] else "FAIL",
             r["notes"]), flush=True)


def markdown(results):
    out = ["device: %s" % results.get("device", "?"), "",
           "| case | O rel (torch) | dQ rel (torch) | dK rel (torch) | "
           "dV rel (torch) | LSE rel | ms (fwd+bwd) | result |",
           "|---|---|---|---|---|---|---|---|"]
    for r in results["gradients"]:
        e = ["%.1e (%.1e)" % (r[n]["rel"], r[n]["torch_rel"])
             for n in ("o", "dq", "dk", "dv")]
        det = ""
        for n, label in (("dsinks", "dSinks"), ("dbias", "dBias")):
            if n in r:
                det += ", %s rel %.1e (%.1e)" % (label, r[n]["rel"],
                                                 r[n]["torch_rel"])
        if "dropped" in r:
            det += ", dropped %.3f" % r["dropped"]
        if "bitwise_repeat" in r:
            det += ", bits %s" % ("equal" if r["bitwise_repeat"]
                                  else "differ")
        out.append("| %s | %s | %s | %s | %s | %.1e | %.1f | %s%s |" % (
            r["case"], e[0], e[1], e[2], e[3], r["lse"]["rel"], r["ms"],
            "pass" if r["ok"] else "FAIL " + r["notes"], det))
    out += ["", "| error case | result | message |", "|---|---|---|"]
    for e in results["errors_raised"]:
        out.append("| %s | %s | %s |" % (e["what"], "pass" if e["ok"]
                                         else "FAIL", e["message"][:120]))
    c = results.get("compile")
    if c:
        out += ["", "| torch.compile(fullgraph=True) vs eager | output rel | "
                "max grad rel (parameter) | our launches | result |",
                "|---|---|---|---|---|"]
        for s, r in c["seqs"].items():
            out.append("| S=%s | %.1e | %.1e (%s) | %d | %s |" % (
                s, r["out_rel"], r["max_grad_rel"], r["worst_grad"],
                r["our_launches"],
                "pass" if c["ok"] else "FAIL " + c["notes"]))
    c = results.get("compile_varlen")
    if c:
        out += ["", "| torch.compile(fullgraph=True) vs eager, packed | O rel "
                "| dQ rel | dK rel | dV rel | our launches | result |",
                "|---|---|---|---|---|---|---|",
                "| %s | %.1e | %.1e | %.1e | %.1e | %d | %s |" % (
                    c["case"], c["rel"]["o"], c["rel"]["dq"], c["rel"]["dk"],
                    c["rel"]["dv"], c["our_launches"],
                    "pass" if c["ok"] else "FAIL " + c["notes"])]
    if results["errors"]:
        out += ["", "Failures:"] + ["- " + f for f in results["errors"]]
    return "\n".join(out) + "\n"


def main():
    ap = torch_op_arguments(__doc__, "every case")
    ap.add_argument("--budget-s", type=float, default=170,
                    help="start no new check after this many seconds")
    a = ap.parse_args()
    os.environ["ROCKE_CACHE_DIR"] = a.cache
    if a.prebuild:
        prebuild_torch_op(a, problems())
        return 0
    import torch
    import cupy
    sys.path.insert(0, str(HERE))
    start = time.time()
    results = dict(device="%s, torch %s, cupy %s" % (
        torch.cuda.get_device_name(), torch.__version__, cupy.__version__),
        cache=a.cache, gradients=[], errors_raised=[], compile=None,
        compile_varlen=None,
        errors=[])
    print(results["device"], flush=True)
    gpu_checks(a, results)
    failed = [r["case"] for r in results["gradients"] if not r["ok"]] + \
        [e["what"] for e in results["errors_raised"] if not e["ok"]] + \
        [name for name, key in (("torch.compile", "compile"),
                                ("torch.compile packed", "compile_varlen"))
         if results[key] and not results[key]["ok"]]
    results["failed"] = failed
    results["seconds"] = time.time() - start
    print("\n%d gradient cases, %d failed checks, %d errors; %.0f s" % (
        len(results["gradients"]), len(failed), len(results["errors"]),
        results["seconds"]))
    for f in failed + results["errors"]:
        print("  FAILED:", f)
    if a.out:
        write_report(a.out, results, "torch_check.json", markdown(results),
                     "torch_check.md")
    ok = not failed and not results["errors"] and results["compile"] and \
        results["compile_varlen"]
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
