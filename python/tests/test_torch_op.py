"""rocke.torch without a GPU: the input checks (on stand-in tensors), the
kernel configuration, the chip of a device, the disk cache and the launch
plan of real compiled kernels; the op itself where PyTorch is importable."""
import json
import math
import os
import stat

import pytest

import rocke
from rocke import kernel_abi, kernel_cache
from rocke import torch as rt


class FakeTensor:
    """What check_inputs reads of a tensor: shape, dtype, device."""

    class Device:
        def __init__(self, kind, index=0):
            self.type, self.index = kind, index

        def __eq__(self, other):
            return (self.type, self.index) == (other.type, other.index)

        def __repr__(self):
            return "%s:%d" % (self.type, self.index)

    class DType:
        def __init__(self, name):
            self.name = name

        def __str__(self):
            return "torch." + self.name

    def __init__(self, *shape, dtype="bfloat16", device="cuda", index=0,
                 requires_grad=False):
        self.shape = shape
        self.requires_grad = requires_grad
        self.dtype = FakeTensor.DType(dtype)
        self.device = FakeTensor.Device(device, index)


def qkv(b=2, sq=100, sk=100, hq=16, hkv=4, d=64, **kw):
    return (FakeTensor(b, sq, hq, d, **kw), FakeTensor(b, sk, hkv, d, **kw),
            FakeTensor(b, sk, hkv, d, **kw))


def packed(tq=300, tk=400, b=3, hq=16, hkv=4, d=64, **kw):
    """q, k, v of a packed batch of `b` sequences and its offsets."""
    return (FakeTensor(tq, hq, d, **kw), FakeTensor(tk, hkv, d, **kw),
            FakeTensor(tk, hkv, d, **kw), FakeTensor(b + 1, dtype="int32"),
            FakeTensor(b + 1, dtype="int32"))


def test_import_without_torch_is_clean():
    if rt.available():
        pytest.skip("PyTorch is importable here")
    with pytest.raises(ImportError, match="rocke.torch needs PyTorch"):
        rt.attention(*qkv())


def test_problem_of_a_gqa_call():
    p = rt.check_inputs(*qkv(), causal=True)
    assert p == rt.Problem(2, 100, 100, 16, 4, 64, "bf16", -1, 0,
                           1 / math.sqrt(64), False)
    p = rt.check_inputs(*qkv(dtype="float16", d=128), window=(32, 8),
                        scale=0.5, deterministic=True)
    assert (p.dtype, p.window_left, p.window_right, p.scale,
            p.deterministic) == ("f16", 32, 8, 0.5, True)


@pytest.mark.parametrize("tensors, kw, error, message", [
    (qkv(dtype="float32"), {}, TypeError,
     "q has dtype torch.float32; the kernels take torch.float16 or "
     "torch.bfloat16"),
    ((FakeTensor(2, 9, 16, 64), FakeTensor(2, 9, 4, 64, dtype="float16"),
      FakeTensor(2, 9, 4, 64)), {}, TypeError, "must match"),
    (qkv(device="cpu"), {}, ValueError, "q is on cpu:0; the kernels run on "
     "CUDA"),
    ((FakeTensor(2, 9, 16, 64), FakeTensor(2, 9, 4, 64, index=1),
      FakeTensor(2, 9, 4, 64)), {}, ValueError, "different devices"),
    ((FakeTensor(9, 16, 64),) + qkv()[1:], {}, ValueError,
     r"q must be \[batch, seq, heads, head_dim\], got shape \(9, 16, 64\)"),
    (qkv(hq=6, hkv=4), {}, ValueError, "6 heads are not a multiple of k/v's 4"),
    ((FakeTensor(2, 9, 8, 64), FakeTensor(3, 9, 8, 64),
      FakeTensor(3, 9, 8, 64)), {}, ValueError, "batch sizes differ"),
    ((FakeTensor(2, 9, 8, 64), FakeTensor(2, 9, 8, 64),
      FakeTensor(2, 10, 8, 64)), {}, ValueError, "sequence length or heads"),
    ((FakeTensor(2, 9, 8, 64), FakeTensor(2, 9, 8, 64),
      FakeTensor(2, 9, 8, 128)), {}, ValueError, "head dims differ"),
    (qkv(d=80), {}, ValueError, "head dim 80 is not supported"),
    (qkv(), dict(window=(4,)), TypeError, "pair of ints"),
    (qkv(), dict(window=(-2, 0)), ValueError, "window left must be -1"),
    (qkv(), dict(causal=1), TypeError, "causal must be a bool"),
    (qkv(), dict(scale=-1.0), ValueError, "scale must be a positive finite"),
    (qkv(), dict(scale=float("nan")), ValueError, "positive finite"),
    (qkv(), dict(deterministic=None), TypeError, "deterministic must be"),
    (qkv(), dict(max_seqlen_k=3), ValueError, "missing cu_seqlens_q, "
     "cu_seqlens_k, max_seqlen_q"),
    (packed()[:3], {}, ValueError, r"q must be \[batch, seq, heads, "
     r"head_dim\], got shape \(300, 16, 64\); packed \[tokens, heads, "
     r"head_dim\] tensors need cu_seqlens_q/k and max_seqlen_q/k"),
])
def test_bad_inputs_are_named(tensors, kw, error, message):
    with pytest.raises(error, match=message):
        rt.check_inputs(*tensors, **kw)


def varlen_call(tensors=None, **kw):
    q, k, v, cu_q, cu_k = tensors or packed()
    args = dict(cu_seqlens_q=cu_q, cu_seqlens_k=cu_k, max_seqlen_q=200,
                max_seqlen_k=130)
    args.update(kw)
    return rt.check_inputs(q, k, v, **args)


def test_problem_of_a_packed_batch():
    """B from the offsets, the token counts as Sq / Sk, the maxima rounded
    up to their buckets."""
    p = varlen_call(causal=True, deterministic=True)
    assert p == rt.Problem(3, 300, 400, 16, 4, 64, "bf16", -1, 0,
                           1 / math.sqrt(64), True, True, 256, 256)
    assert [rt.max_seqlen_bucket(n) for n in (1, 128, 129, 256, 4097)] == \
        [128, 128, 256, 256, 8192]
    spec = rt.spec_for(p, "sm_90a")
    assert (spec.varlen, spec.batch, spec.seq_q, spec.seq_k,
            spec.max_seqlen_q, spec.max_seqlen_k, spec.mask,
            spec.alignment) == (True, None, None, None, 256, 256, "causal",
                                "bottom_right")
    # Per-sequence lengths are unknown: masks align bottom-right always.
    spec = rt.spec_for(varlen_call(packed(tk=300), window=(64, 0)), "gfx942")
    assert (spec.mask, spec.alignment) == ("sliding_window", "bottom_right")
    assert rt.spec_for(varlen_call(), "sm_90a").mask == "none"
    assert rt.size_env(p) == dict(B=3, Sq=300, Sk=400, Hq=16, Hkv=4, Dqk=64,
                                  Dv=64)
    assert rt.problem((300, 16, 64), (400, 4, 64), cu_seqlens_q=[0] * 4,
                      cu_seqlens_k=[0] * 4, max_seqlen_q=200,
                      max_seqlen_k=130) == varlen_call()


def _bad_offsets(**change):
    q, k, v, cu_q, cu_k = packed()
    tensors = dict(q=q, k=k, v=v, cu_q=cu_q, cu_k=cu_k)
    tensors.update(change)
    return tuple(tensors[n] for n in ("q", "k", "v", "cu_q", "cu_k"))


@pytest.mark.parametrize("tensors, kw, error, message", [
    (None, dict(cu_seqlens_k=None), ValueError, r"a packed \(variable-length"
     r"\) batch needs all of .*; missing cu_seqlens_k"),
    (None, dict(max_seqlen_q=None), ValueError, "missing max_seqlen_q"),
    (None, dict(max_seqlen_q=0), ValueError, "max_seqlen_q must be positive, "
     "got 0"),
    (None, dict(max_seqlen_k=128.0), TypeError, "max_seqlen_k must be a "
     "Python int"),
    (None, dict(max_seqlen_k=True), TypeError, "max_seqlen_k must be a "
     "Python int"),
    (_bad_offsets(cu_q=FakeTensor(4)), {}, TypeError, "cu_seqlens_q has "
     "dtype torch.bfloat16; the offsets must be torch.int32"),
    (_bad_offsets(cu_k=FakeTensor(4, dtype="int64")), {}, TypeError,
     "cu_seqlens_k has dtype torch.int64"),
    (_bad_offsets(cu_q=FakeTensor(2, 2, dtype="int32")), {}, ValueError,
     r"cu_seqlens_q must be 1-D \[batch \+ 1\], got shape \(2, 2\)"),
    (_bad_offsets(cu_k=FakeTensor(4, dtype="int32", device="cpu")), {},
     ValueError, "cu_seqlens_k is on cpu:0, q on cuda:0"),
    (_bad_offsets(cu_k=FakeTensor(4, dtype="int32", index=1)), {},
     ValueError, "cu_seqlens_k is on cuda:1"),
    (_bad_offsets(cu_k=FakeTensor(5, dtype="int32")), {}, ValueError,
     r"cu_seqlens_q has 4 entries, cu_seqlens_k 5; both are \[batch \+ 1\]"),
    (_bad_offsets(q=FakeTensor(1, 300, 16, 64)), {}, ValueError,
     r"with cu_seqlens, q must be packed \[total_tokens, heads, head_dim\], "
     r"got shape \(1, 300, 16, 64\)"),
    (_bad_offsets(v=FakeTensor(400, 4, 128)), {}, ValueError,
     "head dims differ"),
    (_bad_offsets(k=FakeTensor(400, 3, 64)), {}, ValueError,
     "k .* and v .* differ in sequence length or heads"),
    (_bad_offsets(v=FakeTensor(400, 4, 64, dtype="float16")), {}, TypeError,
     "must match"),
    (None, dict(deterministic="yes"), TypeError, "deterministic must be"),
    (None, dict(window=(-3, 0)), ValueError, "window left must be -1"),
])
def test_bad_varlen_inputs_are_named(tensors, kw, error, message):
    with pytest.raises(error, match=message):
        varlen_call(tensors, **kw)


def test_masks_follow_flash_attention():
    """causal / window bottom-right aligned (top-left, the same mask, when
    Sq = Sk), -1 unbounded, causal forcing right = 0."""
    assert rt.window_extents(False, None) == (-1, -1)
    assert rt.window_extents(True, None) == (-1, 0)
    assert rt.window_extents(True, (128, 64)) == (128, 0)
    assert rt.mask_fields(-1, -1, 10, 20) == dict(mask="none")
    assert rt.mask_fields(-1, 0, 10, 10) == dict(mask="causal",
                                                 alignment="top_left")
    assert rt.mask_fields(-1, 0, 10, 20) == dict(mask="causal",
                                                 alignment="bottom_right")
    assert rt.mask_fields(128, 0, 7, 7) == dict(
        mask="sliding_window", alignment="top_left", window_left=128,
        window_right=0)
    assert rt.mask_fields(-1, 5, 7, 9)["window_left"] == \
        rocke.spec.MAX_WINDOW_EXTENT
    assert rt.mask_fields(-1, 0, None, None) == dict(
        mask="causal", alignment="bottom_right")


def test_spec_of_a_problem():
    p = rt.check_inputs(*qkv(sq=50, sk=80), causal=True)
    spec = rt.spec_for(p, "sm_90a")
    assert (spec.batch, spec.seq_q, spec.seq_k, spec.heads_q, spec.heads_kv,
            spec.head_dim_qk, spec.scale, spec.layout, spec.strategy) == \
        (None, None, None, 16, 4, 64, None, "bshd", "tiled")
    assert "#fmha.mask<causal, alignment = bottom_right>" in spec.to_mlir()
    spec = rt.spec_for(rt.check_inputs(*qkv(), scale=0.25), "gfx942")
    assert spec.scale == 0.25 and spec.mask == "none"


def test_chip_of_a_device():
    assert rt.chip_of((9, 0)) == "sm_90a"
    with pytest.raises(RuntimeError, match=r"compute capability 8\.0 is not "
                       r"supported; the kernels are built for 9\.0 "
                       r"\(sm_90a\)"):
        rt.chip_of((8, 0))
    assert rt.chip_of(gcn_arch="gfx942:sramecc+:xnack-") == "gfx942"
    with pytest.raises(RuntimeError, match="AMD chip gfx1100 is not"):
        rt.chip_of(gcn_arch="gfx1100")


# --------------------------------------------------------------------------
# Disk cache
# --------------------------------------------------------------------------

def test_cache_key_covers_every_input():
    base = ("module {}", "fmha-bwd-nvvm{chip=sm_90a}", "sm_90a", "c0")
    keys = {kernel_cache.cache_key(*base)}
    for i, other in enumerate(("module { }", "fmha-bwd-nvvm{chip=sm_90}",
                               "sm_90", "c1")):
        changed = list(base)
        changed[i] = other
        keys.add(kernel_cache.cache_key(*changed))
    assert len(keys) == 5
    assert kernel_cache.cache_key(*base) == kernel_cache.cache_key(*base)


def test_cache_dir(monkeypatch, tmp_path):
    monkeypatch.setenv("ROCKE_CACHE_DIR", str(tmp_path))
    assert kernel_cache.cache_dir() == tmp_path
    assert kernel_cache.cache_dir("/x") == kernel_cache.Path("/x")
    monkeypatch.delenv("ROCKE_CACHE_DIR")
    assert str(kernel_cache.cache_dir()).endswith(os.path.join(".cache",
                                                               "rocke"))


def test_compiler_identity_follows_the_build(tmp_path):
    exe = tmp_path / "rocke-opt"
    exe.write_text("#!/bin/sh\necho 'rocke-opt 1'\n")
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    first = kernel_cache.compiler_identity(str(exe))
    assert first == kernel_cache.compiler_identity(str(exe))
    exe.write_text("#!/bin/sh\necho 'rocke-opt 2'\n")
    os.utime(exe, ns=(exe.stat().st_atime_ns, exe.stat().st_mtime_ns + 10**9))
    assert kernel_cache.compiler_identity(str(exe)) != first


def _rocke_opt():
    try:
        return rocke.find_rocke_opt()
    except rocke.RockeOptNotFound:
        return None


needs_rocke_opt = pytest.mark.skipif(_rocke_opt() is None,
                                     reason="no rocke-opt binary")


@pytest.fixture(scope="module")
def nvidia_kernels(tmp_path_factory):
    """The forward and backward kernels of a GQA causal problem for sm_90a,
    compiled into a fresh cache."""
    directory = tmp_path_factory.mktemp("cache")
    p = rt.check_inputs(*qkv(d=64), causal=True)
    spec = rt.spec_for(p, "sm_90a")
    return p, spec, directory, {
        fwd: kernel_cache.cached_kernels(spec, fwd, directory=str(directory))
        for fwd in (True, False)}


@needs_rocke_opt
def test_first_use_compiles_then_the_cache_answers(nvidia_kernels,
                                                   monkeypatch):
    p, spec, directory, entries = nvidia_kernels
    entry = entries[False]
    assert entry.directory.parent == directory
    assert entry.code_path.name == "kernel.ptx"
    assert ".entry fmha_bwd_tiled_main" in entry.code_path.read_text()
    assert (entry.directory / "spec.mlir").read_text() == spec.to_mlir()
    assert "fmha-bwd-nvvm{chip=sm_90a" in \
        (entry.directory / "pipeline.txt").read_text()
    assert entries[True].key != entry.key
    assert not [f for f in os.listdir(directory) if f.startswith(".tmp")]

    def no_compile(*a, **kw):
        raise AssertionError("compiled again")
    monkeypatch.setattr(kernel_cache, "compile_binary", no_compile)
    again = kernel_cache.cached_kernels(spec, False, directory=str(directory))
    assert again.key == entry.key and again.kernels == entry.kernels


@needs_rocke_opt
def test_launch_plan_of_real_kernels(nvidia_kernels):
    """bind() on the compiled recipe: every kernel gets as many argument
    fields as its PTX has parameters, operands by role, one scratch buffer
    per name, grids from the problem sizes."""
    p, spec, _, entries = nvidia_kernels
    env = rt.size_env(p)
    shapes = dict(q=(2, 100, 16, 64), k=(2, 100, 4, 64), v=(2, 100, 4, 64),
                  lse=(2, 16, 100))
    shapes.update(o=shapes["q"], do=shapes["q"], dq=shapes["q"],
                  dk=shapes["k"], dv=shapes["v"])
    buffers = {}
    for i, (role, shape) in enumerate(sorted(shapes.items())):
        buffers[role] = kernel_abi.Buffer(
            0x10000 * (i + 1), "f32" if role == "lse" else "bf16", shape,
            _strides(shape))
    allocated = []

    def allocate(name, elt, shape, init):
        allocated.append((name, elt, shape))
        return kernel_abi.Buffer(0x900000 * len(allocated), elt, tuple(shape),
                                 _strides(shape))

    fwd = kernel_abi.bind(entries[True].kernels, env, buffers, allocate)
    assert [l.kernel for l in fwd] == ["fmha_fwd_tiled_main"]
    # sm_90a at D = 64: one warpgroup of 64 query rows a workgroup; causal:
    # launched heaviest first, one dimension of 2 blocks x 16 heads x 2.
    assert fwd[0].grid == (64, 1, 1) and fwd[0].shared > 0
    bwd = kernel_abi.bind(entries[False].kernels, env, buffers, allocate)
    sidecar = json.loads((entries[False].directory /
                          "kernel.ptx.json").read_text())
    params = {k["name"]: k["metadata"]["param_count"]
              for k in sidecar["kernels"]}
    for l in bwd:
        assert len(l.args) == params[l.kernel]
    main = next(l for l in bwd if l.kernel == "fmha_bwd_tiled_main")
    assert main.args[0] == ("!llvm.ptr", buffers["q"].ptr)
    assert [v for _, v in main.args[3:11]] == [2, 100, 16, 64,
                                               100 * 16 * 64, 16 * 64, 64, 1]
    assert sorted(n for n, _, _ in allocated) == ["dq_accum", "row_stats"]


@needs_rocke_opt
@pytest.mark.parametrize("deterministic", [False, True])
def test_packed_batch_prebuilds_and_binds(deterministic, tmp_path):
    """rocke.torch.prebuild compiles a packed batch's kernels for sm_90a;
    its recipe binds: grids (ceil(max_seqlen_q / BQ), Hq, B) over the
    bucketed maxima, the i32 offsets passed by role after the other
    arguments, scratch sized by the token counts, as many argument fields
    as the PTX has parameters."""
    p = rt.problem((300, 16, 64), (500, 4, 64), cu_seqlens_q=[0] * 4,
                   cu_seqlens_k=[0] * 4, max_seqlen_q=200, max_seqlen_k=300,
                   causal=True, deterministic=deterministic)
    assert (p.max_seqlen_q, p.max_seqlen_k) == (256, 512)
    fwd, bwd = rt.prebuild([p], "sm_90a", directory=str(tmp_path))
    shapes = dict(q=(300, 16, 64), k=(500, 4, 64), v=(500, 4, 64),
                  lse=(16, 300), cu_seqlens_q=(4,), cu_seqlens_k=(4,))
    shapes.update(o=shapes["q"], do=shapes["q"], dq=shapes["q"],
                  dk=shapes["k"], dv=shapes["v"])
    elts = dict(lse="f32", cu_seqlens_q="i32", cu_seqlens_k="i32")
    buffers = {role: kernel_abi.Buffer(0x10000 * (i + 1),
                                       elts.get(role, "bf16"), shape,
                                       _strides(shape))
               for i, (role, shape) in enumerate(sorted(shapes.items()))}
    allocated = {}

    def allocate(name, elt, shape, init):
        allocated[name] = (elt, tuple(shape), init)
        return kernel_abi.Buffer(0x900000 * len(allocated), elt, tuple(shape),
                                 _strides(shape))

    env = rt.size_env(p)
    launches = kernel_abi.LaunchPlan(fwd.kernels, env).bind(buffers, allocate)
    assert [l.kernel for l in launches] == ["fmha_fwd_tiled_main"]
    main = launches[0]
    assert main.grid == (4, 16, 3)  # BQ = 64 (one warpgroup at D = 64)
    # q k v o [T,H,D]: 3 + 2*3 fields each; lse [Hq,T]: 3 + 2*2; cu: 3 + 2
    assert len(main.args) == 4 * 9 + 7 + 2 * 5
    assert main.args[-5:] == (("!llvm.ptr", buffers["cu_seqlens_k"].ptr),
                              ("!llvm.ptr", buffers["cu_seqlens_k"].ptr),
                              ("i64", 0), ("i64", 4), ("i64", 1))
    sidecar = json.loads((bwd.directory / "kernel.ptx.json").read_text())
    params = {k["name"]: k["metadata"]["param_count"]
              for k in sidecar["kernels"]}
    for l in kernel_abi.LaunchPlan(bwd.kernels, env).bind(buffers, allocate):
        assert len(l.args) == params[l.kernel]
        assert l.grid[2] in (1, 3)
        if l.kernel == "fmha_bwd_tiled_main":  # KV blocks of 512 keys
            assert l.grid == (512 // 128, 4, 3)
    assert allocated["row_stats"] == ("f32", (16, 300, 2), "none")
    # The backward's query blocks are 128 rows: each sequence's dQ rows are
    # padded to whole blocks.
    if deterministic:  # one partial per KV block of the longest sequence
        assert allocated["dq_partial"] == ("f32", (4, 300 + 3 * 128, 16, 64),
                                           "zero")
    else:  # head-major, rows padded like the bulk reductions' stage
        assert allocated["dq_accum"] == ("f32", (16, 300 + 3 * 128, 64 + 8),
                                         "zero")
    with pytest.raises(ValueError, match="no buffer for role 'cu_seqlens_q'"):
        kernel_abi.LaunchPlan(fwd.kernels, env).bind(
            {r: b for r, b in buffers.items() if r != "cu_seqlens_q"},
            allocate)


def _strides(shape):
    strides = [1]
    for n in reversed(shape[1:]):
        strides.insert(0, strides[0] * n)
    return tuple(strides)


# --------------------------------------------------------------------------
# With PyTorch (no GPU needed): the op's registration and fake tensors
# --------------------------------------------------------------------------

def test_fake_implementations_trace():
    torch = pytest.importorskip("torch")
    from torch._subclasses.fake_tensor import FakeTensorMode
    with FakeTensorMode():
        q = torch.empty(2, 100, 16, 64, dtype=torch.bfloat16, device="cuda")
        k = torch.empty(2, 80, 4, 64, dtype=torch.bfloat16, device="cuda")
        o, lse = torch.ops.rocke.attention_forward(q, k, k, -1, 0, 0.125,
                                                   False)
        assert o.shape == q.shape and lse.shape == (2, 16, 100)
        assert lse.dtype == torch.float32
        dq, dk, dv = torch.ops.rocke.attention_backward(o, q, k, k, o, lse,
                                                        -1, 0, 0.125, False)
        assert (dq.shape, dk.shape, dv.shape) == (q.shape, k.shape, k.shape)
        with pytest.raises(ValueError, match="head dim 80"):
            x = torch.empty(2, 10, 4, 80, dtype=torch.bfloat16, device="cuda")
            torch.ops.rocke.attention_forward(x, x, x, -1, -1, 0.1, False)


def test_fake_implementations_trace_packed_batches():
    torch = pytest.importorskip("torch")
    from torch._subclasses.fake_tensor import FakeTensorMode
    with FakeTensorMode():
        q = torch.empty(300, 16, 64, dtype=torch.bfloat16, device="cuda")
        k = torch.empty(500, 4, 64, dtype=torch.bfloat16, device="cuda")
        cu = torch.empty(4, dtype=torch.int32, device="cuda")
        o, lse = torch.ops.rocke.attention_forward(q, k, k, -1, 0, 0.125,
                                                   False, cu, cu, 256, 512)
        assert o.shape == q.shape and lse.shape == (16, 300)
        dq, dk, dv = torch.ops.rocke.attention_backward(
            o, q, k, k, o, lse, -1, 0, 0.125, True, cu, cu, 256, 512)
        assert (dq.shape, dk.shape, dv.shape) == (q.shape, k.shape, k.shape)
        with pytest.raises(TypeError, match="must be torch.int32"):
            torch.ops.rocke.attention_forward(q, k, k, -1, 0, 0.125, False,
                                              cu.long(), cu, 256, 512)


def test_attention_refuses_bad_varlen_arguments():
    torch = pytest.importorskip("torch")
    x = torch.zeros(8, 2, 64, dtype=torch.bfloat16)
    with pytest.raises(ValueError, match="missing cu_seqlens_k"):
        rt.attention(x, x, x, cu_seqlens_q=torch.zeros(2, dtype=torch.int32),
                     max_seqlen_q=8, max_seqlen_k=8)
    with pytest.raises(ValueError, match="q is on cpu"):
        cu = torch.tensor([0, 8], dtype=torch.int32)
        rt.attention(x, x, x, cu_seqlens_q=cu, cu_seqlens_k=cu,
                     max_seqlen_q=8, max_seqlen_k=8)


def test_attention_refuses_cpu_tensors():
    torch = pytest.importorskip("torch")
    x = torch.zeros(1, 8, 2, 64, dtype=torch.bfloat16)
    with pytest.raises(ValueError, match="q is on cpu"):
        rt.attention(x, x, x)


def test_problem_from_shapes():
    assert rt.problem((2, 100, 16, 64), (2, 80, 4, 64), "f16", causal=True) \
        == rt.check_inputs(*(FakeTensor(2, 100, 16, 64, dtype="float16"),
                             FakeTensor(2, 80, 4, 64, dtype="float16"),
                             FakeTensor(2, 80, 4, 64, dtype="float16")),
                           causal=True)
    with pytest.raises(ValueError, match="head dim 80"):
        rt.problem((1, 8, 2, 80), (1, 8, 2, 80))


@needs_rocke_opt
def test_without_rocke_opt_prebuilt_kernels_serve(nvidia_kernels,
                                                   monkeypatch):
    """A GPU machine without the compiler takes the entry built for the same
    MLIR; a problem nobody built is an error naming the cache."""
    p, spec, directory, entries = nvidia_kernels
    monkeypatch.setenv("ROCKE_OPT", "/nonexistent/rocke-opt")
    entry = kernel_cache.cached_kernels(spec, False, directory=str(directory))
    assert entry.key == entries[False].key
    assert entry.kernels == entries[False].kernels
    other = rt.spec_for(rt.problem((1, 8, 2, 32), (1, 8, 2, 32)), "sm_90a")
    with pytest.raises(rocke.RockeOptNotFound, match="holds no kernels built "
                       "for this problem"):
        kernel_cache.cached_kernels(other, False, directory=str(directory))


@pytest.mark.parametrize("cu_q, cu_k, message", [
    ([0, 3, 7], [0, 5, 9], None),
    ([0, 3, 3, 7], [0, 0, 5, 9], None),  # empty sequences
    ([1, 3, 7], [0, 5, 9], "cu_seqlens_q[0] is 1; offsets start at 0"),
    ([0, 3, 2], [0, 5, 9], "cu_seqlens_q decreases at sequence 1 (3 -> 2)"),
    ([0, 3, 7], [0, 5, 11], "cu_seqlens_k ends at 11, past the 10 tokens"),
    ([0, 3, 7], [0, 1, 9],
     "sequence 1 has 8 tokens in cu_seqlens_k, more than max_seqlen 6 (the "
     "kernels would cut it)"),
])
def test_offsets_error_names_the_broken_contract(cu_q, cu_k, message):
    assert rt.offsets_error(cu_q, cu_k, 8, 10, 4, 6) == message


# --------------------------------------------------------------------------
# Score modifications: softcap and ALiBi (issue 33)
# --------------------------------------------------------------------------

def slopes(n=16, dtype="float32", **kw):
    return FakeTensor(n, dtype=dtype, **kw)


def test_problem_of_softcap_and_alibi_calls():
    p = rt.check_inputs(*qkv(sk=100), softcap=30)
    assert (p.softcap, p.alibi) == (30.0, False)
    spec = rt.spec_for(p, "sm_90a")
    assert "score_mod softcap(3.000000e+01)" in spec.to_mlir(forward=True)
    p = rt.check_inputs(*qkv(), alibi_slopes=slopes(), causal=True)
    assert (p.softcap, p.alibi) == (0.0, True)
    text = rt.spec_for(p, "sm_90a").to_mlir()
    assert "%slopes: memref<16xf32>" in text
    assert "score_mod alibi(%slopes : memref<16xf32>)" in text
    # A packed self-attention batch: one offsets tensor for both.
    q, k, v, cu, _ = packed(tk=300)
    p = rt.check_inputs(q, k, v, cu_seqlens_q=cu, cu_seqlens_k=cu,
                        max_seqlen_q=200, max_seqlen_k=200,
                        alibi_slopes=slopes())
    assert p.varlen and p.alibi
    # The plain problem's kernels are unchanged: no score_mod clause.
    assert "score_mod" not in rt.spec_for(rt.check_inputs(*qkv()),
                                          "sm_90a").to_mlir()


@pytest.mark.parametrize("kw, error, message", [
    (dict(softcap=-1.0), ValueError, "softcap must be 0 .none. or a positive"),
    (dict(softcap=float("inf")), ValueError, "softcap must be"),
    (dict(softcap=1e-39), ValueError, "float32 reciprocal is finite"),
    (dict(softcap=True), ValueError, "softcap must be"),
    (dict(alibi_slopes=slopes(dtype="bfloat16")), TypeError,
     "alibi_slopes has dtype torch.bfloat16; it must be torch.float32"),
    (dict(alibi_slopes=slopes(device="cpu")), ValueError,
     "alibi_slopes is on cpu:0, q on cuda:0"),
    (dict(alibi_slopes=slopes(4)), ValueError,
     r"alibi_slopes must be \[16\] \(one value per query head\), got shape "
     r"\(4,\)"),
    (dict(alibi_slopes=slopes(), softcap=2.0), ValueError,
     "softcap and alibi_slopes together are not supported"),
])
def test_bad_score_mod_arguments_are_named(kw, error, message):
    with pytest.raises(error, match=message):
        rt.check_inputs(*qkv(), **kw)


def test_alibi_needs_equal_lengths():
    """The kernels' bias is -slope |q - k| from each sequence's start:
    FlashAttention's bottom-right bias only where Sq = Sk, so other calls
    are refused rather than computed differently."""
    with pytest.raises(ValueError, match="alibi_slopes needs as many keys as "
                       "queries"):
        rt.check_inputs(*qkv(sq=100, sk=120), alibi_slopes=slopes())
    q, k, v, cu_q, cu_k = packed(tk=300)
    with pytest.raises(ValueError, match="cu_seqlens_k the same tensor"):
        rt.check_inputs(q, k, v, cu_seqlens_q=cu_q, cu_seqlens_k=cu_k,
                        max_seqlen_q=200, max_seqlen_k=200,
                        alibi_slopes=slopes())


def _check_roles(tmp_path, p, sk, extra, takers):
    """Compile problem `p` (q [2, 300, 16, 64], k / v [2, sk, 4, 64]) for
    sm_90a and gfx942 and bind its recipes to stand-in buffers: the
    attention tensors and `extra` (role -> (shape, element type)). In the
    forward (takers[0]) and the backward (takers[1]) each role -> the name
    suffixes of the kernels that take its buffer (a string for one); a bind
    without it is refused by name."""
    shapes = dict(q=(2, 300, 16, 64), k=(2, sk, 4, 64), v=(2, sk, 4, 64),
                  lse=(2, 16, 300), **{r: s for r, (s, _) in extra.items()})
    shapes.update(o=shapes["q"], do=shapes["q"], dq=shapes["q"],
                  dk=shapes["k"], dv=shapes["v"])
    elts = dict(lse="f32", **{r: e for r, (_, e) in extra.items()})
    buffers = {role: kernel_abi.Buffer(0x10000 * (i + 1),
                                       elts.get(role, "bf16"), shape,
                                       _strides(shape))
               for i, (role, shape) in enumerate(sorted(shapes.items()))}

    def allocate(name, elt, shape, init):
        return kernel_abi.Buffer(0x900000, elt, tuple(shape),
                                 _strides(shape))
    env = rt.size_env(p)
    for chip in ("sm_90a", "gfx942"):
        for entry, roles in zip(rt.prebuild([p], chip,
                                            directory=str(tmp_path)), takers):
            launches = kernel_abi.LaunchPlan(entry.kernels, env).bind(
                buffers, allocate)
            for role, kernels in roles.items():
                users = [l.kernel for l in launches
                         if ("!llvm.ptr", buffers[role].ptr) in l.args]
                kernels = (kernels,) if isinstance(kernels, str) else kernels
                assert len(users) == len(kernels) and all(
                    u.endswith(k) for u, k in zip(users, kernels)), \
                    (chip, role, users)
                with pytest.raises(ValueError,
                                   match="no buffer for role '%s'" % role):
                    kernel_abi.LaunchPlan(entry.kernels, env).bind(
                        {r: b for r, b in buffers.items() if r != role},
                        allocate)


@needs_rocke_opt
def test_alibi_kernels_take_the_slopes_by_role(tmp_path):
    """The ALiBi kernels bind the slopes as role capture0 (the score_mod's
    captured operand)."""
    p = rt.problem((2, 300, 16, 64), (2, 300, 4, 64), causal=True,
                   alibi_slopes=slopes())
    main = dict(capture0="tiled_main")
    _check_roles(tmp_path, p, 300, dict(capture0=((16,), "f32")),
                 (main, main))


# --------------------------------------------------------------------------
# Learnable attention sinks (issue 33)
# --------------------------------------------------------------------------

def test_problem_of_a_sinks_call():
    p = rt.check_inputs(*qkv(sk=120), sinks=slopes(), softcap=30)
    assert (p.sinks, p.softcap) == (True, 30.0)
    text = rt.spec_for(p, "sm_90a").to_mlir(forward=True, backward=True)
    assert "%sinks: memref<16xf32>, %dsinks: memref<16xf32>" in text
    assert text.count("stats(%lse) sinks(%sinks)") == 2
    assert "-> %dq, %dk, %dv grad_sinks(%dsinks)" in text
    q, k, v, cu_q, cu_k = packed()
    p = rt.check_inputs(q, k, v, cu_seqlens_q=cu_q, cu_seqlens_k=cu_k,
                        max_seqlen_q=200, max_seqlen_k=200, sinks=slopes())
    assert p.varlen and p.sinks
    assert "sinks" not in rt.spec_for(rt.check_inputs(*qkv()),
                                      "sm_90a").to_mlir()


@pytest.mark.parametrize("kw, error, message", [
    (dict(sinks=slopes(dtype="float16")), TypeError,
     "sinks has dtype torch.float16; it must be torch.float32"),
    (dict(sinks=slopes(index=1)), ValueError, "sinks is on cuda:1, q on "
     "cuda:0"),
    (dict(sinks=slopes(8)), ValueError,
     r"sinks must be \[16\] \(one value per query head\), got shape \(8,\)"),
])
def test_bad_sinks_are_named(kw, error, message):
    with pytest.raises(error, match=message):
        rt.check_inputs(*qkv(), **kw)


@needs_rocke_opt
def test_sinks_kernels_take_the_sinks_by_role(tmp_path):
    """The forward's main kernel takes role sinks; the backward adds
    fmha_bwd_sink_grad, the one kernel that writes dsinks."""
    p = rt.problem((2, 300, 16, 64), (2, 280, 4, 64), causal=True,
                   sinks=list(range(16)))
    _check_roles(tmp_path, p, 280, dict(sinks=((16,), "f32"),
                                        dsinks=((16,), "f32")),
                 (dict(sinks="tiled_main"), dict(dsinks="sink_grad")))


# --------------------------------------------------------------------------
# Dropout (issue 33)
# --------------------------------------------------------------------------

def test_problem_of_a_dropout_call():
    p = rt.check_inputs(*qkv(), dropout_p=0.1, causal=True)
    assert p.dropout_p == rt.round_to_f32(0.1)
    text = rt.spec_for(p, "sm_90a").to_mlir(forward=True, backward=True)
    assert "%seed_offset: memref<2xi64>" in text
    assert text.count("dropout(%seed_offset, p = 1.000000e-01)") == 2
    assert text.count("dropout(memref<2xi64>)") == 2
    assert "dropout" not in rt.spec_for(rt.check_inputs(*qkv(), dropout_p=0),
                                        "sm_90a").to_mlir()


@pytest.mark.parametrize("p", [-0.1, 1.0, 0.99999999, float("nan"), True,
                               "0.1"])
def test_bad_dropout_p_is_named(p):
    with pytest.raises(ValueError, match="dropout_p must be a number in "
                       r"\[0, 1\)"):
        rt.check_inputs(*qkv(), dropout_p=p)


@needs_rocke_opt
def test_dropout_kernels_take_the_seed_by_role(tmp_path):
    """The forward's and the backward's main kernels take role
    dropout_seed_offset."""
    p = rt.problem((2, 300, 16, 64), (2, 300, 4, 64), causal=True,
                   dropout_p=0.25)
    main = dict(dropout_seed_offset="tiled_main")
    _check_roles(tmp_path, p, 300, dict(dropout_seed_offset=((2,), "i64")),
                 (main, main))


# --------------------------------------------------------------------------
# Additive bias (issue 33)
# --------------------------------------------------------------------------

def test_problem_of_a_bias_call():
    bias = FakeTensor(1, 16, 100, 120, dtype="float32", requires_grad=True)
    p = rt.check_inputs(*qkv(sk=120), bias=bias, causal=True)
    assert (p.bias_dtype, p.bias_batch, p.bias_heads, p.grad_bias) == \
        ("f32", False, True, True)
    text = rt.spec_for(p, "sm_90a").to_mlir(forward=True, backward=True)
    assert "%bias: memref<1x16x?x?xf32>" in text
    assert "%dbias: memref<1x16x?x?xf32>" in text
    assert text.count("stats(%lse) bias(%bias)") == 2
    assert "-> %dq, %dk, %dv grad_bias(%dbias)" in text
    # Without requires_grad no dBias: the backward only reads the bias.
    p = rt.check_inputs(*qkv(), bias=FakeTensor(2, 1, 100, 100))
    assert (p.bias_dtype, p.bias_batch, p.bias_heads, p.grad_bias) == \
        ("bf16", True, False, False)
    assert "grad_bias" not in rt.spec_for(p, "sm_90a").to_mlir()


@pytest.mark.parametrize("bias, kw, error, message", [
    (FakeTensor(2, 16, 100, 100, dtype="float16"), {}, TypeError,
     "bias has dtype torch.float16; it must be torch.float32 or q's dtype"),
    (FakeTensor(2, 16, 100, 100, index=1), {}, ValueError,
     "bias is on cuda:1, q on cuda:0"),
    (FakeTensor(2, 4, 100, 100), {}, ValueError,
     r"bias must be \[B or 1, Hq or 1, Sq, Sk\] = \[2 or 1, 16 or 1, 100, "
     r"100\], got shape \(2, 4, 100, 100\)"),
    (FakeTensor(16, 100, 100), {}, ValueError, "bias must be"),
    (FakeTensor(1, 16, 100, 100, requires_grad=True),
     dict(deterministic=True), ValueError,
     "deterministic with the gradient of a bias broadcast"),
])
def test_bad_biases_are_named(bias, kw, error, message):
    with pytest.raises(error, match=message):
        rt.check_inputs(*qkv(), bias=bias, **kw)


def test_bias_takes_a_dense_batch():
    q, k, v, cu_q, cu_k = packed()
    with pytest.raises(ValueError, match="a bias takes a dense batch"):
        rt.check_inputs(q, k, v, cu_seqlens_q=cu_q, cu_seqlens_k=cu_k,
                        max_seqlen_q=200, max_seqlen_k=200,
                        bias=FakeTensor(1, 16, 300, 400))


@needs_rocke_opt
def test_bias_kernels_take_bias_and_dbias_by_role(tmp_path):
    """The main kernels take role bias; dbias the backward's, after
    fmha_bwd_zero_dbias zero-fills it for the atomic adds of a bias
    broadcast over the batch."""
    p = rt.problem((2, 300, 16, 64), (2, 300, 4, 64), causal=True,
                   bias=((1, 16, 300, 300), "f32"))
    shape = (1, 16, 300, 300)
    _check_roles(tmp_path, p, 300, dict(bias=(shape, "f32"),
                                        dbias=(shape, "f32")),
                 (dict(bias="tiled_main"),
                  dict(bias="tiled_main",
                       dbias=("zero_dbias", "tiled_main"))))