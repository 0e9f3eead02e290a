"""rocke.kernel_abi: the launch recipe rocke.torch and the H200 runners
read from fmha-dump-binary's sidecar, and its binding to buffers (the
launches themselves need a GPU)."""
import pytest

from rocke import kernel_abi as abi

# What fmha-record-kernel-abi states for every supported chip.
GRID_LIMIT = [2147483647, 65535, 65535]


def memref_arg(t, rank):
    fields = ["allocated", "aligned", "offset"] + \
        ["size%d" % i for i in range(rank)] + \
        ["stride%d" % i for i in range(rank)]
    return {"type": t, "abi": [{"field": f} for f in fields]}


def sidecar(param_count=11):
    return {"kernels": [
        {"name": "main", "args": [memref_arg("memref<?x?x16x64xbf16, "
                                             "strided<[?, 64, ?, 1]>>", 4)],
         "launch": {"order": 1, "grid": ["ceildiv(Sk,64)", "Hkv", "B"],
                    "grid_limit": GRID_LIMIT,
                    "block": [128, 1, 1], "args": ["q"]},
         "metadata": {"param_count": param_count}},
        {"name": "zero", "args": [memref_arg("memref<?x16x?xf32>", 3)],
         "launch": {"order": 0, "grid": ["ceildiv(B*Hq*Sq,256)", "1", "1"],
                    "grid_limit": GRID_LIMIT,
                    "block": [256, 1, 1], "args": ["delta:f32:none"]},
         "metadata": {"param_count": 9}},
    ]}


def test_launch_order_and_roles():
    ks = abi.launch_list(sidecar())
    assert [k["name"] for k in ks] == ["zero", "main"]
    assert ks[1]["args"][0]["role"] == "q"
    env = dict(B=2, Sq=1000, Sk=1000, Hq=16, Hkv=4, Dqk=64, Dv=64)
    assert [abi.eval_expr(g, env) for g in ks[1]["grid"]] == [16, 4, 2]
    assert abi.eval_expr(ks[0]["grid"][0], env) == 125


def test_param_count_mismatch_is_an_error():
    with pytest.raises(ValueError, match="expands to 11"):
        abi.launch_list(sidecar(param_count=10))


def test_missing_launch_facts():
    s = sidecar()
    del s["kernels"][0]["launch"]
    with pytest.raises(ValueError, match="fmha-record-kernel-abi"):
        abi.launch_list(s)


def test_parse_memref():
    m = abi.parse_memref("memref<?x?x16x64xbf16, strided<[?, 64, ?, 1]>>")
    assert m == {"elt": "bf16", "shape": [None, None, 16, 64],
                 "strides": [None, 64, None, 1]}
    assert abi.parse_memref("memref<?x16x?xf32>")["strides"] == [None, None, 1]
    assert abi.parse_memref("memref<2x3x4xf32, 1>")["strides"] == [12, 4, 1]
    assert abi.parse_memref("index") is None


@pytest.mark.parametrize("expr", ["__import__('os')", "B.real", "Sq/2",
                                  "X+1"])
def test_eval_expr_rejects(expr):
    with pytest.raises(ValueError):
        abi.eval_expr(expr, dict(B=2, Sq=4))


def test_scratch_shapes():
    env = dict(B=2, Sq=100, Sk=130, Hq=16, Hkv=4, Dqk=64, Dv=64, BKV=64)
    assert abi.scratch_spec("dk_accum:f32:zero", env) == \
        ("dk_accum", "f32", [2, 130, 4, 64], "zero")
    assert abi.scratch_spec("dq_partial:f32:zero", env)[2] == \
        [3, 2, 100, 16, 64]
    assert abi.scratch_spec("delta:f32:[B,Hq,Sq]", env)[2] == [2, 16, 100]
    with pytest.raises(ValueError, match="unknown buffer"):
        abi.scratch_spec("mystery:f32:zero", env)


def test_explicit_shape_with_symbols():
    """A role's own shape (the tiled dQ accumulator, rows padded to whole
    query blocks) gets the launch's symbols resolved like the grid."""
    role = abi.with_shape("dq_accum:f32:zero:[B,ceildiv(Sq,BQ)*BQ,Hq,Dqk]",
                          {"BQ": 32})
    assert role == "dq_accum:f32:zero:[B,ceildiv(Sq,32)*32,Hq,Dqk]"
    env = dict(B=2, Sq=100, Sk=130, Hq=16, Hkv=4, Dqk=64, Dv=64)
    assert abi.scratch_spec(role, env) == \
        ("dq_accum", "f32", [2, 128, 16, 64], "zero")


def test_symbols_and_ops_from_the_sidecar():
    """BKV comes from the kernel's own launch symbols (no side channel), and
    kernels of several fmha ops sort by op, then order."""
    s = {"kernels": [
        {"name": "main", "args": [memref_arg("memref<?x?x?x16x64xf32>", 5)],
         "launch": {"ops": [1], "order": 0, "grid": ["ceildiv(Sk,BKV)", "1",
                                                      "1"],
                    "grid_limit": GRID_LIMIT,
                    "block": [128, 1, 1], "args": ["dq_partial:f32:zero"],
                    "symbols": {"BKV": 32}}},
        {"name": "first", "args": [memref_arg("memref<?x16x?xf32>", 3)],
         "launch": {"ops": [0, 1], "order": 1, "grid": ["B", "1", "1"],
                    "grid_limit": GRID_LIMIT,
                    "block": [64, 1, 1], "args": ["delta:f32:none"]}},
    ]}
    ks = abi.launch_list(s)
    assert [(k["name"], k["ops"]) for k in ks] == [("first", [0, 1]),
                                                   ("main", [1])]
    env = dict(B=2, Sq=100, Sk=130, Hq=16, Hkv=4, Dqk=64, Dv=64)
    assert abi.eval_expr(ks[1]["grid"][0], env) == 5
    role = ks[1]["args"][0]["role"]
    assert abi.scratch_spec(role, env) == \
        ("dq_partial", "f32", [5, 2, 100, 16, 64], "zero")


def test_missing_grid_limit():
    s = sidecar()
    del s["kernels"][0]["launch"]["grid_limit"]
    with pytest.raises(ValueError, match="main: the recipe states no "
                                         "grid_limit"):
        abi.launch_list(s)


def zero_fill_sidecar():
    """The deterministic tiled backward's zero-fill of its dQ partials, as
    fmha-dump-binary writes it (default tiles: BKV = 128, BQ = 64)."""
    return {"kernels": [
        {"name": "fmha_bwd_zero_dq",
         "args": [memref_arg("memref<?x?x?x16x64xf32>", 5)],
         "launch": {"order": 0,
                    "grid": ["ceildiv(ceildiv(Sk,BKV)*B*ceildiv(Sq,BQ)*BQ*"
                             "Hq*Dqk,256)", "1", "1"],
                    "grid_limit": GRID_LIMIT, "block": [256, 1, 1],
                    "args": ["dq_partial:f32:zero:[ceildiv(Sk,BKV),B,"
                             "ceildiv(Sq,BQ)*BQ,Hq,Dqk]"],
                    "symbols": {"BKV": 128, "BQ": 64}}},
    ]}


def test_grid_past_the_limit_is_an_error():
    """Sizes the compiler could not see (dynamic Sq, Sk): the runner's grid
    for Sq = 2^17, Sk = 2^20 needs 2^32 workgroups in x, past the recipe's
    limit, and is refused before any launch."""
    (k,) = abi.launch_list(zero_fill_sidecar())
    small = dict(B=1, Sq=4096, Sk=4096, Hq=16, Hkv=16, Dqk=64, Dv=64)
    assert abi.launch_grid(k, small) == (32 * 4096 * 4, 1, 1)
    huge = dict(small, Sq=2**17, Sk=2**20)
    with pytest.raises(ValueError, match=r"'fmha_bwd_zero_dq' needs "
                       r"4294967296 workgroups in x \(ceildiv\(.*\), past "
                       r"the grid limit of 2147483647"):
        abi.launch_grid(k, huge)


def test_grid_limit_of_the_recipe_applies():
    """y and z have their own limits (65535 on every chip)."""
    s = sidecar()
    (zero, main) = abi.launch_list(s)
    env = dict(B=65536, Sq=1, Sk=64, Hq=1, Hkv=1, Dqk=64, Dv=64)
    with pytest.raises(ValueError, match="'main' needs 65536 workgroups in "
                                         "z \\(B\\)"):
        abi.launch_grid(main, env)


def contiguous(ptr, elt, shape):
    strides = [1]
    for n in reversed(shape[1:]):
        strides.insert(0, strides[0] * n)
    return abi.Buffer(ptr, elt, tuple(shape), tuple(strides))


def bind_env():
    return dict(B=2, Sq=100, Sk=130, Hq=16, Hkv=4, Dqk=64, Dv=64)


def test_bind_operands_scratch_and_grids():
    """Operands by role in the calling convention (allocated, aligned,
    offset, sizes, strides), a scratch buffer allocated once with its shape,
    grids evaluated and checked."""
    allocated = []

    def allocate(name, elt, shape, init):
        allocated.append((name, elt, shape, init))
        return contiguous(0x8000, elt, shape)

    # [B, S, H, D] view of a [B, H, S, D] tensor, as the sidecar's memref
    q = abi.Buffer(0x1000, "bf16", (2, 100, 16, 64), (102400, 64, 6400, 1))
    zero, main = abi.bind(abi.launch_list(sidecar()), bind_env(), {"q": q},
                          allocate)
    assert allocated == [("delta", "f32", [2, 16, 100], "none")]
    assert zero.kernel == "zero" and zero.grid == (13, 1, 1)
    assert zero.args[0] == ("!llvm.ptr", 0x8000)
    assert main.grid == (3, 4, 2) and main.block == (128, 1, 1)
    assert [v for _, v in main.args] == [0x1000, 0x1000, 0, 2, 100, 16, 64,
                                         102400, 64, 6400, 1]
    assert [t for t, _ in main.args] == ["!llvm.ptr"] * 2 + ["i64"] * 9


def test_bind_errors_name_kernel_and_role():
    ks = abi.launch_list(sidecar())

    def allocate(name, elt, shape, init):
        return contiguous(0x8000, elt, shape)
    with pytest.raises(ValueError, match="main:q: no buffer for role 'q'"):
        abi.bind(ks, bind_env(), {}, allocate)
    with pytest.raises(ValueError, match=r"main:q: needs 16-byte aligned "
                       r"rows \(pointer 0x1008"):
        abi.bind(ks, bind_env(),
                 {"q": contiguous(0x1008, "bf16", (2, 100, 16, 64))},
                 allocate)
    with pytest.raises(ValueError, match=r"main:q: stride \(102400, 1024, "
                       r"64, 1\) vs static \[None, 64, None, 1\]"):
        abi.bind(ks, bind_env(),
                 {"q": contiguous(0x1000, "bf16", (2, 100, 16, 64))},
                 allocate)
    with pytest.raises(ValueError, match="main:q: buffer f16"):
        abi.bind(ks, bind_env(),
                 {"q": contiguous(0x1000, "f16", (2, 100, 16, 64))}, allocate)
    with pytest.raises(ValueError, match=r"main:q: size \(2, 100, 8, 64\) vs "
                       r"static"):
        abi.bind(ks, bind_env(),
                 {"q": contiguous(0x1000, "bf16", (2, 100, 8, 64))}, allocate)
