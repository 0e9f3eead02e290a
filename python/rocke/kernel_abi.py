"""The launch recipe of generated kernels, from fmha-dump-binary's sidecar,
and its binding to buffers.

No GPU needed: memref argument types, grid and scratch-shape expressions
over the problem sizes, scratch-buffer roles (conventions in
lib/Kernels/KernelBuilder.h), the kernels of one sidecar in launch order and
their grids, checked against the recipe's grid limits; ``bind`` turns them
and a problem's buffers (pointer, element type, sizes, strides) into
launches whose arguments follow each kernel's calling convention (the
sidecar's ``abi`` fields: a memref is allocated ptr, aligned ptr, offset,
sizes, strides). ``rocke.torch`` and bench/run_bwd.py launch what ``bind``
returns (through CuPy or ``rocke.launch_hip``).
"""
import re
from functools import lru_cache
from typing import Callable, Dict, List, Mapping, NamedTuple, Tuple

from .launch_cuda import check_grid

SIZE_NAMES = ("B", "Sq", "Sk", "Hq", "Hkv", "Dqk", "Dv")

# Logical shapes of the named scratch buffers (roles "<name>:<elt>:<init>").
SCRATCH_SHAPES = {
    "dq_accum": "[B,Sq,Hq,Dqk]", "dk_accum": "[B,Sk,Hkv,Dqk]",
    "dv_accum": "[B,Sk,Hkv,Dv]", "delta": "[B,Hq,Sq]",
    # deterministic tiled dQ: one partial per KV block (BKV keys, defined in
    # the kernel's launch symbols) of the main kernel
    "dq_partial": "[ceildiv(Sk,BKV),B,Sq,Hq,Dqk]",
}


def split_top(s, sep=","):
    """Split on `sep` outside <>, (), [] and {}."""
    parts, depth, cur = [], 0, ""
    for ch in s:
        if ch in "<([{":
            depth += 1
        elif ch in ">)]}":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


@lru_cache(maxsize=None)
def parse_memref(t):
    """memref<?x?x16x64xbf16, strided<[?, 64, ?, 1]>> ->
    {elt, shape, strides} (None for dynamic), or None for a non-memref.
    Cached: callers must not modify the result."""
    t = t.strip()
    if not t.startswith("memref<"):
        return None
    parts = split_top(t[len("memref<"):-1])
    dims = parts[0].split("x")
    shape = [None if d == "?" else int(d) for d in dims[:-1]]
    strides = None
    for p in parts[1:]:
        m = re.match(r"strided<\[([^\]]*)\]", p)
        if m:
            strides = [None if x.strip() == "?" else int(x)
                       for x in m.group(1).split(",")]
    if strides is None:  # identity layout: row-major contiguous
        strides, acc = [], 1
        for d in reversed(shape):
            strides.insert(0, acc)
            acc = None if (d is None or acc is None) else acc * d
    return {"elt": dims[-1], "shape": shape, "strides": strides}


def ceildiv(a, b):
    return -(-a // b)


@lru_cache(maxsize=None)
def _compiled_expr(expr):
    """(code, names) of a checked expression; compiled once (a launch
    evaluates the same few for every call of an op)."""
    if not re.fullmatch(r"[\sA-Za-z0-9_+\-*(),]*", expr):
        raise ValueError("bad expression %r" % expr)
    names = frozenset(re.findall(r"[A-Za-z_]\w*", expr)) - {"ceildiv"}
    return compile(expr, "<launch expression>", "eval"), names


def eval_expr(expr, env):
    """Sizes, integers, + - * ( ) and ceildiv(a,b); nothing else."""
    expr = str(expr)
    code, names = _compiled_expr(expr)
    unknown = names - set(env)
    if unknown:
        raise ValueError("expression %r uses unknown %s"
                         % (expr, sorted(unknown)))
    return int(eval(code, {"__builtins__": {}}, dict(env, ceildiv=ceildiv)))


def is_scratch(role):
    return ":" in role


def scratch_spec(role, env):
    """'<name>:<elt>:<init>', optionally with a ':[shape]' field ->
    (name, element type, shape, init)."""
    fields = role.split(":")
    if len(fields) < 3:
        raise ValueError("scratch role %r: want <name>:<elt>:<init>" % role)
    name, elt = fields[0], fields[1]
    shape = next((f for f in fields[2:] if f.startswith("[")), None)
    init = next((f for f in fields[2:] if not f.startswith("[")), "none")
    shape = shape or SCRATCH_SHAPES.get(name)
    if shape is None:
        raise ValueError("scratch role %r: unknown buffer and no shape" % role)
    dims = [eval_expr(d, env) for d in split_top(shape.strip()[1:-1])]
    return name, elt, dims, init


def resolve_symbols(expr, symbols):
    """`expr` with the launch's own symbols (e.g. BKV) replaced by their
    values, so only the problem sizes remain to bind."""
    return re.sub(r"[A-Za-z_]\w*",
                  lambda m: str(symbols.get(m.group(0), m.group(0))), expr)


def with_shape(role, symbols):
    """A scratch role with its shape spelled out, given or logical, and the
    symbols in it resolved; other roles unchanged."""
    if not is_scratch(role):
        return role
    fields = role.split(":")
    if any(f.startswith("[") for f in fields[2:]):
        return ":".join(resolve_symbols(f, symbols) if f.startswith("[")
                        else f for f in fields)
    shape = SCRATCH_SHAPES.get(fields[0])
    if shape is None:
        return role
    return role + ":" + resolve_symbols(shape, symbols)


def launch_list(sidecar):
    """Kernels of a fmha-dump-binary sidecar (dict) in launch order (by
    first fmha op, then order): [{name, ops, order, grid, grid_limit, block,
    shared, args: [{role, type}]}] (shared: the dynamic shared memory bytes
    to launch with; grid_limit: the most workgroups per grid dimension). The
    launch's `symbols` are substituted into the grid and into scratch roles
    (which then carry their shape), so the sidecar alone is the recipe.
    Each argument's `abi` lists the types of its calling-convention fields
    (None where the sidecar states none). Checks that the expansion matches
    the PTX parameter count."""
    kernels = []
    for k in sidecar["kernels"]:
        if "launch" not in k:
            raise ValueError("%s has no rocke.launch facts (was "
                             "fmha-record-kernel-abi run?)" % k["name"])
        want = sum(len(a["abi"]) for a in k["args"])
        have = k.get("metadata", {}).get("param_count")
        if have is not None and have != want:
            raise ValueError("%s: the code has %s parameters, the recorded "
                             "ABI expands to %d" % (k["name"], have, want))
        launch = k["launch"]
        roles = launch["args"]
        if len(roles) != len(k["args"]):
            raise ValueError("%s: %d roles for %d arguments"
                             % (k["name"], len(roles), len(k["args"])))
        if "grid_limit" not in launch:
            raise ValueError("%s: the recipe states no grid_limit (rebuild "
                             "it: fmha-record-kernel-abi adds the chip's)"
                             % k["name"])
        symbols = launch.get("symbols", {})
        roles = [with_shape(r, symbols) for r in roles]
        kernels.append(dict(name=k["name"], ops=launch.get("ops", [0]),
                            order=launch["order"],
                            grid=[resolve_symbols(g, symbols)
                                  for g in launch["grid"]],
                            grid_limit=launch["grid_limit"],
                            block=launch["block"],
                            shared=launch.get("dynamic_shared_bytes", 0),
                            args=[dict(role=r, type=a["type"],
                                       abi=[f.get("type") for f in a["abi"]])
                                  for r, a in zip(roles, k["args"])]))
    kernels.sort(key=lambda k: (k["ops"][0], k["order"]))
    return kernels


def launch_grid(kernel, env):
    """A kernel of launch_list's grid for the problem sizes `env`; a
    ValueError naming the kernel, dimension and size where it passes the
    recipe's grid_limit."""
    grid = tuple(eval_expr(g, env) for g in kernel["grid"])
    check_grid(grid, kernel["grid_limit"], kernel["name"], kernel["grid"])
    return grid


# --------------------------------------------------------------------------
# Binding a recipe to buffers
# --------------------------------------------------------------------------

class Buffer(NamedTuple):
    """A tensor as a kernel sees it: device address, element type (``f16``,
    ``bf16``, ``f32``), sizes and strides in elements."""
    ptr: int
    elt: str
    shape: Tuple[int, ...]
    strides: Tuple[int, ...]


class Launch(NamedTuple):
    """One kernel launch: the grid, block and dynamic shared memory bytes,
    and the arguments as (calling-convention type, integer value) pairs."""
    kernel: str
    grid: Tuple[int, int, int]
    block: Tuple[int, int, int]
    shared: int
    args: Tuple[Tuple[str, int], ...]


# The tiled kernels read Q, K, V and dO rows with 16-byte vector loads: their
# base pointers and outer strides must be multiples of 16 bytes.
ALIGNED_ROLES = ("q", "k", "v", "do")
ELEMENT_BYTES = {"f16": 2, "bf16": 2, "f32": 4}


def check_aligned(buf, what):
    """ValueError unless `buf`'s rows start on 16-byte boundaries (pointer
    and every outer stride) and its last dimension is unit-stride."""
    size = ELEMENT_BYTES[buf.elt]
    bad = [s for s in buf.strides[:-1] if (s * size) % 16]
    if buf.ptr % 16 or bad or buf.strides[-1] != 1:
        raise ValueError("%s: needs 16-byte aligned rows (pointer %#x, "
                         "strides %s)" % (what, buf.ptr, tuple(buf.strides)))


def memref_fields(buf, memref_type, what):
    """MLIR's default memref calling convention for `buf`: allocated ptr,
    aligned ptr, offset, sizes, strides (elements); ValueError (naming
    `what`) where the element type, rank or a static size or stride of
    `memref_type` differs."""
    mt = parse_memref(memref_type) if isinstance(memref_type, str) \
        else memref_type
    if buf.elt != mt["elt"] or len(buf.shape) != len(mt["shape"]):
        raise ValueError("%s: buffer %s %s vs memref %s" %
                         (what, buf.elt, tuple(buf.shape), memref_type))
    for got, want, kind in ((buf.shape, mt["shape"], "size"),
                            (buf.strides, mt["strides"], "stride")):
        for g, w in zip(got, want):
            if w is not None and g != w:
                raise ValueError("%s: %s %s vs static %s" %
                                 (what, kind, tuple(got), want))
    return ([buf.ptr, buf.ptr, 0] + [int(s) for s in buf.shape] +
            [int(s) for s in buf.strides])


def default_abi_types(n_fields, is_memref):
    """The field types when a sidecar states none: pointers then i64."""
    if not is_memref:
        return ["i64"] * n_fields
    return ["!llvm.ptr", "!llvm.ptr"] + ["i64"] * (n_fields - 2)


def bind(kernels, env, buffers: Mapping[str, Buffer],
         allocate: Callable[[str, str, List[int], str], Buffer],
         aligned_roles=ALIGNED_ROLES) -> List[Launch]:
    """Launches of the kernels of `launch_list` for the problem sizes `env`:
    operands by role from `buffers`, each scratch buffer from
    ``allocate(name, elt, shape, init)`` once (several kernels share it),
    scalar arguments from `env`; every grid checked against the recipe's
    limits. ValueError names the kernel and role of a missing or mismatched
    buffer."""
    scratch: Dict[str, Buffer] = {}
    launches = []
    for k in kernels:
        args = []
        for a in k["args"]:
            role, mt = a["role"], parse_memref(a["type"])
            what = "%s:%s" % (k["name"], role)
            if mt is None:
                if role not in env:
                    raise ValueError("%s: no size named %r" % (what, role))
                values = [int(env[role])]
            else:
                if is_scratch(role):
                    name, elt, shape, init = scratch_spec(role, env)
                    if name not in scratch:
                        scratch[name] = allocate(name, elt, shape, init)
                    buf = scratch[name]
                elif role in buffers:
                    buf = buffers[role]
                    if role in aligned_roles:
                        check_aligned(buf, what)
                else:
                    raise ValueError("%s: no buffer for role %r (given: %s)"
                                     % (what, role, ", ".join(sorted(buffers))))
                values = memref_fields(buf, mt, what)
            types = a.get("abi") or [None] * len(values)
            if len(types) != len(values):
                raise ValueError("%s: %d calling-convention fields for %d "
                                 "values" % (what, len(types), len(values)))
            if None in types:
                types = default_abi_types(len(values), mt is not None)
            args += list(zip(types, values))
        launches.append(Launch(k["name"], launch_grid(k, env),
                               tuple(int(b) for b in k["block"]),
                               int(k["shared"]), tuple(args)))
    return launches
