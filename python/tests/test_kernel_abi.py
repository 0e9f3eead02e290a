"""rocke.kernel_abi: the launch recipe rocke.torch and the H200 runners
read from fmha-dump-binary's sidecar, and its binding to buffers (the
launches themselves need a GPU)."""
import struct

import pytest

import rocke
from rocke import kernel_abi as abi
from rocke import kernel_cache
from rocke import torch as rt

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


# --------------------------------------------------------------------------
# Launch plans and packing
# --------------------------------------------------------------------------

def reference_bind(kernels, env, buffers, allocate):
    """bind() as it was before launch plans, everything from the recipe on
    each call: the plans' oracle."""
    scratch, launches = {}, []
    for k in kernels:
        args = []
        for a in k["args"]:
            role, mt = a["role"], abi.parse_memref(a["type"])
            what = "%s:%s" % (k["name"], role)
            if mt is None:
                values = [int(env[role])]
            else:
                if abi.is_scratch(role):
                    name, elt, shape, init = abi.scratch_spec(role, env)
                    if name not in scratch:
                        scratch[name] = allocate(name, elt, shape, init)
                    buf = scratch[name]
                else:
                    buf = buffers[role]
                    if role in abi.ALIGNED_ROLES:
                        abi.check_aligned(buf, what)
                values = abi.memref_fields(buf, mt, what)
            types = a.get("abi") or [None] * len(values)
            if None in types:
                types = abi.default_abi_types(len(values), mt is not None)
            args += list(zip(types, values))
        launches.append(abi.Launch(k["name"], abi.launch_grid(k, env),
                                   tuple(k["block"]), k["shared"],
                                   tuple(args)))
    return launches


class Allocator:
    """Contiguous scratch buffers at fresh addresses, the calls recorded."""

    def __init__(self):
        self.calls = []

    def __call__(self, name, elt, shape, init):
        self.calls.append((name, elt, shape, init))
        return contiguous(0x100000 * len(self.calls), elt, shape)


def check_plan_matches_reference(kernels, env, buffers):
    """A plan's bind and pack against reference_bind: same launches, same
    scratch requests, and pack = bind's arguments packed."""
    plan = abi.LaunchPlan(kernels, env)
    want_alloc, got_alloc, packed_alloc = Allocator(), Allocator(), \
        Allocator()
    want = reference_bind(kernels, env, buffers, want_alloc)
    got = plan.bind(buffers, got_alloc)
    assert got == want
    assert got_alloc.calls == want_alloc.calls
    assert [tuple(s) for s in plan.scratch] == \
        [(n, e, tuple(s), i) for n, e, s, i in want_alloc.calls]
    packed = plan.pack(buffers, packed_alloc)
    assert packed == [abi.packed(l) for l in want]
    assert packed_alloc.calls == want_alloc.calls
    return plan


def test_plan_matches_bind_on_the_fixtures():
    q = abi.Buffer(0x1000, "bf16", (2, 100, 16, 64), (102400, 64, 6400, 1))
    plan = check_plan_matches_reference(abi.launch_list(sidecar()),
                                        bind_env(), {"q": q})
    assert [(k.name, k.grid, k.block, k.shared) for k in plan.kernels] == \
        [("zero", (13, 1, 1), (256, 1, 1), 0),
         ("main", (3, 4, 2), (128, 1, 1), 0)]
    assert plan.kernels[1].types == ("!llvm.ptr",) * 2 + ("i64",) * 9
    (k,) = abi.launch_list(zero_fill_sidecar())
    env = dict(B=1, Sq=100, Sk=300, Hq=16, Hkv=16, Dqk=64, Dv=64)
    plan = check_plan_matches_reference([k], env, {})
    assert plan.scratch == [abi.ScratchBuffer("dq_partial", "f32",
                                              (3, 1, 128, 16, 64), "zero")]


def scalar_sidecar():
    """A kernel with explicit field types: a memref, an i32 size, the same
    memref again, an i64 size."""
    m = memref_arg("memref<?x16x64xf16>", 3)
    m["abi"] = [dict(f, type=t) for f, t in
                zip(m["abi"], ["!llvm.ptr<1>", "!llvm.ptr<1>"] + ["i64"] * 7)]
    return {"kernels": [
        {"name": "k", "args": [m, {"type": "i32", "abi": [{"type": "i32"}]},
                               m, {"type": "i64", "abi": [{"type": "i64"}]}],
         "launch": {"order": 0, "grid": ["Sq", "1", "1"],
                    "grid_limit": GRID_LIMIT, "block": [64, 1, 1],
                    "args": ["o", "Sk", "o", "Sq"]}}]}


def test_plan_scalars_and_mixed_field_types():
    env = bind_env()
    o = contiguous(0x2000, "f16", (100, 16, 64))
    plan = check_plan_matches_reference(abi.launch_list(scalar_sidecar()),
                                        env, {"o": o})
    (launch,) = plan.pack({"o": o}, Allocator())
    # o at 0 (9 fields, 72 bytes), Sk (i32) at 72, o again at 80, Sq at 152
    assert launch.params_end == 160 and len(launch.params) == 160
    fields = (0x2000, 0x2000, 0, 100, 16, 64, 1024, 64, 1)
    assert struct.unpack("<9Qi4x9Qq", launch.params) == \
        fields + (130,) + fields + (100,)


def test_packing_offsets_of_mixed_fields():
    """Each field at the next multiple of its size, the buffer padded to
    the widest (AMDGPU's kernarg segment) and CUDA's size without that
    tail; one struct packs all fields."""
    types = ("i32", "!llvm.ptr", "i32", "i32", "i64", "f32", "!llvm.ptr<1>",
             "i32")
    assert abi.kernarg_layout(types) == ([0, 8, 16, 20, 24, 32, 40, 48], 56)
    assert abi.kernarg_end(types) == 52
    assert abi.kernarg_end(()) == 0
    values = (-1, 0x1122334455667788, 7, -8, -2**40, 1.5, 2**63 + 16, 9)
    s = abi.kernarg_struct(types)
    assert s.size == 56 and abi.kernarg_struct(types) is s
    buf = s.pack(*values)
    assert buf == abi.pack_kernargs(list(zip(types, values)))
    offsets, _ = abi.kernarg_layout(types)
    for t, v, off in zip(types, values, offsets):
        assert struct.unpack_from("<" + abi.field_layout(t)[1], buf,
                                  off)[0] == v
    assert buf[4:8] == bytes(4) and buf[36:40] == bytes(4) and \
        buf[52:] == bytes(4)
    with pytest.raises(ValueError, match="'vector<2xf32>' is not supported"):
        abi.kernarg_struct(("i32", "vector<2xf32>"))


def test_param_buffer_extra():
    """The driver's `extra` array: markers, a copy of the buffer, its
    size."""
    import ctypes
    block = abi.param_buffer_extra(b"\x01\x02\x03\x04\x05", 4, (1, 2, 3))
    words = (ctypes.c_uint64 * 5).from_address(ctypes.addressof(block))
    assert (words[0], words[2], words[4]) == (1, 2, 3)
    assert ctypes.c_size_t.from_address(words[3]).value == 4
    assert ctypes.string_at(words[1], 5) == b"\x01\x02\x03\x04\x05"


def test_plans_are_made_once_per_sizes():
    plans = abi.LaunchPlans(abi.launch_list(sidecar()), capacity=2)
    env = bind_env()
    plan = plans.get(env)
    assert plans.get(dict(env)) is plan
    other = plans.get(dict(env, Sq=200))
    assert other is not plan and other.kernels[0].grid == (25, 1, 1)
    plans.get(dict(env, Sq=300))  # past the capacity: the oldest goes
    assert plans.get(dict(env, Sq=200)) is other
    assert plans.get(env) is not plan


def test_plan_errors_on_every_call():
    """A cached plan still checks each call's buffers: missing, static size
    mismatch, misaligned q; a good call between them binds."""
    plans = abi.LaunchPlans(abi.launch_list(sidecar()))
    plan = plans.get(bind_env())
    good = abi.Buffer(0x1000, "bf16", (2, 100, 16, 64), (102400, 64, 6400, 1))
    for _ in range(2):
        with pytest.raises(ValueError, match="main:q: no buffer for role "
                                             "'q' \\(given: k\\)"):
            plans.get(bind_env()).pack({"k": good}, Allocator())
        with pytest.raises(ValueError, match=r"main:q: size \(2, 100, 8, "
                                             r"64\) vs static"):
            plan.pack({"q": good._replace(shape=(2, 100, 8, 64))},
                      Allocator())
        with pytest.raises(ValueError, match=r"main:q: needs 16-byte "
                                             r"aligned rows \(pointer 0x1008"):
            plan.pack({"q": good._replace(ptr=0x1008)}, Allocator())
        with pytest.raises(ValueError, match=r"main:q: needs 16-byte "
                                             r"aligned rows"):
            plan.bind({"q": good._replace(strides=(102400, 64, 6404, 1))},
                      Allocator())
        with pytest.raises(ValueError, match="main:q: buffer f16"):
            plan.bind({"q": good._replace(elt="f16")}, Allocator())
        alloc = Allocator()
        zero, main = plan.pack({"q": good}, alloc)
        assert alloc.calls == [("delta", "f32", [2, 16, 100], "none")]
        assert struct.unpack_from("<Q", main.params)[0] == 0x1000
    with pytest.raises(ValueError, match="'main' needs 65536 workgroups"):
        plans.get(dict(bind_env(), B=65536))


def test_plan_rejects_what_the_recipe_and_sizes_get_wrong():
    s = scalar_sidecar()
    s["kernels"][0]["launch"]["args"][1] = "Tq"
    with pytest.raises(ValueError, match="k:Tq: no size named 'Tq'"):
        abi.LaunchPlan(abi.launch_list(s), bind_env())
    s = sidecar()
    s["kernels"][0]["args"][0]["abi"].pop()
    s["kernels"][0]["metadata"]["param_count"] = 10
    with pytest.raises(ValueError, match="main:q: 10 calling-convention "
                                         "fields for 11 values"):
        abi.LaunchPlan(abi.launch_list(s), bind_env())


def _rocke_opt():
    try:
        return rocke.find_rocke_opt()
    except rocke.RockeOptNotFound:
        return None


@pytest.mark.skipif(_rocke_opt() is None, reason="no rocke-opt binary")
@pytest.mark.parametrize("chip", ["sm_90a", "gfx942"])
@pytest.mark.parametrize("deterministic", [False, True])
def test_plan_matches_bind_on_real_recipes(tmp_path, chip, deterministic):
    """The op's forward and backward recipes (GQA, causal, Sq != Sk):
    a plan binds and packs what reference_bind gives."""
    p = rt.problem((2, 100, 16, 64), (2, 130, 4, 64), causal=True,
                   deterministic=deterministic)
    spec = rt.spec_for(p, chip)
    env = rt.size_env(p)
    shapes = dict(q=(2, 100, 16, 64), o=(2, 100, 16, 64),
                  do=(2, 100, 16, 64), dq=(2, 100, 16, 64),
                  k=(2, 130, 4, 64), v=(2, 130, 4, 64), dk=(2, 130, 4, 64),
                  dv=(2, 130, 4, 64), lse=(2, 16, 100))
    buffers = {r: contiguous(0x1000000 * (i + 1),
                             "f32" if r == "lse" else "bf16", s)
               for i, (r, s) in enumerate(sorted(shapes.items()))}
    for forward in (True, False):
        entry = kernel_cache.cached_kernels(spec, forward,
                                            directory=str(tmp_path))
        check_plan_matches_reference(entry.kernels, env, buffers)
