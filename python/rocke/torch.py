"""rocke's attention kernels as a PyTorch op with autograd.

    from rocke.torch import attention
    o = attention(q, k, v, causal=True)      # q [B, Sq, Hq, D], k/v [B, Sk, Hkv, D]
    o.sum().backward()                       # dq, dk, dv from our backward

    # packed variable-length batch, FlashAttention's flash_attn_varlen_func:
    # q [T_q, Hq, D], k/v [T_k, Hkv, D], cu_seqlens_* int32 [B+1]
    o = attention(q, k, v, cu_seqlens_q=cu_q, cu_seqlens_k=cu_k,
                  max_seqlen_q=max_q, max_seqlen_k=max_k, causal=True)

Under ``torch.compile``, ``attention`` is two ``torch.library`` custom ops,
``rocke::attention_forward`` (O and the log-sum-exp statistics) and
``rocke::attention_backward``, with registered autograd (the forward saves
q, k, v, O and the statistics) and fake implementations, so
``torch.compile(fullgraph=True)`` traces it. Eager calls run the same
forward and backward through a ``torch.autograd.Function``, without the
custom ops' per-call dispatch.

The kernels are compiled by rocke-opt (``$ROCKE_OPT``, ``PATH``, or the
repository's build/bin) the first time a configuration (dtype, heads, head
dim, mask, scale, deterministic) is used on a chip, and kept on disk
(``rocke.kernel_cache``: ``$ROCKE_CACHE_DIR``, default ``~/.cache/rocke``);
sizes (B, Sq, Sk) are dynamic in the kernels, so new lengths compile
nothing; a packed batch's ``max_seqlen_*`` are compiled in, rounded up to a
bucket (``max_seqlen_bucket``: a power of two, at least 128), so a training
run compiles a few kernel sets, not one per batch. The chip comes from the
device: NVIDIA compute capability 9.0 (H100 / H200) gets ``sm_90a`` PTX,
launched through CuPy; AMD (a ROCm build of PyTorch) gets the device's
gfx90a / gfx942 / gfx950 HSACO, launched through ``rocke.launch_hip`` (not
yet run on AMD hardware). Launches go on PyTorch's current stream.

Importing this module works without PyTorch; ``attention`` then raises
ImportError. The input checks (``check_inputs``) need only objects with
``shape``, ``dtype`` and ``device``.
"""
import math
import threading
from typing import NamedTuple, Optional, Tuple

from . import kernel_abi
from .spec import (HEAD_DIMS, MAX_WINDOW_EXTENT, FmhaBwdSpec, finite_in_f32,
                   round_to_f32)

try:
    import torch
    _IMPORT_ERROR = None
    if not hasattr(torch, "library") or not hasattr(torch.library,
                                                    "custom_op"):
        _IMPORT_ERROR = ImportError(
            "PyTorch %s has no torch.library.custom_op (needs 2.4 or newer)"
            % torch.__version__)
except Exception as e:  # ImportError, or a broken CUDA install
    torch = None
    _IMPORT_ERROR = e

__all__ = ["attention", "check_inputs", "Problem", "problem", "prebuild",
           "max_seqlen_bucket", "spec_for", "chip_of", "buffer_of",
           "available", "require_torch"]

# PyTorch dtypes the kernels take, by their str() (no torch needed to check).
DTYPE_NAMES = {"torch.float16": "f16", "torch.bfloat16": "bf16"}
# The smallest max_seqlen the kernels are compiled for (one KV tile or
# more): max_seqlen_bucket rounds up to a power of two from here.
MIN_MAX_SEQLEN = 128


def available() -> bool:
    return _IMPORT_ERROR is None


def require_torch():
    if _IMPORT_ERROR is not None:
        raise ImportError("rocke.torch needs PyTorch (2.4 or newer, with CUDA "
                          "or ROCm) and, on NVIDIA GPUs, CuPy: %s"
                          % (_IMPORT_ERROR,))
    return torch


# --------------------------------------------------------------------------
# Checks and the kernel configuration (no PyTorch needed)
# --------------------------------------------------------------------------

class Problem(NamedTuple):
    """One call's attention problem. Window extents: -1 is unbounded.
    A packed (varlen) batch: `batch` sequences (len(cu_seqlens) - 1),
    `seq_q` / `seq_k` the token counts T_q / T_k, `max_seqlen_q` /
    `max_seqlen_k` the bounds the kernels are compiled for (the caller's,
    bucketed); 0 for dense batches."""
    batch: int
    seq_q: int
    seq_k: int
    heads_q: int
    heads_kv: int
    head_dim: int
    dtype: str  # f16 | bf16
    window_left: int
    window_right: int
    scale: float
    deterministic: bool
    varlen: bool = False
    max_seqlen_q: int = 0
    max_seqlen_k: int = 0
    softcap: float = 0.0  # 0: none
    alibi: bool = False  # slopes given (a tensor argument, not compiled in)
    sinks: bool = False  # learnable sink logits given (a tensor argument)
    dropout_p: float = 0.0  # 0: none
    # An additive bias: its element type ("" for none), whether it has one
    # value per batch / per head (else broadcast), whether it takes a
    # gradient.
    bias_dtype: str = ""
    bias_batch: bool = True
    bias_heads: bool = True
    grad_bias: bool = False


def window_extents(causal, window) -> Tuple[int, int]:
    """(left, right) keys a query sees on each side of the diagonal, -1 for
    unbounded: FlashAttention's ``window_size``, with ``causal`` forcing
    right = 0."""
    if not isinstance(causal, bool):
        raise TypeError("causal must be a bool, got %r" % (causal,))
    if window is None:
        left, right = -1, -1
    else:
        if not isinstance(window, (tuple, list)) or len(window) != 2 or \
                not all(isinstance(w, int) and not isinstance(w, bool)
                        for w in window):
            raise TypeError("window must be None or a pair of ints "
                            "(left, right), -1 for unbounded, got %r"
                            % (window,))
        left, right = window
        for name, w in (("left", left), ("right", right)):
            if w < -1 or w > MAX_WINDOW_EXTENT:
                raise ValueError("window %s must be -1 (unbounded) or in "
                                 "[0, 2^40], got %d" % (name, w))
    if causal:
        right = 0
    return left, right


# Python ints, and symbolic ones where torch.compile makes them dynamic.
_INTS = (int,) if torch is None else (int, torch.SymInt)


def max_seqlen_bucket(n: int) -> int:
    """The max_seqlen the kernels are compiled for when a call gives `n`:
    the next power of two, at least MIN_MAX_SEQLEN (the grids cover it;
    blocks past a sequence's end return at once). Comparisons only, which
    Dynamo traces on ints and symbolic ints alike."""
    bucket = MIN_MAX_SEQLEN
    while bucket < n:
        bucket *= 2
    return bucket


def varlen_maxima(cu_seqlens_q, cu_seqlens_k, max_seqlen_q,
                  max_seqlen_k) -> Optional[Tuple[int, int]]:
    """None for a dense call (no varlen argument given); for a packed
    batch, the bucketed (max_seqlen_q, max_seqlen_k). ValueError when only
    some of the four are given, TypeError / ValueError for maxima that are
    not positive ints."""
    given = {name: x is not None for name, x in (
        ("cu_seqlens_q", cu_seqlens_q), ("cu_seqlens_k", cu_seqlens_k),
        ("max_seqlen_q", max_seqlen_q), ("max_seqlen_k", max_seqlen_k))}
    if not any(given.values()):
        return None
    if not all(given.values()):
        raise ValueError(
            "rocke.torch.attention: a packed (variable-length) batch needs "
            "all of cu_seqlens_q, cu_seqlens_k, max_seqlen_q and "
            "max_seqlen_k; missing %s"
            % ", ".join(n for n, g in given.items() if not g))
    maxima = []
    for name, m in (("max_seqlen_q", max_seqlen_q),
                    ("max_seqlen_k", max_seqlen_k)):
        if not isinstance(m, _INTS) or isinstance(m, bool):
            raise TypeError("rocke.torch.attention: %s must be a Python int "
                            "(the longest sequence), got %r" % (name, m))
        if m <= 0:
            raise ValueError("rocke.torch.attention: %s must be positive, "
                             "got %d" % (name, m))
        maxima.append(max_seqlen_bucket(m))
    return tuple(maxima)


def _packed_batch_size(cu_q, cu_k, device) -> int:
    """The number of sequences of the offsets tensors `cu_q`, `cu_k`
    (int32, 1-D, on `device`, equally long)."""
    for name, cu in (("cu_seqlens_q", cu_q), ("cu_seqlens_k", cu_k)):
        if str(cu.dtype) != "torch.int32":
            raise TypeError("rocke.torch.attention: %s has dtype %s; the "
                            "offsets must be torch.int32" % (name, cu.dtype))
        if len(cu.shape) != 1 or cu.shape[0] < 1:
            raise ValueError("rocke.torch.attention: %s must be 1-D [batch + "
                             "1], got shape %s" % (name, tuple(cu.shape)))
        if cu.device != device:
            raise ValueError("rocke.torch.attention: %s is on %s, q on %s"
                             % (name, cu.device, device))
    if cu_q.shape[0] != cu_k.shape[0]:
        raise ValueError("rocke.torch.attention: cu_seqlens_q has %d "
                         "entries, cu_seqlens_k %d; both are [batch + 1]"
                         % (cu_q.shape[0], cu_k.shape[0]))
    return cu_q.shape[0] - 1


def offsets_error(cu_q, cu_k, total_q: int, total_k: int, max_seqlen_q: int,
                  max_seqlen_k: int) -> Optional[str]:
    """What breaks FlashAttention's varlen contract in the offsets `cu_q`,
    `cu_k` (lists of ints) of a packed batch of `total_q` / `total_k`
    tokens, or None: offsets start at 0, never decrease, stay within the
    tokens, and no sequence is longer than its max_seqlen (the caller's,
    before bucketing)."""
    for name, cu, total, longest in (
            ("cu_seqlens_q", cu_q, total_q, max_seqlen_q),
            ("cu_seqlens_k", cu_k, total_k, max_seqlen_k)):
        if cu[0] != 0:
            return "%s[0] is %d; offsets start at 0" % (name, cu[0])
        for b in range(len(cu) - 1):
            length = cu[b + 1] - cu[b]
            if length < 0:
                return "%s decreases at sequence %d (%d -> %d)" % (
                    name, b, cu[b], cu[b + 1])
            if length > longest:
                return ("sequence %d has %d tokens in %s, more than "
                        "max_seqlen %d (the kernels would cut it)"
                        % (b, length, name, longest))
        if cu[-1] > total:
            return "%s ends at %d, past the %d tokens" % (name, cu[-1],
                                                          total)
    return None


def _dtype_name(t, name) -> str:
    dt = str(t.dtype)
    if dt not in DTYPE_NAMES:
        raise TypeError("rocke.torch.attention: %s has dtype %s; the kernels "
                        "take torch.float16 or torch.bfloat16" % (name, dt))
    return DTYPE_NAMES[dt]


def check_inputs(q, k, v, *, causal=False, window=None, scale=None,
                 deterministic=False, cu_seqlens_q=None, cu_seqlens_k=None,
                 max_seqlen_q=None, max_seqlen_k=None, softcap=0.0,
                 alibi_slopes=None, sinks=None, dropout_p=0.0,
                 bias=None, bias_grad=None) -> Problem:
    """The Problem of ``attention(q, k, v, ...)``, or the error it raises:
    TypeError for a wrong dtype or argument type, ValueError for devices,
    shapes, head dims and values the kernels do not take. With
    ``cu_seqlens_*`` (a packed batch), q, k, v are [tokens, heads,
    head_dim]."""
    maxima = varlen_maxima(cu_seqlens_q, cu_seqlens_k, max_seqlen_q,
                           max_seqlen_k)
    for name, t in (("q", q), ("k", k), ("v", v)):
        if getattr(t.device, "type", None) != "cuda":
            raise ValueError("rocke.torch.attention: %s is on %s; the kernels "
                             "run on CUDA (or ROCm) devices" % (name, t.device))
        if maxima is not None and len(t.shape) != 3:
            raise ValueError("rocke.torch.attention: with cu_seqlens, %s must "
                             "be packed [total_tokens, heads, head_dim], got "
                             "shape %s" % (name, tuple(t.shape)))
        if maxima is None and len(t.shape) != 4:
            raise ValueError("rocke.torch.attention: %s must be [batch, seq, "
                             "heads, head_dim], got shape %s%s"
                             % (name, tuple(t.shape), "; packed [tokens, "
                                "heads, head_dim] tensors need cu_seqlens_q/k "
                                "and max_seqlen_q/k" if len(t.shape) == 3
                                else ""))
    if not (q.device == k.device == v.device):
        raise ValueError("rocke.torch.attention: q, k, v on different devices "
                         "(%s, %s, %s)" % (q.device, k.device, v.device))
    dtypes = [_dtype_name(t, n) for n, t in (("q", q), ("k", k), ("v", v))]
    if len(set(dtypes)) != 1:
        raise TypeError("rocke.torch.attention: q, k, v have dtypes %s; they "
                        "must match" % ", ".join(str(t.dtype)
                                                 for t in (q, k, v)))
    # No int(): under torch.compile these may be symbolic sizes.
    if maxima is not None:  # one batch of B sequences, T tokens
        b = bk = bv = _packed_batch_size(cu_seqlens_q, cu_seqlens_k, q.device)
        (sq, hq, d), (sk, hkv, dk), (skv, hv, dv) = (
            tuple(t.shape) for t in (q, k, v))
    else:
        b, sq, hq, d = tuple(q.shape)
        bk, sk, hkv, dk = tuple(k.shape)
        bv, skv, hv, dv = tuple(v.shape)
    if not b == bk == bv:
        raise ValueError("rocke.torch.attention: batch sizes differ: q %d, k "
                         "%d, v %d" % (b, bk, bv))
    if sk != skv or hkv != hv:
        raise ValueError("rocke.torch.attention: k %s and v %s differ in "
                         "sequence length or heads"
                         % (tuple(k.shape), tuple(v.shape)))
    if hkv == 0 or hq % hkv:
        raise ValueError("rocke.torch.attention: q's %d heads are not a "
                         "multiple of k/v's %d (grouped-query attention "
                         "needs Hq = g * Hkv)" % (hq, hkv))
    if dk != d or dv != d:
        raise ValueError("rocke.torch.attention: head dims differ (q %d, k %d, "
                         "v %d); the kernels take one head dim" % (d, dk, dv))
    if d not in HEAD_DIMS:
        raise ValueError("rocke.torch.attention: head dim %d is not supported "
                         "(the kernels take %s)"
                         % (d, ", ".join(str(x) for x in HEAD_DIMS)))
    left, right = window_extents(causal, window)
    scale = scale_value(scale, d)
    if not isinstance(deterministic, bool):
        raise TypeError("deterministic must be a bool, got %r"
                        % (deterministic,))
    softcap = softcap_value(softcap)
    if alibi_slopes is not None:
        check_alibi_slopes(alibi_slopes, q.device, hq, softcap,
                           sq == sk if maxima is None
                           else cu_seqlens_k is cu_seqlens_q)
    if sinks is not None:
        check_head_vector("sinks", sinks, q.device, hq)
    bias_fields = () if bias is None else check_bias(
        bias, q.device, dtypes[0], (b, hq, sq, sk), maxima is not None,
        deterministic, bias.requires_grad if bias_grad is None else bias_grad)
    return Problem(b, sq, sk, hq, hkv, d, dtypes[0], left, right, scale,
                   deterministic, maxima is not None,
                   *(maxima or (0, 0)), softcap, alibi_slopes is not None,
                   sinks is not None, dropout_value(dropout_p), *bias_fields)


def check_bias(bias, device, dtype, sizes, packed, deterministic, grad):
    """An additive bias as the kernels take it: [B or 1, Hq or 1, Sq, Sk],
    float32 or the inputs' dtype, on their device, a dense batch, and with
    its gradient (`grad`) not broadcast in a deterministic backward; its
    Problem fields (element type, per batch, per head, gradient)."""
    name = ELT_NAMES.get(str(bias.dtype))
    if name not in ("f32", dtype):
        raise TypeError("rocke.torch.attention: bias has dtype %s; it must "
                        "be torch.float32 or q's dtype" % bias.dtype)
    if bias.device != device:
        raise ValueError("rocke.torch.attention: bias is on %s, q on %s"
                         % (bias.device, device))
    if packed:
        raise ValueError("rocke.torch.attention: a bias takes a dense batch "
                         "(no cu_seqlens)")
    b, hq, sq, sk = sizes
    shape = tuple(bias.shape)
    if len(shape) != 4 or shape[0] not in (1, b) or \
            shape[1] not in (1, hq) or shape[2:] != (sq, sk):
        raise ValueError("rocke.torch.attention: bias must be [B or 1, Hq or "
                         "1, Sq, Sk] = [%d or 1, %d or 1, %d, %d], got shape "
                         "%s" % (b, hq, sq, sk, shape))
    per_batch, per_head = shape[0] == b, shape[1] == hq
    if deterministic and grad and not (per_batch and per_head):
        raise ValueError("rocke.torch.attention: deterministic with the "
                         "gradient of a bias broadcast over the batch or the "
                         "heads: the kernels sum it by atomic adds in no "
                         "fixed order; expand the bias or drop deterministic")
    return name, per_batch, per_head, bool(grad)


def dropout_value(dropout_p) -> float:
    """FlashAttention's ``dropout_p``: the probability of dropping a
    score, 0 (none) <= p < 1, as the kernels compile it (float32)."""
    if isinstance(dropout_p, bool) or not isinstance(dropout_p, (int, float)) \
            or not 0.0 <= dropout_p < 1.0 or not round_to_f32(dropout_p) < 1.0:
        raise ValueError("rocke.torch.attention: dropout_p must be a number "
                         "in [0, 1), got %r" % (dropout_p,))
    return round_to_f32(dropout_p)


def dropout_seed_offset(device):
    """The kernels' Philox seed and offset, int64 [2] on `device`: a seed
    drawn from PyTorch's generator of that device (so torch.manual_seed
    makes a run repeatable, and a CUDA graph draws anew at each replay),
    offset 0 (README "Dropout": masks of different seeds are
    independent)."""
    seed = torch.randint(0, 2 ** 62, (1,), device=device, dtype=torch.int64)
    return torch.cat([seed, torch.zeros_like(seed)])


def softcap_value(softcap) -> float:
    """FlashAttention's ``softcap``: 0 for none, else the positive cap of
    ``cap * tanh(s / cap)``."""
    if isinstance(softcap, bool) or not isinstance(softcap, (int, float)) \
            or not finite_in_f32(softcap) or softcap < 0 or \
            (softcap > 0 and not finite_in_f32(1.0 / softcap)):
        raise ValueError("rocke.torch.attention: softcap must be 0 (none) or "
                         "a positive finite number whose float32 reciprocal "
                         "is finite, got %r" % (softcap,))
    return float(softcap)


def check_head_vector(name, t, device, heads_q):
    """A per-query-head argument (ALiBi's slopes, the sinks) as the kernels
    take it: float32 [Hq] on the inputs' device."""
    if str(t.dtype) != "torch.float32":
        raise TypeError("rocke.torch.attention: %s has dtype %s; it must be "
                        "torch.float32" % (name, t.dtype))
    if t.device != device:
        raise ValueError("rocke.torch.attention: %s is on %s, q on %s"
                         % (name, t.device, device))
    if tuple(t.shape) != (heads_q,):
        raise ValueError("rocke.torch.attention: %s must be [%d] (one value "
                         "per query head), got shape %s"
                         % (name, heads_q, tuple(t.shape)))


def check_alibi_slopes(slopes, device, heads_q, softcap, same_lengths):
    """ALiBi's per-head slopes as the kernels take them: float32 [Hq] on
    the inputs' device, without a softcap, and queries and keys of the same
    lengths (`same_lengths`: Sq = Sk, or a packed batch whose cu_seqlens_k
    is cu_seqlens_q), where the kernels' |q - k| is FlashAttention's
    bottom-right |q + Sk - Sq - k|."""
    check_head_vector("alibi_slopes", slopes, device, heads_q)
    if softcap:
        raise ValueError("rocke.torch.attention: softcap and alibi_slopes "
                         "together are not supported (one score "
                         "modification per call)")
    if not same_lengths:
        raise ValueError("rocke.torch.attention: alibi_slopes needs as many "
                         "keys as queries (dense: Sq = Sk; packed: "
                         "cu_seqlens_k the same tensor as cu_seqlens_q): the "
                         "kernels' bias is -slope |q - k| from each "
                         "sequence's start, FlashAttention's |q + Sk - Sq - k| "
                         "only when the lengths agree")


def scale_value(scale, head_dim) -> float:
    """The softmax scale: `scale`, or 1/sqrt(head_dim) for None."""
    if scale is None:
        return 1.0 / math.sqrt(head_dim)
    if isinstance(scale, bool) or not isinstance(scale, (int, float)) or \
            not math.isfinite(scale) or scale <= 0:
        raise ValueError("rocke.torch.attention: scale must be a positive "
                         "finite number, got %r" % (scale,))
    return float(scale)


def mask_fields(left: int, right: int, seq_q: int, seq_k: int) -> dict:
    """FmhaBwdSpec's mask fields for window extents (-1 unbounded), aligned
    to the bottom-right corner as FlashAttention's causal and window masks
    are (the last query sees the last key); top-left, the same mask, when
    Sq = Sk. Lengths None (packed batches: per sequence): bottom-right."""
    if left < 0 and right < 0:
        return dict(mask="none")
    alignment = "top_left" if seq_q is not None and seq_q == seq_k \
        else "bottom_right"
    if left < 0 and right == 0:
        return dict(mask="causal", alignment=alignment)
    return dict(mask="sliding_window", alignment=alignment,
                window_left=MAX_WINDOW_EXTENT if left < 0 else left,
                window_right=MAX_WINDOW_EXTENT if right < 0 else right)


def spec_for(p: Problem, chip: str) -> FmhaBwdSpec:
    """The kernels' configuration: sizes B, Sq, Sk dynamic, BSHD layout
    (contiguous [B, S, H, D]), the tiled strategy; the scale only when not
    the default 1/sqrt(D) (one set of kernels for the default). A packed
    batch: varlen with the Problem's (bucketed) maxima, masks bottom-right
    within each sequence."""
    default = p.scale == 1.0 / math.sqrt(p.head_dim)
    lengths = (None, None) if p.varlen else (p.seq_q, p.seq_k)
    varlen = dict(varlen=True, max_seqlen_q=p.max_seqlen_q,
                  max_seqlen_k=p.max_seqlen_k) if p.varlen else {}
    return FmhaBwdSpec(dtype=p.dtype, batch=None, seq_q=None, seq_k=None,
                       heads_q=p.heads_q, heads_kv=p.heads_kv,
                       head_dim_qk=p.head_dim,
                       scale=None if default else p.scale,
                       strategy="tiled", chip=chip,
                       deterministic=p.deterministic, layout="bshd",
                       softcap=p.softcap or None, alibi=p.alibi,
                       sinks=p.sinks, dropout_p=p.dropout_p or None,
                       bias=p.bias_dtype or None, bias_batch=p.bias_batch,
                       bias_heads=p.bias_heads, grad_bias=p.grad_bias,
                       **mask_fields(p.window_left, p.window_right,
                                     *lengths), **varlen)


def size_env(p: Problem) -> dict:
    """The problem sizes the recipe's grids and scratch shapes use (for a
    packed batch Sq, Sk are the token counts; the maxima are compiled
    in)."""
    return dict(B=p.batch, Sq=p.seq_q, Sk=p.seq_k, Hq=p.heads_q,
                Hkv=p.heads_kv, Dqk=p.head_dim, Dv=p.head_dim)


class _StandIn(NamedTuple):
    shape: tuple
    dtype: str
    device: object


class _Cuda(NamedTuple):
    type: str = "cuda"
    index: int = 0


def problem(q_shape, kv_shape, dtype="bf16", **kw) -> Problem:
    """The Problem of ``attention`` on q of shape `q_shape` and k, v of
    shape `kv_shape` (``check_inputs``' keywords), without tensors; for a
    packed batch, ``cu_seqlens_q`` / ``cu_seqlens_k`` may be lists of
    offsets, and ``alibi_slopes`` / ``sinks`` lists of values (only their
    lengths matter; one list for both offsets is a self-attention batch);
    ``bias`` may be a (shape, dtype) pair ("f32" or `dtype`), its gradient
    asked for by ``bias_grad`` (default True)."""
    name = "torch." + {"f16": "float16", "bf16": "bfloat16"}.get(dtype,
                                                                   dtype)
    q, k = (_StandIn(tuple(s), name, _Cuda()) for s in (q_shape, kv_shape))
    stand_ins = {}
    for key, elt in (("cu_seqlens_q", "torch.int32"),
                     ("cu_seqlens_k", "torch.int32"),
                     ("alibi_slopes", "torch.float32"),
                     ("sinks", "torch.float32")):
        given = kw.get(key)
        if isinstance(given, (list, tuple)):
            if id(given) not in stand_ins:
                stand_ins[id(given)] = _StandIn((len(given),), elt, _Cuda())
            kw[key] = stand_ins[id(given)]
    if isinstance(kw.get("bias"), tuple):
        shape, elt = kw["bias"]
        kw["bias"] = _StandIn(tuple(shape), "torch." + {
            "f32": "float32", "f16": "float16", "bf16": "bfloat16"}[elt],
            _Cuda())
        kw.setdefault("bias_grad", True)
    return check_inputs(q, k, k, **kw)


def prebuild(problems, chip: str, directory: Optional[str] = None,
             rocke_opt: Optional[str] = None) -> list:
    """Compile the forward and backward kernels of each Problem for `chip`
    into the kernel cache (`directory`, default ``$ROCKE_CACHE_DIR`` or
    ``~/.cache/rocke``), e.g. on a machine with rocke-opt for a GPU machine
    without it. No PyTorch needed; the cache entries."""
    from .kernel_cache import cached_kernels
    return [cached_kernels(spec_for(p, chip), forward, rocke_opt, directory)
            for p in problems for forward in (True, False)]


NVIDIA_CHIPS = {(9, 0): "sm_90a"}  # H100 / H200: warpgroup products
AMD_CHIPS = ("gfx90a", "gfx942", "gfx950")


def chip_of(capability=None, gcn_arch=None) -> str:
    """The chip of a device: from an NVIDIA compute capability (major,
    minor) or an AMD ``gcnArchName`` (``gfx942:sramecc+:xnack-``)."""
    if gcn_arch is not None:
        chip = gcn_arch.split(":")[0]
        if chip not in AMD_CHIPS:
            raise RuntimeError("rocke.torch: AMD chip %s is not supported "
                               "(supported: %s)" % (chip, ", ".join(AMD_CHIPS)))
        return chip
    if tuple(capability) not in NVIDIA_CHIPS:
        raise RuntimeError(
            "rocke.torch: NVIDIA compute capability %d.%d is not supported; "
            "the kernels are built for %s" % (tuple(capability) + (", ".join(
                "%d.%d (%s)" % (c + (n,)) for c, n in NVIDIA_CHIPS.items()),)))
    return NVIDIA_CHIPS[tuple(capability)]


# --------------------------------------------------------------------------
# Kernels: compiled, loaded and launched
# --------------------------------------------------------------------------

ELT_NAMES = {"torch.float16": "f16", "torch.bfloat16": "bf16",
             "torch.float32": "f32", "torch.int32": "i32",
             "torch.int64": "i64"}


def buffer_of(t) -> kernel_abi.Buffer:
    """A tensor as ``kernel_abi.bind`` takes it."""
    return kernel_abi.Buffer(t.data_ptr(), ELT_NAMES[str(t.dtype)],
                             tuple(t.shape), tuple(t.stride()))


_LOCK = threading.Lock()
_CHIPS = {}
_MODULES = {}


def _device_chip(device) -> str:
    index = device.index if device.index is not None else \
        torch.cuda.current_device()
    if index not in _CHIPS:
        if torch.version.hip:
            _CHIPS[index] = chip_of(gcn_arch=torch.cuda.get_device_properties(
                index).gcnArchName)
        else:
            _CHIPS[index] = chip_of(torch.cuda.get_device_capability(index))
    return _CHIPS[index]


class _Loaded(NamedTuple):
    kernels: list
    module: object  # launch_cuda.RecipeModule or launch_hip.HipModule
    hip: bool


def _loaded(spec, forward: bool, index: int) -> _Loaded:
    """The kernels of `spec` loaded on device `index`: compiled (or read
    from the disk cache) and loaded once per process."""
    import dataclasses
    key = (forward, index) + dataclasses.astuple(spec)
    with _LOCK:
        if key not in _MODULES:
            from .kernel_cache import cached_kernels
            entry = cached_kernels(spec, forward)
            with torch.cuda.device(index):
                if spec.target == "rocm":
                    from .launch_hip import HipModule
                    module = HipModule(entry.code_path.read_bytes(),
                                       entry.kernels)
                else:
                    from .launch_cuda import RecipeModule, require_cupy
                    with require_cupy().cuda.Device(index):
                        module = RecipeModule(entry.code_path, entry.kernels)
            _MODULES[key] = _Loaded(entry.kernels, module,
                                    spec.target == "rocm")
        return _MODULES[key]


_TORCH_DTYPES = {}


def _torch_dtype(elt):
    if not _TORCH_DTYPES:
        _TORCH_DTYPES.update(f16=torch.float16, bf16=torch.bfloat16,
                             f32=torch.float32)
    return _TORCH_DTYPES[elt]


def _run(p: Problem, forward: bool, tensors: dict) -> None:
    """Launch the forward or backward kernels of problem `p` on `tensors`
    (by role) on PyTorch's current stream of their device."""
    device = tensors["q"].device
    index = device.index if device.index is not None else \
        torch.cuda.current_device()
    loaded = _loaded(spec_for(p, _device_chip(device)), forward, index)
    with torch.cuda.device(index):
        scratch = []  # alive until the launches are queued; the caching
        # allocator reuses a block only after this stream's work on it

        def allocate(name, elt, shape, init):
            t = torch.empty(shape, dtype=_torch_dtype(elt), device=device)
            scratch.append(t)
            return buffer_of(t)

        launches = loaded.module.plans.get(size_env(p)).pack(
            {r: buffer_of(t) for r, t in tensors.items()}, allocate)
        stream = torch.cuda.current_stream(device).cuda_stream
        if loaded.hip:
            loaded.module.launch(launches, stream)
        else:
            from .launch_cuda import require_cupy
            with require_cupy().cuda.Device(index):
                loaded.module.launch(launches, stream)


def _kernel_input(t):
    """`t` as the kernels read it: contiguous, 16-byte aligned."""
    t = t.contiguous()
    if t.data_ptr() % 16:
        t = t.clone()
    return t


def _problem(q, k, v, window_left, window_right, scale, deterministic,
             cu_seqlens_q=None, cu_seqlens_k=None, max_seqlen_q=0,
             max_seqlen_k=0, softcap=0.0, alibi_slopes=None, sinks=None,
             dropout_p=0.0, seed_offset=None, bias=None, bias_grad=False):
    """The ops' Problem; max_seqlen 0 for a dense batch."""
    if dropout_p and (seed_offset is None or
                      str(seed_offset.dtype) != "torch.int64" or
                      tuple(seed_offset.shape) != (2,) or
                      seed_offset.device != q.device):
        raise ValueError("rocke.torch.attention: dropout_p %r needs "
                         "dropout_seed_offset, torch.int64 [2] (seed, offset) "
                         "on q's device" % (dropout_p,))
    window = (window_left, window_right)
    return check_inputs(q, k, v, window=window, scale=scale,
                        deterministic=deterministic,
                        cu_seqlens_q=cu_seqlens_q, cu_seqlens_k=cu_seqlens_k,
                        max_seqlen_q=max_seqlen_q or None,
                        max_seqlen_k=max_seqlen_k or None, softcap=softcap,
                        alibi_slopes=alibi_slopes, sinks=sinks,
                        dropout_p=dropout_p, bias=bias, bias_grad=bias_grad)


def _stats_shape(p: Problem) -> tuple:
    return (p.heads_q, p.seq_q) if p.varlen else (p.batch, p.heads_q,
                                                  p.seq_q)


def _extras(cu_seqlens_q, cu_seqlens_k, alibi_slopes, sinks,
            seed_offset, bias) -> dict:
    """The kernels' arguments beside the attention tensors, by role: a
    packed batch's offsets (cu_seqlens_q/_k), ALiBi's slopes (capture0:
    the score_mod's captured operand), the sinks, dropout's seed and
    offset, and the bias."""
    extras = {}
    if cu_seqlens_q is not None:
        extras.update(cu_seqlens_q=cu_seqlens_q.contiguous(),
                      cu_seqlens_k=cu_seqlens_k.contiguous())
    if alibi_slopes is not None:
        extras["capture0"] = alibi_slopes.contiguous()
    if sinks is not None:
        extras["sinks"] = sinks.contiguous()
    if seed_offset is not None:
        extras["dropout_seed_offset"] = seed_offset
    if bias is not None:
        extras["bias"] = _kernel_input(bias)
    return extras


# --------------------------------------------------------------------------
# Forward and backward
# --------------------------------------------------------------------------

def _forward(p: Problem, q, k, v, cu_seqlens_q=None, cu_seqlens_k=None,
             alibi_slopes=None, sinks=None, seed_offset=None, bias=None):
    """O (q's shape) and the natural-log LSE, [B, Hq, Sq] or, packed,
    [Hq, T_q] (float32; -inf for a query that sees no key, whose O is 0;
    with sinks, the sink's logit), of problem `p` (check_inputs' of these
    tensors). Packed tokens past the last sequence get O = 0."""
    q, k, v = (_kernel_input(t) for t in (q, k, v))
    # Packed: the kernels write only the sequences' tokens.
    o = torch.zeros_like(q) if p.varlen else torch.empty_like(q)
    lse = torch.empty(_stats_shape(p), dtype=torch.float32, device=q.device)
    if p.batch * p.seq_q == 0:
        return o, lse.fill_(float("-inf"))
    if p.seq_k == 0:  # no key at all: no grid to launch
        return o.zero_(), _keyless_lse(p, lse, sinks)
    if p.varlen:
        lse.fill_(float("-inf"))
    _run(p, True, dict(q=q, k=k, v=v, o=o, lse=lse,
                       **_extras(cu_seqlens_q, cu_seqlens_k, alibi_slopes,
                                 sinks, seed_offset, bias)))
    return o, lse


def _keyless_lse(p: Problem, lse, sinks):
    """The statistics of rows that see no key: -inf, or the head's sink
    (the only term of the denominator)."""
    if sinks is None:
        return lse.fill_(float("-inf"))
    heads = sinks.view(-1, 1) if p.varlen else sinks.view(1, -1, 1)
    return lse.copy_(heads.expand_as(lse))


def _backward(p: Problem, grad_out, q, k, v, o, lse, cu_seqlens_q=None,
              cu_seqlens_k=None, alibi_slopes=None, sinks=None,
              seed_offset=None, bias=None):
    """dQ, dK, dV (q's, k's, v's shapes and dtype), dSinks (float32 [Hq];
    empty without sinks) and dBias (the bias's shape and dtype; empty
    without its gradient) of the forward of problem `p` that gave O and
    LSE, for the output gradient `grad_out` (dO); packed tokens past the
    last sequence get zero gradients."""
    q, k, v, o, do = (_kernel_input(t) for t in (q, k, v, o, grad_out))
    lse = lse.contiguous()
    new = torch.zeros_like if p.varlen else torch.empty_like
    dq, dk, dv = (new(t) for t in (q, k, v))
    dsinks = q.new_empty((p.heads_q if p.sinks else 0,),
                         dtype=torch.float32)
    # The kernels write every dBias element (zero-filling it themselves
    # where they add into it or a mask skips blocks).
    dbias = q.new_empty(tuple(bias.shape) if p.grad_bias else (0,),
                        dtype=torch.float32)
    if p.batch * p.seq_q == 0 or p.seq_k == 0:
        # No key: O = 0, so D = rowsum(dO O) = 0 and dSink = -sum P_sink D
        # = 0 too, as dBias = P (dP - D) = 0.
        return dq.zero_(), dk.zero_(), dv.zero_(), dsinks.zero_(), \
            _bias_gradient(dbias.zero_(), bias)
    extras = _extras(cu_seqlens_q, cu_seqlens_k, alibi_slopes, sinks,
                     seed_offset, bias)
    if p.sinks:
        extras["dsinks"] = dsinks
    if p.grad_bias:
        extras["dbias"] = dbias
    _run(p, False, dict(q=q, k=k, v=v, o=o, do=do, lse=lse, dq=dq, dk=dk,
                        dv=dv, **extras))
    return dq, dk, dv, dsinks, _bias_gradient(dbias, bias)


def _bias_gradient(dbias, bias):
    """The kernels' float32 dBias in the bias's dtype."""
    return dbias if bias is None else dbias.to(bias.dtype)


def _save(ctx, tensors, attributes) -> None:
    """What a backward needs: `tensors` (q, k, v, o, lse, the offsets, the
    ALiBi slopes and the sinks, None where absent) and the non-tensor
    `attributes`."""
    ctx.save_for_backward(*tensors)
    ctx.attributes = attributes


def _saved(ctx):
    """`_save`'s (tensors, attributes)."""
    return ctx.saved_tensors, ctx.attributes


def _output_gradient(grad_o, o):
    return torch.zeros_like(o) if grad_o is None else grad_o.to(o.dtype)


# --------------------------------------------------------------------------
# The custom ops (what torch.compile traces) and the eager autograd function
# --------------------------------------------------------------------------

if _IMPORT_ERROR is None:
    Tensor = torch.Tensor

    @torch.library.custom_op("rocke::attention_forward", mutates_args=(),
                             device_types="cuda")
    def attention_forward(q: Tensor, k: Tensor, v: Tensor, window_left: int,
                          window_right: int, scale: float,
                          deterministic: bool,
                          cu_seqlens_q: Optional[Tensor] = None,
                          cu_seqlens_k: Optional[Tensor] = None,
                          max_seqlen_q: int = 0, max_seqlen_k: int = 0,
                          softcap: float = 0.0,
                          alibi_slopes: Optional[Tensor] = None,
                          sinks: Optional[Tensor] = None,
                          dropout_p: float = 0.0,
                          dropout_seed_offset: Optional[Tensor] = None,
                          bias: Optional[Tensor] = None
                          ) -> Tuple[Tensor, Tensor]:
        """O (q's shape) and the natural-log LSE, [B, Hq, Sq] or, packed
        (cu_seqlens given, max_seqlen bucketed), [Hq, T_q] (float32; -inf
        for a query that sees no key, whose O is 0). `deterministic` is
        the backward's (kept for autograd)."""
        p = _problem(q, k, v, window_left, window_right, scale,
                     deterministic, cu_seqlens_q, cu_seqlens_k, max_seqlen_q,
                     max_seqlen_k, softcap, alibi_slopes, sinks, dropout_p,
                     dropout_seed_offset, bias)
        return _forward(p, q, k, v, cu_seqlens_q, cu_seqlens_k, alibi_slopes,
                        sinks, dropout_seed_offset, bias)

    @attention_forward.register_fake
    def _(q, k, v, window_left, window_right, scale, deterministic,
          cu_seqlens_q=None, cu_seqlens_k=None, max_seqlen_q=0,
          max_seqlen_k=0, softcap=0.0, alibi_slopes=None, sinks=None,
          dropout_p=0.0, dropout_seed_offset=None, bias=None):
        # torch.compile: the checks attention() skips while tracing.
        p = _problem(q, k, v, window_left, window_right, scale,
                     deterministic, cu_seqlens_q, cu_seqlens_k, max_seqlen_q,
                     max_seqlen_k, softcap, alibi_slopes, sinks, dropout_p,
                     dropout_seed_offset, bias)
        return (torch.empty_like(q, memory_format=torch.contiguous_format),
                q.new_empty(_stats_shape(p), dtype=torch.float32))

    @torch.library.custom_op("rocke::attention_backward", mutates_args=(),
                             device_types="cuda")
    def attention_backward(grad_out: Tensor, q: Tensor, k: Tensor,
                           v: Tensor, o: Tensor, lse: Tensor,
                           window_left: int, window_right: int, scale: float,
                           deterministic: bool,
                           cu_seqlens_q: Optional[Tensor] = None,
                           cu_seqlens_k: Optional[Tensor] = None,
                           max_seqlen_q: int = 0, max_seqlen_k: int = 0,
                           softcap: float = 0.0,
                           alibi_slopes: Optional[Tensor] = None,
                           sinks: Optional[Tensor] = None,
                           dropout_p: float = 0.0,
                           dropout_seed_offset: Optional[Tensor] = None,
                           bias: Optional[Tensor] = None,
                           bias_grad: bool = False
                           ) -> Tuple[Tensor, Tensor, Tensor, Tensor, Tensor]:
        """dQ, dK, dV (q's, k's, v's shapes and dtype), dSinks (float32
        [Hq], empty without sinks) and dBias (the bias's, empty unless
        `bias_grad`) of the forward that gave O and LSE, for the output
        gradient `grad_out` (dO)."""
        p = _problem(q, k, v, window_left, window_right, scale,
                     deterministic, cu_seqlens_q, cu_seqlens_k, max_seqlen_q,
                     max_seqlen_k, softcap, alibi_slopes, sinks, dropout_p,
                     dropout_seed_offset, bias, bias_grad)
        return _backward(p, grad_out, q, k, v, o, lse, cu_seqlens_q,
                         cu_seqlens_k, alibi_slopes, sinks,
                         dropout_seed_offset, bias)

    @attention_backward.register_fake
    def _(grad_out, q, k, v, o, lse, window_left, window_right, scale,
          deterministic, cu_seqlens_q=None, cu_seqlens_k=None,
          max_seqlen_q=0, max_seqlen_k=0, softcap=0.0, alibi_slopes=None,
          sinks=None, dropout_p=0.0, dropout_seed_offset=None, bias=None,
          bias_grad=False):
        heads_q = q.shape[-2]
        grad_bias = bias is not None and bias_grad
        return tuple(torch.empty_like(t, memory_format=torch.contiguous_format)
                     for t in (q, k, v)) + (
            q.new_empty((heads_q if sinks is not None else 0,),
                        dtype=torch.float32),
            bias.new_empty(bias.shape) if grad_bias else q.new_empty(
                (0,), dtype=torch.float32))

    # Arguments between q, k, v and the sinks, and after the sinks: none
    # differentiable (ALiBi's slopes are constants: no gradient).
    _OPTIONS = 10
    _DROPOUT_ARGUMENTS = 2

    def _setup_context(ctx, inputs, output):
        q, k, v, window_left, window_right, scale, deterministic = inputs[:7]
        # The optional arguments, their defaults where a call left them out.
        (cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, softcap,
         alibi_slopes, sinks, dropout_p, seed_offset, bias) = \
            tuple(inputs[7:]) + (None, None, 0, 0, 0.0, None, None, 0.0, None,
                                 None)[len(inputs) - 7:]
        o, lse = output
        ctx.mark_non_differentiable(lse)
        _save(ctx, (q, k, v, o, lse, cu_seqlens_q, cu_seqlens_k,
                    alibi_slopes, sinks, seed_offset, bias),
              ((window_left, window_right, scale, deterministic),
               (max_seqlen_q, max_seqlen_k, softcap), dropout_p,
               bias is not None and bias.requires_grad))

    def _op_backward(ctx, grad_o, grad_lse):
        (q, k, v, o, lse, cu_q, cu_k, slopes, sinks, seed_offset, bias), \
            (options, rest, dropout_p, bias_grad) = _saved(ctx)
        dq, dk, dv, dsinks, dbias = torch.ops.rocke.attention_backward(
            _output_gradient(grad_o, o).contiguous(), q, k, v, o, lse,
            *options, cu_q, cu_k, *rest, slopes, sinks, dropout_p,
            seed_offset, bias, bias_grad)
        return (dq, dk, dv) + (None,) * _OPTIONS + (
            dsinks if sinks is not None else None,) + \
            (None,) * _DROPOUT_ARGUMENTS + (dbias if bias_grad else None,)

    attention_forward.register_autograd(_op_backward,
                                        setup_context=_setup_context)

    class _EagerAttention(torch.autograd.Function):
        """The same forward and backward without the custom ops' dispatch,
        for eager calls: that dispatch (Python, per op) cost more host time
        than our launches and several times SDPA's whole call, which starved
        the GPU in small models' training steps."""

        @staticmethod
        def forward(ctx, p, q, k, v, cu_seqlens_q, cu_seqlens_k,
                    alibi_slopes, sinks, seed_offset, bias):
            o, lse = _forward(p, q, k, v, cu_seqlens_q, cu_seqlens_k,
                              alibi_slopes, sinks, seed_offset, bias)
            _save(ctx, (q, k, v, o, lse, cu_seqlens_q, cu_seqlens_k,
                        alibi_slopes, sinks, seed_offset, bias), p)
            return o

        @staticmethod
        def backward(ctx, grad_o):
            (q, k, v, o, lse, cu_q, cu_k, slopes, sinks, seed_offset,
             bias), p = _saved(ctx)
            dq, dk, dv, dsinks, dbias = _backward(
                p, _output_gradient(grad_o, o), q, k, v, o, lse, cu_q, cu_k,
                slopes, sinks, seed_offset, bias)
            return (None, dq, dk, dv, None, None, None,
                    dsinks if sinks is not None else None, None,
                    dbias if p.grad_bias else None)


def attention(q, k, v, *, causal=False, window=None, scale=None,
              cu_seqlens_q=None, cu_seqlens_k=None, max_seqlen_q=None,
              max_seqlen_k=None, deterministic=False, check_offsets=False,
              softcap=0.0, alibi_slopes=None, sinks=None, dropout_p=0.0,
              bias=None):
    """Attention of q [B, Sq, Hq, D] over k, v [B, Sk, Hkv, D] (the layout of
    FlashAttention's ``flash_attn_func``): O [B, Sq, Hq, D], differentiable
    in q, k and v. With ``cu_seqlens_*``, a packed batch (FlashAttention's
    ``flash_attn_varlen_func``): q [T_q, Hq, D], k, v [T_k, Hkv, D], O
    [T_q, Hq, D].

    * dtype float16 or bfloat16 (all three alike), on a CUDA (or ROCm)
      device; D one of 32, 64, 96, 128, 192, 256; Hq a multiple of Hkv
      (grouped-query attention when Hkv < Hq).
    * Non-contiguous q, k, v (e.g. ``x.transpose(1, 2)`` of [B, H, S, D]
      tensors) are copied to contiguous [B, S, H, D] first; O and the
      gradients are contiguous.
    * ``causal``: query i sees keys j <= i + Sk - Sq (aligned to the
      bottom-right corner, as FlashAttention's; the usual causal mask when
      Sq = Sk). A query that sees no key gets O = 0 and zero gradients.
    * ``window=(left, right)``: query i sees keys j with
      i + Sk - Sq - left <= j <= i + Sk - Sq + right; -1 is unbounded
      (FlashAttention's ``window_size``); ``causal`` sets right = 0.
    * ``scale``: the softmax scale, default 1/sqrt(D).
    * ``deterministic``: a backward that gives the same bits every run (dQ
      summed in a fixed order instead of with atomics).
    * ``cu_seqlens_q`` / ``cu_seqlens_k`` (torch.int32 [B+1] on q's
      device) and ``max_seqlen_q`` / ``max_seqlen_k`` (Python ints), all
      four or none: sequence b is query tokens [cu_seqlens_q[b],
      cu_seqlens_q[b+1]) and key tokens [cu_seqlens_k[b],
      cu_seqlens_k[b+1]); masks (Sq, Sk per sequence), GQA and
      ``deterministic`` apply within each sequence. FlashAttention's
      contract, trusted, not checked (the offsets stay on the GPU):
      offsets non-decreasing within [0, T], no sequence longer than its
      max_seqlen (a longer one is silently cut). Tokens past the last
      offset get O = 0 and zero gradients. The maxima are compiled in,
      rounded up to a power of two (at least 128): a few kernel sets per
      training run.
    * ``check_offsets``: read the offsets back to the host and raise
      ValueError where they break that contract (a synchronisation per
      call, so off by default; eager calls only).
    * ``softcap``: FlashAttention's logit softcap (Gemma 2): each scaled
      score s becomes ``softcap * tanh(s / softcap)``; 0 is none. The
      backward goes through the tanh.
    * ``alibi_slopes``: torch.float32 [Hq] on q's device, FlashAttention's
      ALiBi: the scaled score of query i and key j gets ``- slope[h] |i -
      j|``. Needs Sq = Sk (packed: ``cu_seqlens_k`` the same tensor as
      ``cu_seqlens_q``), where it equals FlashAttention's bottom-right
      bias; the slopes get no gradient. Not with ``softcap``.
    * ``sinks``: torch.float32 [Hq] on q's device, learnable attention
      sinks (GPT-OSS): one logit per query head that joins every row's
      softmax denominator as a key with no value, P = exp(s - lse) with lse
      = log(exp(sink[h]) + sum_k exp(s_k)); a query that sees no key gets
      O = 0. Differentiable: dSink[h] = -sum over the batch and rows of
      exp(sink[h] - lse) rowsum(dO O).
    * ``dropout_p``: FlashAttention's attention dropout: each probability
      is dropped with probability ``dropout_p`` and the kept ones scaled by
      1 / (1 - dropout_p), the backward regenerating the same mask
      (counter-based Philox, README "Dropout"); the seed is drawn from
      PyTorch's generator of q's device at each call (``torch.manual_seed``
      repeats a run). 0 is none; each distinct value compiles its kernels.
    * ``bias``: an additive bias [B or 1, Hq or 1, Sq, Sk] (extent 1
      broadcasts), float32 or q's dtype, on q's device, added to the scaled
      (and softcapped) scores before the mask; dense batches only. With
      ``requires_grad`` the backward computes dBias (summed over the
      broadcast dims, by atomic adds there, so not with ``deterministic``).

    Errors: TypeError (dtype, argument types), ValueError (device, shapes,
    head dim, window, scale, varlen arguments), RuntimeError (unsupported
    GPU), and ``rocke.CompileError`` / ``rocke.RockeOptNotFound`` when the
    kernels cannot be compiled.
    """
    require_torch()
    if not torch.compiler.is_compiling():
        # Eager: every error before anything runs, and the one check of
        # the call.
        p = check_inputs(q, k, v, causal=causal, window=window, scale=scale,
                         deterministic=deterministic,
                         cu_seqlens_q=cu_seqlens_q, cu_seqlens_k=cu_seqlens_k,
                         max_seqlen_q=max_seqlen_q, max_seqlen_k=max_seqlen_k,
                         softcap=softcap, alibi_slopes=alibi_slopes,
                         sinks=sinks, dropout_p=dropout_p, bias=bias)
        if check_offsets and p.varlen:
            error = offsets_error(cu_seqlens_q.tolist(),
                                  cu_seqlens_k.tolist(), p.seq_q, p.seq_k,
                                  max_seqlen_q, max_seqlen_k)
            if error:
                raise ValueError("rocke.torch.attention: " + error)
        return _EagerAttention.apply(p, q.contiguous(), k.contiguous(),
                                     v.contiguous(), cu_seqlens_q,
                                     cu_seqlens_k, alibi_slopes, sinks,
                                     dropout_seed_offset(q.device)
                                     if p.dropout_p else None, bias)
    # Traced: the fake implementation checks the tensors (Dynamo need not
    # trace check_inputs).
    if check_offsets and cu_seqlens_q is not None:
        raise ValueError("rocke.torch.attention: check_offsets reads the "
                         "offsets back to the host, which a compiled graph "
                         "does not; check them in eager mode")
    maxima = varlen_maxima(cu_seqlens_q, cu_seqlens_k, max_seqlen_q,
                           max_seqlen_k)
    left, right = window_extents(causal, window)
    if not isinstance(deterministic, bool):
        raise TypeError("deterministic must be a bool, got %r"
                        % (deterministic,))
    args = (q.contiguous(), k.contiguous(), v.contiguous(), left, right,
            scale_value(scale, q.shape[-1]), deterministic, cu_seqlens_q,
            cu_seqlens_k) + (maxima or (0, 0)) + (softcap_value(softcap),
                                                  alibi_slopes, sinks)
    p_drop = dropout_value(dropout_p)
    args += (p_drop, dropout_seed_offset(q.device) if p_drop else None, bias)
    return torch.ops.rocke.attention_forward(*args)[0]
