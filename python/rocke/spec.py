"""Problem specification for fmha attention kernels and its MLIR emission.

The checks in ``FmhaBwdSpec.__post_init__`` mirror the C++ verifiers in
``dialect/FmhaOps.cpp`` (op) and ``dialect/FmhaDialect.cpp`` (mask attribute),
so a spec that constructs here also verifies in ``rocke-opt``.
"""
from __future__ import annotations

import math
import struct
from dataclasses import dataclass, field
from typing import Optional

DTYPES = ("f16", "bf16", "f32")
HEAD_DIMS = (32, 64, 96, 128, 192, 256)
MASK_KINDS = ("none", "causal", "sliding_window", "one_sided_window")
ALIGNMENTS = ("top_left", "bottom_right")
# dialect/Mask.h kMaxWindowExtent: longer than any sequence.
MAX_WINDOW_EXTENT = 1 << 40
STRATEGIES = ("tiled", "warp")
CHIPS = ("gfx90a", "gfx942", "gfx950", "sm_90", "sm_90a")
LAYOUTS = ("bshd", "bhsd")
STATS_ENCODINGS = ("lse", "log2_max_sum")
ACCUMULATOR_TYPES = ("f32", "bf16")


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def round_to_f32(x: float) -> float:
    """Round a Python float to the nearest IEEE single."""
    return struct.unpack("f", struct.pack("f", x))[0]


def finite_in_f32(x: float) -> bool:
    """Whether `x` is finite once rounded to an IEEE single."""
    try:
        return math.isfinite(round_to_f32(x))
    except OverflowError:  # past the largest single
        return False


def _f32_literal(x: float) -> str:
    """A decimal literal that MLIR parses back to exactly the f32 value."""
    v = round_to_f32(x)
    for digits in range(6, 10):
        s = "%.*e" % (digits, v)
        if round_to_f32(float(s)) == v:
            return s
    return "%.9e" % v


@dataclass(frozen=True)
class Mask:
    """An attention mask; semantics as in ``#fmha.mask`` (see FmhaOps.td)."""

    kind: str = "none"
    alignment: str = "top_left"
    left: Optional[int] = None
    right: Optional[int] = None

    def __post_init__(self):
        validate_mask(self.kind, self.alignment, self.left, self.right)

    def offset(self, sq: int, sk: int) -> int:
        return sk - sq if self.alignment == "bottom_right" else 0

    def visible(self, q, k, sq: int, sk: int):
        """Whether key k is visible from query q (works on NumPy arrays)."""
        off = self.offset(sq, sk)
        if self.kind == "none":
            return (q + k) * 0 == 0
        if self.kind == "causal":
            return k <= q + off
        if self.kind == "sliding_window":
            return (q + off - self.left <= k) & (k <= q + off + self.right)
        return q + off - k < self.left  # one_sided_window

    def to_mlir(self) -> str:
        parts = [self.kind]
        if self.alignment != "top_left":
            parts.append("alignment = %s" % self.alignment)
        if self.left is not None:
            parts.append("left = %d" % self.left)
        if self.right is not None:
            parts.append("right = %d" % self.right)
        return "#fmha.mask<%s>" % ", ".join(parts)


def validate_mask(kind, alignment, left, right) -> None:
    """Mirror of ``MaskAttr::verify``; raises ValueError."""
    if kind not in MASK_KINDS:
        raise ValueError("unknown mask kind %r (expected one of %s)"
                         % (kind, ", ".join(MASK_KINDS)))
    if alignment not in ALIGNMENTS:
        raise ValueError("unknown mask alignment %r (expected one of %s)"
                         % (alignment, ", ".join(ALIGNMENTS)))
    for name, val in (("left", left), ("right", right)):
        if val is not None and not _is_int(val):
            raise ValueError("window %s must be an int, got %r" % (name, val))
        if val is not None and val < 0:
            raise ValueError("window extents must be non-negative, got %s = %d"
                             % (name, val))
        if val is not None and val > MAX_WINDOW_EXTENT:
            raise ValueError("window extents must be at most %d (2^40, longer "
                             "than any sequence), got %s = %d"
                             % (MAX_WINDOW_EXTENT, name, val))
    if kind in ("none", "causal"):
        if left is not None or right is not None:
            raise ValueError("mask kind '%s' takes no window extents" % kind)
        if kind == "none" and alignment != "top_left":
            raise ValueError("mask kind 'none' takes no alignment")
    elif kind == "sliding_window":
        if left is None or right is None:
            raise ValueError(
                "sliding_window needs both 'left' and 'right' extents")
    else:
        if left is None or left < 1:
            raise ValueError("one_sided_window needs a window 'left' >= 1")
        if right is not None:
            raise ValueError("one_sided_window takes no 'right' extent")


@dataclass
class FmhaBwdSpec:
    """One attention problem (forward + backward) and how to compile it.

    Tensors are logically [B, S, H, D]; ``layout`` picks the physical order
    (``bhsd`` is expressed with strided memref layouts).  ``None`` for
    ``batch``/``seq_q``/``seq_k`` means a dynamic extent.

    ``varlen``: a packed batch (FlashAttention's varlen layout): tensors
    [T, H, D] with dynamic token counts (``batch``, ``seq_q``, ``seq_k``
    None), statistics [Hq, T_q], the sequences' offsets as the i32 arguments
    ``cu_seqlens_q`` / ``cu_seqlens_k`` [B+1], and ``max_seqlen_q`` /
    ``max_seqlen_k`` bounding every sequence's length (compiled in: they size
    the grids).

    Score modification (both ops, README "Score modification"): ``softcap``
    (a positive cap: ``cap * tanh(s / cap)``) or ``alibi`` (``s - slopes[h]
    |q - k|``, the slopes an f32 [heads_q] argument ``%slopes``, kernel role
    ``capture0``); at most one of them.

    ``sinks`` (README "Attention sinks"): one learnable logit per query head
    in every row's softmax denominator, the f32 [heads_q] argument
    ``%sinks`` (role ``sinks``); the backward also writes its gradient,
    ``%dsinks`` (role ``dsinks``).

    ``bias`` (README "Additive bias"): the element type (f32 or ``dtype``) of
    an additive bias ``%bias`` [B or 1, heads_q or 1, Sq, Sk] (role
    ``bias``), one value per batch and per head unless ``bias_batch`` /
    ``bias_heads`` is False (broadcast); with ``grad_bias`` the backward
    writes its gradient, f32 ``%dbias`` of the same shape (role ``dbias``).

    ``dropout_p`` (README "Dropout"): the probability of dropping a score,
    in (0, 1); both ops read the Philox seed and offset from the i64 [2]
    argument ``%seed_offset`` (role ``dropout_seed_offset``).
    """

    dtype: str = "f16"
    batch: Optional[int] = 1
    seq_q: Optional[int] = 128
    seq_k: Optional[int] = 128
    heads_q: int = 8
    heads_kv: Optional[int] = None  # default: heads_q
    head_dim_qk: int = 64
    head_dim_v: Optional[int] = None  # default: head_dim_qk
    mask: str = "none"
    alignment: str = "top_left"
    window_left: Optional[int] = None
    window_right: Optional[int] = None
    scale: Optional[float] = None  # default: 1/sqrt(head_dim_qk)
    strategy: str = "tiled"
    chip: str = "gfx942"
    deterministic: bool = False
    layout: str = "bshd"
    stats_encoding: str = "lse"
    accumulator_type: Optional[str] = None  # f32 (default) or bf16
    grad_dtype: Optional[str] = None  # dQ/dK/dV element type; default dtype
    varlen: bool = False
    max_seqlen_q: Optional[int] = None  # varlen only
    max_seqlen_k: Optional[int] = None
    softcap: Optional[float] = None
    alibi: bool = False
    sinks: bool = False
    dropout_p: Optional[float] = None
    bias: Optional[str] = None
    bias_batch: bool = True
    bias_heads: bool = True
    grad_bias: bool = True
    name: str = field(default="", compare=False)

    def __post_init__(self):
        if self.dtype not in DTYPES:
            raise ValueError("element type must be f16, bf16 or f32, got %r"
                             % (self.dtype,))
        for nm in ("batch", "seq_q", "seq_k"):
            val = getattr(self, nm)
            if val is None:
                continue
            if not _is_int(val):
                raise ValueError("%s must be an int or None (dynamic), got %r"
                                 % (nm, val))
            if val <= 0:
                raise ValueError(
                    "%s must be > 0, got %d; batch, sequence, heads and head "
                    "dim must be > 0" % (nm, val))
        if self.heads_kv is None:
            self.heads_kv = self.heads_q
        if self.head_dim_v is None:
            self.head_dim_v = self.head_dim_qk
        for nm in ("heads_q", "heads_kv", "head_dim_qk", "head_dim_v"):
            val = getattr(self, nm)
            if not _is_int(val):
                raise ValueError("%s must be a static int, got %r" % (nm, val))
            if val <= 0:
                raise ValueError("%s must be > 0, got %d" % (nm, val))
        if self.heads_q % self.heads_kv != 0:
            raise ValueError(
                "query head count %d is not a multiple of the kv head count %d"
                % (self.heads_q, self.heads_kv))
        for nm, d in (("qk", self.head_dim_qk), ("v", self.head_dim_v)):
            if d not in HEAD_DIMS:
                raise ValueError(
                    "unsupported %s head dim %d (supported: 32, 64, 96, 128, "
                    "192, 256)" % (nm, d))
        validate_mask(self.mask, self.alignment, self.window_left,
                      self.window_right)
        if self.scale is not None:
            if isinstance(self.scale, bool) or not isinstance(
                    self.scale, (int, float)):
                raise ValueError("scale must be a number, got %r"
                                 % (self.scale,))
            s = float(self.scale)
            if not math.isfinite(s) or s <= 0.0 or not finite_in_f32(s) \
                    or round_to_f32(s) <= 0.0:
                raise ValueError(
                    "scale must be a positive finite number, got %r" % s)
        if self.strategy not in STRATEGIES:
            raise ValueError("unknown strategy %r (expected one of %s)"
                             % (self.strategy, ", ".join(STRATEGIES)))
        if self.chip not in CHIPS:
            raise ValueError("unknown chip %r (expected one of %s)"
                             % (self.chip, ", ".join(CHIPS)))
        if not isinstance(self.deterministic, bool):
            raise ValueError("deterministic must be a bool, got %r"
                             % (self.deterministic,))
        if self.layout not in LAYOUTS:
            raise ValueError("unknown layout %r (expected one of %s)"
                             % (self.layout, ", ".join(LAYOUTS)))
        if self.stats_encoding not in STATS_ENCODINGS:
            raise ValueError("unknown stats encoding %r (expected one of %s)"
                             % (self.stats_encoding,
                                ", ".join(STATS_ENCODINGS)))
        if self.accumulator_type is not None and \
                self.accumulator_type not in ACCUMULATOR_TYPES:
            raise ValueError("accumulator_type must be f32 or bf16, got %r"
                             % (self.accumulator_type,))
        if self.grad_dtype is not None and self.grad_dtype not in (
                self.dtype, "f32"):
            raise ValueError("gradient element type must be %s or f32, got %r"
                             % (self.dtype, self.grad_dtype))
        self._validate_varlen()
        self._validate_score_mod()
        self._validate_bias()
        if self.dropout_p is not None:
            p = self.dropout_p
            if isinstance(p, bool) or not isinstance(p, (int, float)) or \
                    not 0.0 < float(p) < 1.0 or not round_to_f32(p) < 1.0:
                raise ValueError("dropout_p must be a number in (0, 1) (None: "
                                 "no dropout), got %r" % (p,))

    def _validate_score_mod(self):
        """Mirror of the verifier's softcap check (a positive cap with a
        finite f32 reciprocal); one modification at most."""
        for nm in ("alibi", "sinks"):
            if not isinstance(getattr(self, nm), bool):
                raise ValueError("%s must be a bool, got %r"
                                 % (nm, getattr(self, nm)))
        if self.softcap is None:
            return
        if self.alibi:
            raise ValueError("softcap and alibi are two score modifications; "
                             "the shorthands take one (write a score_mod "
                             "region for both)")
        cap = self.softcap
        if isinstance(cap, bool) or not isinstance(cap, (int, float)) or \
                not finite_in_f32(cap) or cap <= 0 or \
                not finite_in_f32(1.0 / float(cap)):
            raise ValueError("softcap must be a positive finite number whose "
                             "f32 reciprocal is finite, got %r" % (cap,))

    def _score_mod(self) -> str:
        """The ops' score_mod clause (after their types), or none."""
        if self.softcap is not None:
            return "\n        score_mod softcap(%s)" % _f32_literal(
                float(self.softcap))
        if self.alibi:
            return ("\n        score_mod alibi(%%slopes : %s)"
                    % self._slopes_type())
        return ""

    def _validate_bias(self):
        """Mirror of the verifier's bias checks that the spec can break."""
        for nm in ("bias_batch", "bias_heads", "grad_bias"):
            if not isinstance(getattr(self, nm), bool):
                raise ValueError("%s must be a bool, got %r"
                                 % (nm, getattr(self, nm)))
        if self.bias is None:
            return
        if self.bias not in ("f32", self.dtype):
            raise ValueError("bias element type must be f32 or %s, got %r"
                             % (self.dtype, self.bias))
        if self.varlen:
            raise ValueError("an additive bias takes a dense batch, not "
                             "varlen")
        if self.deterministic and self.grad_bias and not (
                self.bias_batch and self.bias_heads):
            raise ValueError("deterministic: the gradient of a bias "
                             "broadcast over the batch or the heads is summed "
                             "by atomic adds in no fixed order")

    def _bias_type(self, elt) -> str:
        dims = [self.batch if self.bias_batch else 1,
                self.heads_q if self.bias_heads else 1, self.seq_q,
                self.seq_k]
        return "memref<%sx%s>" % ("x".join("?" if d is None else str(d)
                                           for d in dims), elt)

    def _slopes_type(self) -> str:
        """An f32 vector of one value per query head (slopes, sinks)."""
        return "memref<%dxf32>" % self.heads_q

    def _validate_varlen(self):
        """Mirror of the op verifier's varlen checks (and what to_mlir's
        varlen form needs: dynamic token counts, the bshd layout)."""
        if not isinstance(self.varlen, bool):
            raise ValueError("varlen must be a bool, got %r" % (self.varlen,))
        maxima = (("max_seqlen_q", self.max_seqlen_q),
                  ("max_seqlen_k", self.max_seqlen_k))
        if not self.varlen:
            given = [nm for nm, val in maxima if val is not None]
            if given:
                raise ValueError("%s given without varlen=True (the maxima "
                                 "bound a packed batch's sequences)"
                                 % " and ".join(given))
            return
        sized = [nm for nm in ("batch", "seq_q", "seq_k")
                 if getattr(self, nm) is not None]
        if sized:
            raise ValueError(
                "varlen needs batch, seq_q and seq_k None (the batch size "
                "comes from cu_seqlens, the token counts are dynamic), got "
                + ", ".join("%s = %r" % (nm, getattr(self, nm))
                            for nm in sized))
        for nm, val in maxima:
            if val is None:
                raise ValueError("varlen needs %s (the longest sequence; it "
                                 "sizes the launch grid)" % nm)
            if not _is_int(val) or val <= 0:
                raise ValueError("%s must be a positive int, got %r"
                                 % (nm, val))
        if self.layout != "bshd":
            raise ValueError("varlen takes the packed [T, H, D] layout "
                             "(layout='bshd'), got layout %r" % self.layout)

    # ------------------------------------------------------------------ #
    @property
    def mask_attr(self) -> Mask:
        return Mask(self.mask, self.alignment, self.window_left,
                    self.window_right)

    @property
    def scale_or_default(self) -> float:
        if self.scale is not None:
            return float(self.scale)
        return 1.0 / math.sqrt(self.head_dim_qk)

    @property
    def target(self) -> str:
        return "cuda" if self.chip.startswith("sm_") else "rocm"

    @property
    def func_name(self) -> str:
        return self.name or "fmha_bwd"

    # ------------------------------------------------------------------ #
    def _memref(self, seq, heads, dim, elt) -> str:
        if self.varlen:  # packed [T, H, D]
            return "memref<?x%dx%dx%s>" % (heads, dim, elt)
        dims = [self.batch, seq, heads, dim]
        shape = "x".join("?" if d is None else str(d) for d in dims)
        if self.layout == "bshd":
            return "memref<%sx%s>" % (shape, elt)
        # Physical [B, H, S, D]: strides (H*S*D, D, S*D, 1) for dims (B,S,H,D).
        s_stride = dim
        h_stride = None if seq is None else seq * dim
        b_stride = None if h_stride is None else heads * h_stride
        strides = ", ".join("?" if x is None else str(x)
                            for x in (b_stride, s_stride, h_stride, 1))
        return "memref<%sx%s, strided<[%s]>>" % (shape, elt, strides)

    def _stats_type(self) -> str:
        if self.varlen:  # [Hq, T_q]
            return "memref<%dx?xf32>" % self.heads_q
        dims = [self.batch, self.heads_q, self.seq_q]
        return "memref<%sxf32>" % "x".join("?" if d is None else str(d)
                                            for d in dims)

    def _attrs(self, forward: bool) -> str:
        attrs = []
        if not forward and self.accumulator_type is not None:
            attrs.append("accumulator_type = %s" % self.accumulator_type)
        if not forward and self.deterministic:
            attrs.append("deterministic")
        if self.mask != "none":
            attrs.append("mask = %s" % self.mask_attr.to_mlir())
        if self.scale is not None:
            attrs.append("scale = %s : f32" % _f32_literal(float(self.scale)))
        if self.stats_encoding != "lse":
            attrs.append("stats_encoding = #fmha.stats<%s>"
                         % self.stats_encoding)
        if self.varlen:
            attrs.append("max_seqlen_q = %d, max_seqlen_k = %d"
                         % (self.max_seqlen_q, self.max_seqlen_k))
        return (" {%s}" % ", ".join(attrs)) if attrs else ""

    def to_mlir(self, forward: bool = False,
                backward: Optional[bool] = None) -> str:
        """MLIR text: a module with one func holding the fmha op(s).

        ``forward=True`` emits ``fmha.attention_fwd`` instead of the backward;
        ``forward=True, backward=True`` emits both in one func, the forward
        first, writing the O and statistics the backward reads. The chip and
        strategy travel as ``rocke.chip``/``rocke.strategy`` func attributes
        for the lowering pipelines.
        """
        if backward is None:
            backward = not forward
        if not (forward or backward):
            raise ValueError("to_mlir needs the forward, the backward or both")
        e = self.dtype
        ge = self.grad_dtype or e
        qt = self._memref(self.seq_q, self.heads_q, self.head_dim_qk, e)
        kt = self._memref(self.seq_k, self.heads_kv, self.head_dim_qk, e)
        vt = self._memref(self.seq_k, self.heads_kv, self.head_dim_v, e)
        ot = self._memref(self.seq_q, self.heads_q, self.head_dim_v, e)
        st = self._stats_type()
        nstats = 1 if self.stats_encoding == "lse" else 2
        stat_names = ["%lse"] if nstats == 1 else ["%m", "%l"]
        stats_args = ", ".join("%s: %s" % (n, st) for n in stat_names)
        stats_vals = ", ".join(stat_names)
        stats_types = ", ".join([st] * nstats)
        fattrs = ('attributes {rocke.chip = "%s", rocke.strategy = "%s", '
                  'rocke.layout = "%s"}' % (self.chip, self.strategy,
                                            self.layout))
        # Varlen: the offsets; the kernels record them as the roles
        # cu_seqlens_q / cu_seqlens_k whatever the names.
        cu_args = cu_vals = cu_types = ""
        if self.varlen:
            cu_args = (", %cu_seqlens_q: memref<?xi32>, "
                       "%cu_seqlens_k: memref<?xi32>")
            cu_vals = " varlen(%cu_seqlens_q, %cu_seqlens_k)"
            cu_types = " varlen(memref<?xi32>, memref<?xi32>)"
        if self.alibi:
            cu_args += ", %%slopes: %s" % self._slopes_type()
        # Both ops' sinks, bias and dropout clauses; the backward's gradients
        # of the sinks and the bias.
        extra_args = extra_vals = extra_types = ""
        grad_args = grad_vals = grad_types = ""
        if self.sinks:
            head_vector = self._slopes_type()
            extra_args = ", %%sinks: %s" % head_vector
            extra_vals = " sinks(%sinks)"
            extra_types = " sinks(%s)" % head_vector
            grad_args = ", %%dsinks: %s" % head_vector
            grad_vals = " grad_sinks(%dsinks)"
            grad_types = " grad_sinks(%s)" % head_vector
        if self.bias is not None:
            bias_type = self._bias_type(self.bias)
            extra_args += ", %%bias: %s" % bias_type
            extra_vals += " bias(%bias)"
            extra_types += " bias(%s)" % bias_type
            if self.grad_bias:
                grad_type = self._bias_type("f32")
                grad_args += ", %%dbias: %s" % grad_type
                grad_vals += " grad_bias(%dbias)"
                grad_types += " grad_bias(%s)" % grad_type
        if self.dropout_p is not None:
            extra_args += ", %seed_offset: memref<2xi64>"
            extra_vals += " dropout(%%seed_offset, p = %s)" % _f32_literal(
                float(self.dropout_p))
            extra_types += " dropout(memref<2xi64>)"
        score_mod = self._score_mod()
        name = {(True, False): "fmha_fwd", (False, True): "fmha_bwd",
                (True, True): "fmha_fwd_bwd"}[(forward, backward)]
        ops = ""
        if forward:
            args = ("%%q: %s, %%k: %s, %%v: %s, %%o: %s, %s%s%s"
                    % (qt, kt, vt, ot, stats_args, cu_args, extra_args))
            ops += ("    fmha.attention_fwd %%q, %%k, %%v -> %%o, "
                    "stats(%s)%s%s%s\n"
                    "        : %s, %s, %s -> %s, stats(%s)%s%s%s\n"
                    % (stats_vals, cu_vals, extra_vals, self._attrs(True), qt,
                       kt, vt, ot, stats_types, cu_types, extra_types,
                       score_mod))
        if backward:  # its arguments include the forward's
            dqt = self._memref(self.seq_q, self.heads_q, self.head_dim_qk, ge)
            dkt = self._memref(self.seq_k, self.heads_kv, self.head_dim_qk, ge)
            dvt = self._memref(self.seq_k, self.heads_kv, self.head_dim_v, ge)
            args = ("%%q: %s, %%k: %s, %%v: %s, %%o: %s, %%do: %s, %s, "
                    "%%dq: %s, %%dk: %s, %%dv: %s%s%s%s"
                    % (qt, kt, vt, ot, ot, stats_args, dqt, dkt, dvt,
                       cu_args, extra_args, grad_args))
            ops += ("    fmha.attention_bwd %%q, %%k, %%v, %%o, %%do, "
                    "stats(%s)%s%s -> %%dq, %%dk, %%dv%s%s\n"
                    "        : %s, %s, %s, %s, %s, stats(%s)%s%s\n"
                    "        -> %s, %s, %s%s%s\n"
                    % (stats_vals, cu_vals, extra_vals, grad_vals,
                       self._attrs(False), qt, kt, vt, ot, ot, stats_types,
                       cu_types, extra_types, dqt, dkt, dvt, grad_types,
                       score_mod))
        return ("module {\n  func.func @%s(%s) %s {\n%s    return\n  }\n}\n"
                % (self.name or name, args, fattrs, ops))

    def to_mlir_fwd(self) -> str:
        return self.to_mlir(forward=True)


FmhaSpec = FmhaBwdSpec
