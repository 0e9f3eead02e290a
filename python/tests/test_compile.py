import itertools

import pytest

import rocke
from rocke import CompileError, FmhaBwdSpec


def _exe():
    try:
        return rocke.find_rocke_opt()
    except rocke.RockeOptNotFound:
        return None


pytestmark = pytest.mark.skipif(_exe() is None, reason="no rocke-opt binary")


SPECS = [
    dict(),
    dict(dtype="f32", batch=None, seq_q=None, seq_k=None, layout="bhsd"),
    dict(dtype="bf16", heads_q=16, heads_kv=4, head_dim_qk=192,
         head_dim_v=128, mask="causal", alignment="bottom_right", seq_k=256),
    dict(mask="sliding_window", window_left=128, window_right=0,
         stats_encoding="log2_max_sum", deterministic=True,
         accumulator_type="bf16", grad_dtype="f32", layout="bhsd",
         seq_q=None),
    dict(mask="one_sided_window", window_left=256, scale=0.3,
         head_dim_qk=96, chip="sm_90", strategy="warp", batch=None),
    dict(head_dim_qk=32, head_dim_v=256, seq_q=1, seq_k=1, heads_q=1),
]


@pytest.mark.parametrize("kw", SPECS)
@pytest.mark.parametrize("forward", [False, True])
def test_roundtrip_verifies(kw, forward):
    spec = FmhaBwdSpec(**kw)
    out = rocke.compile(spec, forward=forward)
    op = "fmha.attention_fwd" if forward else "fmha.attention_bwd"
    assert op in out
    # Printed output parses again.
    out2 = rocke.compile(out)
    assert op in out2


def test_scale_exact_roundtrip():
    spec = FmhaBwdSpec(head_dim_qk=96, scale=1 / 96 ** 0.5)
    out = rocke.compile(spec)
    assert "scale = " in out


@pytest.mark.parametrize("kw", [
    dict(dtype=dt, layout=lay, stats_encoding=enc)
    for dt, lay, enc in itertools.product(["f16", "bf16", "f32"],
                                          ["bshd", "bhsd"],
                                          ["lse", "log2_max_sum"])])
def test_matrix_verifies(kw):
    rocke.compile(FmhaBwdSpec(**kw))


def test_compile_error_carries_diagnostic():
    bad = FmhaBwdSpec(head_dim_qk=64).to_mlir().replace("x8x64xf16", "x8x80xf16")
    with pytest.raises(CompileError) as ei:
        rocke.compile(bad)
    assert "unsupported qk head dim 80" in ei.value.diagnostic
    assert "unsupported qk head dim 80" in str(ei.value)


def test_unknown_pipeline():
    with pytest.raises(CompileError, match="not registered"):
        rocke.compile(FmhaBwdSpec(), pipeline="fmha-does-not-exist")


def test_textual_pipeline_and_named_pass():
    out = rocke.compile(FmhaBwdSpec(), pipeline="builtin.module(canonicalize)")
    assert "fmha.attention_bwd" in out
    out = rocke.compile(FmhaBwdSpec(), pipeline="canonicalize")
    assert "fmha.attention_bwd" in out


def test_available_pipelines_parses_help():
    p = rocke.available_pipelines()
    assert isinstance(p, dict)
    assert "sparsifier" in p or len(p) >= 0
    passes = rocke.available_pipelines(include_passes=True)
    assert "canonicalize" in passes


def test_rocke_opt_arg_and_env(monkeypatch, tmp_path):
    exe = _exe()
    assert rocke.find_rocke_opt(exe) == exe
    monkeypatch.setenv("ROCKE_OPT", str(tmp_path / "nope"))
    with pytest.raises(rocke.RockeOptNotFound):
        rocke.find_rocke_opt()
    monkeypatch.setenv("ROCKE_OPT", exe)
    assert rocke.compile(FmhaBwdSpec())


def test_fmha_pipelines_if_registered():
    """Runs every registered fmha-* pipeline on a default spec per target:
    the end-to-end ones compile it; the finishes, which compile kernels
    only, reject the fmha op and name the pass that builds its kernels."""
    names = [n for n in rocke.available_pipelines() if n.startswith("fmha-")]
    if not names:
        pytest.skip("no fmha-* pipelines registered in rocke-opt yet")
    for n in names:
        chip = "sm_90" if ("ptx" in n or "nvvm" in n or "cuda" in n) \
            else "gfx942"
        spec = FmhaBwdSpec(chip=chip, mask="causal")
        if n.endswith(("-to-hsaco", "-to-ptx")):
            with pytest.raises(CompileError,
                               match="lower it with fmha-bwd-to-kernels"):
                rocke.compile(spec, pipeline=n)
            continue
        try:
            rocke.compile(spec, pipeline=n)
        except CompileError as e:
            pytest.fail("pipeline %s failed: %s" % (n, e.diagnostic[:2000]))


def test_target_alias_names_the_end_to_end_pipeline():
    """With a spec, "hsaco" / "ptx" compile the fmha op (the finishes they
    would name as substrings reject it)."""
    if "fmha-bwd-rocdl" not in rocke.available_pipelines():
        pytest.skip("fmha-bwd-rocdl is not registered")
    out = rocke.compile(FmhaBwdSpec(chip="gfx942", mask="causal"),
                        pipeline="hsaco")
    assert "gpu.binary" in out and "fmha.attention_bwd" not in out
    out = rocke.compile(FmhaBwdSpec(chip="sm_90", mask="causal"),
                        pipeline="ptx")
    assert "gpu.binary" in out and "fmha.attention_bwd" not in out


@pytest.mark.parametrize("chip,magic,needle", [
    ("gfx942", b"\x7fELF", "fmha_bwd_tiled_main"),
    ("sm_90", b"//", "fmha_bwd_tiled_main"),
])
def test_compile_binary_end_to_end(chip, magic, needle):
    """An fmha spec becomes a code object plus its kernel description."""
    code, desc = rocke.compile_binary(FmhaBwdSpec(chip=chip, mask="causal"))
    assert code.startswith(magic)
    names = [k["name"] for k in desc["kernels"]]
    assert needle in names
    orders = [k["launch"]["order"] for k in desc["kernels"]]
    assert orders == sorted(orders)
    main = desc["kernels"][names.index(needle)]
    assert [a["name"] for a in main["args"]][:3] == ["q", "k", "v"]


@pytest.mark.parametrize("chip", ["sm_90a", "gfx942"])
@pytest.mark.parametrize("forward", [True, False])
@pytest.mark.parametrize("kw", [
    dict(mask="causal", alignment="bottom_right", deterministic=True),
    dict(mask="sliding_window", alignment="bottom_right", window_left=64,
         window_right=0, heads_q=8, heads_kv=2, max_seqlen_k=1024),
])
def test_varlen_compiles_to_kernels(chip, forward, kw, tmp_path):
    """A packed batch's spec through kernel_cache (rocke.torch's path): the
    kernels that read per-sequence data take the offsets last, grids over
    the maxima."""
    from rocke import kernel_cache
    spec = FmhaBwdSpec(**dict(dict(dtype="bf16", varlen=True, batch=None,
                                   seq_q=None, seq_k=None, max_seqlen_q=512,
                                   max_seqlen_k=512, chip=chip), **kw))
    entry = kernel_cache.cached_kernels(spec, forward,
                                        directory=str(tmp_path))
    main = [k for k in entry.kernels if k["name"].endswith("tiled_main")]
    assert len(main) == 1
    roles = [a["role"] for a in main[0]["args"]]
    assert roles[-2:] == ["cu_seqlens_q", "cu_seqlens_k"]
    assert main[0]["grid"][2] == "B"
    assert all("Sk" not in a["role"] for k in entry.kernels
               for a in k["args"] if a["role"].startswith("dq_partial"))
