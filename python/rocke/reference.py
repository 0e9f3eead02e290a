"""NumPy float64 reference for fmha forward and backward.

Arrays are BSHD: q [B, Sq, Hq, Dqk], k [B, Sk, Hkv, Dqk], v [B, Sk, Hkv, Dv],
o/do [B, Sq, Hq, Dv]; lse is [B, Hq, Sq] (natural log).  Hq must be a
multiple of Hkv (GQA: query head h reads kv head h // (Hq // Hkv)).
Mask semantics follow ``#fmha.mask``: with off = 0 (top_left) or Sk - Sq
(bottom_right) key k is visible from query q when
  causal: k <= q + off; sliding_window: q+off-left <= k <= q+off+right;
  one_sided_window: q + off - k < left.
Fully masked rows give O = 0, LSE = -inf and exactly-zero gradients.
"""
from __future__ import annotations

import math
from typing import Optional, Tuple, Union

import numpy as np

from .spec import Mask

__all__ = ["make_mask", "mask_matrix", "attention_fwd", "attention_bwd",
           "log2_max_sum", "log2_max_sum_to_lse"]

MaskLike = Union[None, str, Mask]


def make_mask(mask: MaskLike = None, alignment: str = "top_left",
              left: Optional[int] = None, right: Optional[int] = None) -> Mask:
    if isinstance(mask, Mask):
        return mask
    if hasattr(mask, "mask_attr"):  # an FmhaBwdSpec
        return mask.mask_attr
    return Mask(mask or "none", alignment, left, right)


def mask_matrix(sq: int, sk: int, mask: MaskLike = None, **kw) -> np.ndarray:
    """[Sq, Sk] bool matrix of visible (query, key) pairs."""
    m = make_mask(mask, **kw)
    q = np.arange(sq)[:, None]
    k = np.arange(sk)[None, :]
    return np.broadcast_to(m.visible(q, k, sq, sk), (sq, sk)).copy()


def _check(q, k, v):
    q, k, v = (np.asarray(x, dtype=np.float64) for x in (q, k, v))
    if q.ndim != 4 or k.ndim != 4 or v.ndim != 4:
        raise ValueError("q, k, v must be rank-4 BSHD arrays")
    B, Sq, Hq, D = q.shape
    Bk, Sk, Hkv, Dk = k.shape
    if Bk != B or v.shape[0] != B:
        raise ValueError("batch mismatch")
    if Dk != D:
        raise ValueError("qk head dim mismatch: query %d, key %d" % (D, Dk))
    if v.shape[1] != Sk or v.shape[2] != Hkv:
        raise ValueError("key/value shape mismatch")
    if Hq % Hkv:
        raise ValueError("query head count %d is not a multiple of the kv "
                         "head count %d" % (Hq, Hkv))
    return q, k, v


def _expand(x, groups):
    """[B, S, Hkv, D] -> [B, Hq, S, D] with kv heads repeated."""
    return np.repeat(np.transpose(x, (0, 2, 1, 3)), groups, axis=1)


def _probs(q, k, scale, mask):
    """Scores -> (P [B,Hq,Sq,Sk], lse [B,Hq,Sq], visible [Sq,Sk])."""
    B, Sq, Hq, D = q.shape
    Sk, Hkv = k.shape[1], k.shape[2]
    if scale is None:
        scale = 1.0 / math.sqrt(D)
    vis = mask_matrix(Sq, Sk, mask)
    qh = np.transpose(q, (0, 2, 1, 3))
    kh = _expand(k, Hq // Hkv)
    s = scale * np.einsum("bhqd,bhkd->bhqk", qh, kh)
    s = np.where(vis, s, -np.inf)
    m = np.max(s, axis=-1, keepdims=True) if Sk else \
        np.full(s.shape[:-1] + (1,), -np.inf)
    empty = ~np.isfinite(m)
    m_safe = np.where(empty, 0.0, m)
    e = np.where(vis, np.exp(s - m_safe), 0.0)
    l = e.sum(axis=-1, keepdims=True)
    p = np.where(empty, 0.0, e / np.where(empty, 1.0, l))
    with np.errstate(divide="ignore"):
        lse = np.where(empty, -np.inf, m_safe + np.log(np.where(empty, 1.0, l)))
    return p, lse[..., 0], scale


def attention_fwd(q, k, v, scale: Optional[float] = None,
                  mask: MaskLike = None, alignment: str = "top_left",
                  left: Optional[int] = None, right: Optional[int] = None
                  ) -> Tuple[np.ndarray, np.ndarray]:
    """O [B,Sq,Hq,Dv] and LSE [B,Hq,Sq] in float64."""
    q, k, v = _check(q, k, v)
    m = make_mask(mask, alignment, left, right)
    p, lse, _ = _probs(q, k, scale, m)
    vh = _expand(v, q.shape[2] // k.shape[2])
    o = np.einsum("bhqk,bhkd->bqhd", p, vh)
    return o, lse


def attention_bwd(q, k, v, do, scale: Optional[float] = None,
                  mask: MaskLike = None, alignment: str = "top_left",
                  left: Optional[int] = None, right: Optional[int] = None,
                  o=None, lse=None
                  ) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """dQ, dK, dV (float64, shapes of q, k, v) of loss = sum(O * dO).

    ``o``/``lse`` may be given (as a kernel would); otherwise recomputed.
    """
    q, k, v = _check(q, k, v)
    do = np.asarray(do, dtype=np.float64)
    B, Sq, Hq, D = q.shape
    Sk, Hkv, Dv = k.shape[1], k.shape[2], v.shape[3]
    if do.shape != (B, Sq, Hq, Dv):
        raise ValueError("do must have shape %s, got %s"
                         % ((B, Sq, Hq, Dv), do.shape))
    g = Hq // Hkv
    msk = make_mask(mask, alignment, left, right)
    p, lse_r, scale = _probs(q, k, scale, msk)
    if lse is not None:
        # Recompute P from the saved statistics, like the kernel does.
        lse = np.asarray(lse, dtype=np.float64)
        vis = mask_matrix(Sq, Sk, msk)
        qh = np.transpose(q, (0, 2, 1, 3))
        s = scale * np.einsum("bhqd,bhkd->bhqk", qh, _expand(k, g))
        fin = np.isfinite(lse)[..., None]
        p = np.where(vis & fin,
                     np.exp(s - np.where(fin, lse[..., None], 0.0)), 0.0)
    vh = _expand(v, g)
    kh = _expand(k, g)
    qh = np.transpose(q, (0, 2, 1, 3))
    doh = np.transpose(do, (0, 2, 1, 3))
    if o is None:
        oh = np.einsum("bhqk,bhkd->bhqd", p, vh)
    else:
        oh = np.transpose(np.asarray(o, dtype=np.float64), (0, 2, 1, 3))
    dvh = np.einsum("bhqk,bhqd->bhkd", p, doh)
    dp = np.einsum("bhqd,bhkd->bhqk", doh, vh)
    delta = np.sum(doh * oh, axis=-1, keepdims=True)
    ds = p * (dp - delta)
    dqh = scale * np.einsum("bhqk,bhkd->bhqd", ds, kh)
    dkh = scale * np.einsum("bhqk,bhqd->bhkd", ds, qh)

    def fold(x):  # [B, Hq, Sk, D] -> [B, Sk, Hkv, D], summing query groups
        x = x.reshape(B, Hkv, g, x.shape[2], x.shape[3]).sum(axis=2)
        return np.transpose(x, (0, 2, 1, 3))

    dq = np.transpose(dqh, (0, 2, 1, 3))
    return dq, fold(dkh), fold(dvh)


LOG2E = math.log2(math.e)


def log2_max_sum(q, k, scale: Optional[float] = None, mask: MaskLike = None,
                 alignment: str = "top_left", left: Optional[int] = None,
                 right: Optional[int] = None) -> Tuple[np.ndarray, np.ndarray]:
    """The ``log2_max_sum`` statistics: M = rowmax(s * scale * log2e) and
    L = rowsum(exp2(s * scale * log2e - M)), both [B, Hq, Sq].
    Fully masked rows give M = -inf, L = 0."""
    q, k, _ = _check(q, k, k[..., :1])
    B, Sq, Hq, D = q.shape
    Sk, Hkv = k.shape[1], k.shape[2]
    if scale is None:
        scale = 1.0 / math.sqrt(D)
    vis = mask_matrix(Sq, Sk, make_mask(mask, alignment, left, right))
    qh = np.transpose(q, (0, 2, 1, 3))
    t = scale * LOG2E * np.einsum("bhqd,bhkd->bhqk", qh,
                                  _expand(k, Hq // Hkv))
    t = np.where(vis, t, -np.inf)
    m = np.max(t, axis=-1)
    fin = np.isfinite(m)
    l = np.where(vis, np.exp2(t - np.where(fin, m, 0.0)[..., None]), 0.0)
    return m, np.where(fin, l.sum(axis=-1), 0.0)


def log2_max_sum_to_lse(m, l) -> np.ndarray:
    """Natural-log LSE from (M, L): lse = (M + log2 L) / log2e."""
    m, l = np.asarray(m, np.float64), np.asarray(l, np.float64)
    fin = np.isfinite(m) & (l > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(fin, (m + np.log2(np.where(fin, l, 1.0))) / LOG2E,
                        -np.inf)
