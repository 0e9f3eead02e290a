import math

import pytest

from rocke import FmhaBwdSpec, Mask


def test_defaults():
    s = FmhaBwdSpec()
    assert s.heads_kv == s.heads_q and s.head_dim_v == s.head_dim_qk
    assert s.scale_or_default == pytest.approx(1 / math.sqrt(64))


@pytest.mark.parametrize("kw, msg", [
    (dict(dtype="f64"), "element type must be f16, bf16 or f32"),
    (dict(seq_q=0), "seq_q must be > 0"),
    (dict(seq_k=0), "seq_k must be > 0"),
    (dict(batch=0), "batch must be > 0"),
    (dict(seq_q=-3), "seq_q must be > 0"),
    (dict(seq_q=1.5), "seq_q must be an int or None"),
    (dict(heads_q=8, heads_kv=3), "not a multiple of the kv head count"),
    (dict(heads_q=0), "heads_q must be > 0"),
    (dict(heads_q=None), "heads_q must be a static int"),
    (dict(head_dim_qk=80), "unsupported qk head dim 80"),
    (dict(head_dim_v=48), "unsupported v head dim 48"),
    (dict(mask="banded"), "unknown mask kind"),
    (dict(mask="causal", alignment="center"), "unknown mask alignment"),
    (dict(mask="causal", window_left=3), "takes no window extents"),
    (dict(alignment="bottom_right"), "mask kind 'none' takes no alignment"),
    (dict(mask="sliding_window", window_left=4), "needs both 'left' and 'right'"),
    (dict(mask="sliding_window", window_left=-1, window_right=2),
     "must be non-negative"),
    (dict(mask="sliding_window", window_left=0,
          window_right=9223372036854775807), "must be at most 1099511627776"),
    (dict(mask="one_sided_window", window_left=(1 << 40) + 1),
     "must be at most"),
    (dict(mask="one_sided_window"), "window 'left' >= 1"),
    (dict(mask="one_sided_window", window_left=0), "window 'left' >= 1"),
    (dict(mask="one_sided_window", window_left=4, window_right=1),
     "takes no 'right' extent"),
    (dict(scale=0.0), "scale must be a positive finite number"),
    (dict(scale=-1.0), "scale must be a positive finite number"),
    (dict(scale=float("inf")), "scale must be a positive finite number"),
    (dict(scale=float("nan")), "scale must be a positive finite number"),
    (dict(scale=1e300), "scale must be a positive finite number"),
    (dict(strategy="magic"), "unknown strategy"),
    (dict(chip="gfx1100"), "unknown chip 'gfx1100'"),
    (dict(chip="sm_80"), "unknown chip"),
    (dict(layout="sbhd"), "unknown layout"),
    (dict(stats_encoding="log"), "unknown stats encoding"),
    (dict(accumulator_type="f16"), "accumulator_type must be f32 or bf16"),
    (dict(dtype="f16", grad_dtype="bf16"), "gradient element type"),
    (dict(deterministic=1), "deterministic must be a bool"),
])
def test_validation_errors(kw, msg):
    with pytest.raises(ValueError, match=msg.replace("(", r"\(").replace(")", r"\)")):
        FmhaBwdSpec(**kw)


@pytest.mark.parametrize("kw", [
    dict(batch=None, seq_q=None, seq_k=None),
    dict(heads_q=16, heads_kv=4, head_dim_qk=192, head_dim_v=128),
    dict(mask="sliding_window", window_left=0, window_right=0,
         alignment="bottom_right"),
    dict(mask="one_sided_window", window_left=1),
    dict(chip="sm_90", strategy="warp", dtype="bf16", deterministic=True),
])
def test_valid(kw):
    FmhaBwdSpec(**kw)


def test_mask_to_mlir():
    assert Mask().to_mlir() == "#fmha.mask<none>"
    assert Mask("causal", "bottom_right").to_mlir() == \
        "#fmha.mask<causal, alignment = bottom_right>"
    assert Mask("sliding_window", left=128, right=16).to_mlir() == \
        "#fmha.mask<sliding_window, left = 128, right = 16>"


def test_to_mlir_text():
    s = FmhaBwdSpec(dtype="bf16", batch=None, seq_q=None, seq_k=None,
                    heads_q=16, heads_kv=4, head_dim_qk=128, layout="bhsd",
                    mask="sliding_window", window_left=128, window_right=16,
                    scale=0.125, deterministic=True)
    t = s.to_mlir()
    assert "fmha.attention_bwd" in t
    assert "memref<?x?x16x128xbf16, strided<[?, 128, ?, 1]>>" in t
    assert "deterministic" in t and "scale = 1.25" in t
    f = s.to_mlir(forward=True)
    assert "fmha.attention_fwd" in f and "deterministic" not in f
    st = FmhaBwdSpec(batch=2, seq_q=128, seq_k=256, heads_q=8,
                     head_dim_qk=64, layout="bhsd").to_mlir()
    # [B,S,H,D] dims with physical BHSD strides.
    assert "memref<2x128x8x64xf16, strided<[65536, 64, 8192, 1]>>" in st
    assert "memref<2x256x8x64xf16, strided<[131072, 64, 16384, 1]>>" in st
    assert "memref<2x8x128xf32>" in st


def test_to_mlir_forward_then_backward():
    s = FmhaBwdSpec(mask="causal", stats_encoding="log2_max_sum",
                    deterministic=True)
    t = s.to_mlir(forward=True, backward=True)
    assert "@fmha_fwd_bwd(" in t and "%do:" in t and "%dq:" in t
    fwd, bwd = t.index("fmha.attention_fwd"), t.index("fmha.attention_bwd")
    assert fwd < bwd
    # The forward's op line is the forward-only module's, the backward's the
    # backward-only module's.
    assert t[fwd:bwd] in s.to_mlir(forward=True)
    assert t[bwd:t.index("    return")] in s.to_mlir()
    with pytest.raises(ValueError, match="forward, the backward or both"):
        s.to_mlir(forward=False, backward=False)


VARLEN = dict(varlen=True, batch=None, seq_q=None, seq_k=None,
              max_seqlen_q=512, max_seqlen_k=256)


@pytest.mark.parametrize("kw, msg", [
    (dict(VARLEN, batch=2), r"varlen needs batch, seq_q and seq_k None .* "
     r"batch = 2"),
    (dict(VARLEN, seq_k=128), r"seq_k = 128"),
    (dict(VARLEN, max_seqlen_k=None), "varlen needs max_seqlen_k"),
    (dict(VARLEN, max_seqlen_q=0), "max_seqlen_q must be a positive int"),
    (dict(VARLEN, max_seqlen_q=1.5), "max_seqlen_q must be a positive int"),
    (dict(VARLEN, layout="bhsd"), r"packed \[T, H, D\] layout"),
    (dict(max_seqlen_q=128), "max_seqlen_q given without varlen=True"),
    (dict(VARLEN, varlen=1), "varlen must be a bool"),
])
def test_varlen_validation_errors(kw, msg):
    with pytest.raises(ValueError, match=msg):
        FmhaBwdSpec(**kw)


def test_varlen_to_mlir():
    """Packed [T, H, D] operands, [Hq, T_q] statistics, the offsets as the
    last arguments and the maxima as attributes, forward and backward."""
    spec = FmhaBwdSpec(dtype="bf16", heads_q=16, heads_kv=4,
                       head_dim_qk=128, mask="causal",
                       alignment="bottom_right", deterministic=True,
                       chip="sm_90a", **VARLEN)
    text = spec.to_mlir(forward=True, backward=True)
    assert ("%q: memref<?x16x128xbf16>, %k: memref<?x4x128xbf16>" in text)
    assert "%lse: memref<16x?xf32>" in text
    assert text.count("stats(%lse) varlen(%cu_seqlens_q, %cu_seqlens_k)") == 2
    assert text.count("varlen(memref<?xi32>, memref<?xi32>)") == 2
    assert ("%cu_seqlens_q: memref<?xi32>, %cu_seqlens_k: memref<?xi32>) "
            "attributes") in text
    assert text.count("max_seqlen_q = 512, max_seqlen_k = 256}") == 2
    assert "{deterministic, mask" in text
    dense = FmhaBwdSpec(**dict(VARLEN, varlen=False, max_seqlen_q=None,
                               max_seqlen_k=None)).to_mlir()
    assert "varlen" not in dense and "max_seqlen" not in dense


def test_score_mod_shorthands_in_both_ops():
    text = FmhaBwdSpec(softcap=30.0).to_mlir(forward=True, backward=True)
    assert text.count("score_mod softcap(3.000000e+01)") == 2
    text = FmhaBwdSpec(heads_q=8, alibi=True).to_mlir(forward=True,
                                                      backward=True)
    assert "%slopes: memref<8xf32>" in text
    assert text.count("score_mod alibi(%slopes : memref<8xf32>)") == 2


@pytest.mark.parametrize("kw, message", [
    (dict(softcap=0.0), "softcap must be a positive finite number"),
    (dict(softcap=1e39), "softcap must be"),  # not an f32
    (dict(softcap=1e-39), "f32 reciprocal"),  # its reciprocal is not
    (dict(softcap=2.0, alibi=True), "two score modifications"),
    (dict(alibi=1), "alibi must be a bool"),
    (dict(sinks="yes"), "sinks must be a bool"),
    (dict(dropout_p=0.0), r"dropout_p must be a number in \(0, 1\)"),
    (dict(dropout_p=1.0), "dropout_p must be"),
    (dict(dropout_p=0.99999999), "dropout_p must be"),  # 1 in f32
    (dict(scale=1e39), "scale must be a positive finite number"),
])
def test_bad_score_mods_are_named(kw, message):
    """Values past float32's range are refused, not an OverflowError from
    rounding them."""
    with pytest.raises(ValueError, match=message):
        FmhaBwdSpec(**kw)
