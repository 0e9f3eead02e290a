import math

import numpy as np
import pytest

from rocke import FmhaBwdSpec, Mask
from rocke.reference import attention_bwd, attention_fwd, mask_matrix

MASKS = [
    Mask(),
    Mask("causal"),
    Mask("causal", "bottom_right"),
    Mask("sliding_window", left=1, right=0),
    Mask("sliding_window", "bottom_right", left=0, right=1),
    Mask("one_sided_window", left=2),
    Mask("one_sided_window", "bottom_right", left=1),
]


def _rand(shape, rng):
    return rng.standard_normal(shape)


def _problem(rng, B=2, Sq=3, Sk=5, Hq=4, Hkv=2, D=3, Dv=2):
    return (_rand((B, Sq, Hq, D), rng), _rand((B, Sk, Hkv, D), rng),
            _rand((B, Sk, Hkv, Dv), rng), _rand((B, Sq, Hq, Dv), rng))


def test_mask_matrix_semantics():
    # Sq=3, Sk=5, bottom_right: off = 2.
    cz = mask_matrix(3, 5, Mask("causal", "bottom_right"))
    assert cz.tolist() == [[1, 1, 1, 0, 0], [1, 1, 1, 1, 0], [1, 1, 1, 1, 1]]
    tl = mask_matrix(3, 5, "causal")
    assert tl.tolist() == [[1, 0, 0, 0, 0], [1, 1, 0, 0, 0], [1, 1, 1, 0, 0]]
    sw = mask_matrix(4, 4, Mask("sliding_window", left=1, right=1))
    assert sw.tolist() == [[1, 1, 0, 0], [1, 1, 1, 0], [0, 1, 1, 1],
                           [0, 0, 1, 1]]
    # one_sided_window W: q + off - k < W  (includes all future keys).
    ow = mask_matrix(3, 3, Mask("one_sided_window", left=2))
    assert ow.tolist() == [[1, 1, 1], [1, 1, 1], [0, 1, 1]]
    # Matches the band form of dialect/Mask.h (lower = W - 1).
    for q in range(3):
        for k in range(3):
            assert ow[q, k] == (k - q >= -1)


def test_tiny_hand_computed():
    # One query, two keys, D = 1: s = scale * q*k.
    q = np.array([1.0]).reshape(1, 1, 1, 1)
    k = np.array([0.0, math.log(3.0)]).reshape(1, 2, 1, 1)
    v = np.array([10.0, 20.0]).reshape(1, 2, 1, 1)
    o, lse = attention_fwd(q, k, v, scale=1.0)
    # p = [1/4, 3/4]
    assert o[0, 0, 0, 0] == pytest.approx(0.25 * 10 + 0.75 * 20)
    assert lse[0, 0, 0] == pytest.approx(math.log(4.0))
    do = np.ones((1, 1, 1, 1))
    dq, dk, dv = attention_bwd(q, k, v, do, scale=1.0)
    assert dv.ravel() == pytest.approx([0.25, 0.75])
    # dP = v, D = o = 17.5, dS = p*(v - 17.5) = [-1.875, 1.875]
    assert dk.ravel() == pytest.approx([-1.875 * 1.0, 1.875 * 1.0])
    assert dq.ravel() == pytest.approx([1.875 * math.log(3.0)])


def test_tiny_causal_first_row_single_key():
    rng = np.random.default_rng(0)
    q, k, v, do = _problem(rng, B=1, Sq=2, Sk=2, Hq=1, Hkv=1)
    o, lse = attention_fwd(q, k, v, mask="causal", scale=0.7)
    # Query 0 sees only key 0: O = V[0], LSE = s00.
    assert np.allclose(o[0, 0, 0], v[0, 0, 0])
    assert lse[0, 0, 0] == pytest.approx(0.7 * q[0, 0, 0] @ k[0, 0, 0])


def test_default_scale():
    rng = np.random.default_rng(1)
    q, k, v, _ = _problem(rng, D=4)
    a, _ = attention_fwd(q, k, v)
    b, _ = attention_fwd(q, k, v, scale=0.5)
    assert np.allclose(a, b)


def test_gqa_matches_repeated_heads():
    rng = np.random.default_rng(2)
    q, k, v, do = _problem(rng, Hq=4, Hkv=2)
    kr, vr = np.repeat(k, 2, axis=2), np.repeat(v, 2, axis=2)
    o1, l1 = attention_fwd(q, k, v, mask="causal")
    o2, l2 = attention_fwd(q, kr, vr, mask="causal")
    assert np.allclose(o1, o2) and np.allclose(l1, l2)
    g1 = attention_bwd(q, k, v, do, mask="causal")
    g2 = attention_bwd(q, kr, vr, do, mask="causal")
    assert np.allclose(g1[0], g2[0])
    assert np.allclose(g1[1], g2[1][:, :, 0::2] + g2[1][:, :, 1::2])
    assert np.allclose(g1[2], g2[2][:, :, 0::2] + g2[2][:, :, 1::2])


def test_fully_masked_rows():
    rng = np.random.default_rng(3)
    # Sq=4 > Sk=2 with bottom_right causal: off = -2, queries 0,1 see nothing.
    q, k, v, do = _problem(rng, Sq=4, Sk=2)
    m = Mask("causal", "bottom_right")
    o, lse = attention_fwd(q, k, v, mask=m)
    assert np.all(o[:, :2] == 0.0)
    assert np.all(np.isneginf(lse[:, :, :2]))
    assert np.all(np.isfinite(lse[:, :, 2:]))
    dq, dk, dv = attention_bwd(q, k, v, do, mask=m)
    assert np.all(dq[:, :2] == 0.0)
    assert np.all(np.isfinite(dq)) and np.all(np.isfinite(dk))
    # Recomputing from saved -inf LSE gives the same, still exactly 0.
    dq2, dk2, dv2 = attention_bwd(q, k, v, do, mask=m, o=o, lse=lse)
    assert np.all(dq2[:, :2] == 0.0)
    assert np.allclose(dq, dq2) and np.allclose(dk, dk2) and np.allclose(dv, dv2)


def test_everything_masked():
    rng = np.random.default_rng(4)
    q, k, v, do = _problem(rng, Sq=3, Sk=3)
    m = Mask("sliding_window", left=0, right=0)
    # Diagonal only: with Sq=3,Sk=3 each row sees one key.
    o, _ = attention_fwd(q, k, v, mask=m)
    assert np.allclose(o, np.repeat(v, 2, axis=2))
    # Shift so nothing is visible: Sq=3 > Sk=1, bottom_right off=-2 with
    # one_sided_window left=1 sees k == q-2 .. future; query 0,1 see none.
    q1, k1, v1, do1 = _problem(rng, Sq=3, Sk=1)
    m1 = Mask("sliding_window", "bottom_right", left=0, right=0)
    o1, l1 = attention_fwd(q1, k1, v1, mask=m1)
    assert np.all(o1[:, :2] == 0) and np.all(np.isneginf(l1[:, :, :2]))
    g = attention_bwd(q1, k1, v1, do1, mask=m1)
    assert all(np.all(np.isfinite(x)) for x in g)


@pytest.mark.parametrize("mask", MASKS, ids=lambda m: m.to_mlir())
@pytest.mark.parametrize("shape", [(3, 5), (5, 3), (4, 4)])
def test_finite_difference(mask, shape):
    Sq, Sk = shape
    rng = np.random.default_rng(hash((mask.to_mlir(), shape)) % 2 ** 32)
    q, k, v, do = _problem(rng, B=1, Sq=Sq, Sk=Sk, Hq=2, Hkv=1, D=3, Dv=2)
    scale = 0.8

    def loss(q_, k_, v_):
        o, _ = attention_fwd(q_, k_, v_, scale=scale, mask=mask)
        return float(np.sum(o * do))

    dq, dk, dv = attention_bwd(q, k, v, do, scale=scale, mask=mask)
    o, lse = attention_fwd(q, k, v, scale=scale, mask=mask)
    dq2, dk2, dv2 = attention_bwd(q, k, v, do, scale=scale, mask=mask,
                                  o=o, lse=lse)
    for a, b in ((dq, dq2), (dk, dk2), (dv, dv2)):
        assert np.allclose(a, b, atol=1e-12)
    eps = 1e-6
    for x, g, idx in ((q, dq, 0), (k, dk, 1), (v, dv, 2)):
        num = np.zeros_like(x)
        for i in np.ndindex(x.shape):
            args = [q.copy(), k.copy(), v.copy()]
            args[idx][i] += eps
            fp = loss(*args)
            args[idx][i] -= 2 * eps
            fm = loss(*args)
            num[i] = (fp - fm) / (2 * eps)
        assert np.allclose(g, num, atol=1e-7, rtol=1e-6), (idx, g - num)


def test_spec_as_mask():
    s = FmhaBwdSpec(mask="sliding_window", window_left=1, window_right=0)
    rng = np.random.default_rng(5)
    q, k, v, _ = _problem(rng)
    a, _ = attention_fwd(q, k, v, mask=s)
    b, _ = attention_fwd(q, k, v, mask="sliding_window", left=1, right=0)
    assert np.array_equal(a, b)


def test_softmax_rows_sum_to_one_via_ones_value():
    rng = np.random.default_rng(6)
    q, k, v, _ = _problem(rng)
    o, _ = attention_fwd(q, k, np.ones_like(v), mask="causal")
    assert np.allclose(o, 1.0)


def _band(mask):
    """The (lower, upper) band of dialect/Mask.h's MaskAttr::getBand."""
    if mask.kind == "none":
        return -1, -1
    if mask.kind == "causal":
        return -1, 0
    if mask.kind == "sliding_window":
        return mask.left, mask.right
    return mask.left - 1, -1


@pytest.mark.parametrize("mask", MASKS + [
    Mask("sliding_window", left=3, right=7),
    Mask("one_sided_window", "bottom_right", left=5)], ids=lambda m: m.to_mlir())
def test_mask_matches_cpp_band(mask):
    lower, upper = _band(mask)
    for sq, sk in ((1, 1), (3, 9), (9, 3), (6, 6)):
        got = mask_matrix(sq, sk, mask)
        off = sk - sq if mask.alignment == "bottom_right" else 0
        for q in range(sq):
            for k in range(sk):
                rel = k - (q + off)
                want = (lower < 0 or rel >= -lower) and (upper < 0 or rel <= upper)
                assert got[q, k] == want


@pytest.mark.parametrize("mask", [Mask(), Mask("causal", "bottom_right")])
def test_log2_max_sum_matches_lse(mask):
    from rocke.reference import log2_max_sum, log2_max_sum_to_lse
    rng = np.random.default_rng(7)
    q, k, v, _ = _problem(rng, Sq=5, Sk=3)
    _, lse = attention_fwd(q, k, v, scale=0.6, mask=mask)
    m, l = log2_max_sum(q, k, scale=0.6, mask=mask)
    assert np.all((l >= 1.0) | (l == 0.0))
    got = log2_max_sum_to_lse(m, l)
    fin = np.isfinite(lse)
    assert np.array_equal(fin, np.isfinite(got))
    assert np.allclose(got[fin], lse[fin])
