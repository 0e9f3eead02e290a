"""The launch recipe of generated kernels, from fmha-dump-binary's sidecar,
and its binding to buffers.

No GPU needed: memref argument types, grid and scratch-shape expressions
over the problem sizes, scratch-buffer roles (conventions in
lib/Kernels/KernelBuilder.h), the kernels of one sidecar in launch order and
their grids, checked against the recipe's grid limits; ``bind`` turns them
and a problem's buffers (pointer, element type, sizes, strides) into
launches whose arguments follow each kernel's calling convention (the
sidecar's ``abi`` fields: a memref is allocated ptr, aligned ptr, offset,
sizes, strides). ``LaunchPlan`` does what depends only on the recipe and the
sizes once (``LaunchPlans`` keeps them per size), so a call only checks its
buffers and packs each kernel's arguments into one buffer (``kernarg_layout``:
each field at its natural alignment, little-endian), which
``rocke.launch_cuda`` and ``rocke.launch_hip`` pass to the driver as is.
``rocke.torch`` and bench/run_bwd.py launch through them.
"""
import ctypes
import math
import re
import struct
import threading
from functools import lru_cache
from itertools import chain
from operator import itemgetter
from typing import (Callable, Dict, List, Mapping, NamedTuple, Optional,
                    Sequence, Tuple)

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


# Workgroups per grid dimension (x, y, z) every supported chip launches
# (lib/Target/ChipInfo's LaunchLimits); a launch recipe states its own as
# `grid_limit`.
GRID_LIMIT = (2**31 - 1, 65535, 65535)


def check_grid(grid: Sequence[int], grid_limit: Sequence[int] = GRID_LIMIT,
               kernel: str = "kernel",
               exprs: Optional[Sequence[str]] = None) -> None:
    """Raise ValueError, naming the kernel, the dimension and the size,
    when a dimension of `grid` passes `grid_limit` (a recipe's `grid_limit`;
    `exprs` its grid expressions, for the message): a dynamic problem the
    compiler could not check would otherwise fail at launch."""
    for d, (n, limit) in enumerate(zip(grid, grid_limit)):
        if n > limit:
            raise ValueError(
                "kernel %r needs %d workgroups in %s%s, past the grid limit "
                "of %d" % (kernel, n, "xyz"[d],
                           " (%s)" % exprs[d] if exprs else "", limit))


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


# The tiled kernels read Q, K, V and dO rows with 16-byte vector loads, the
# backward's preprocess O and dO rows, and its conversions write dQ (dK, dV)
# rows 16 bytes a lane: their base pointers and outer strides must be
# multiples of 16 bytes.
ALIGNED_ROLES = ("q", "k", "v", "do", "o", "dq", "dk", "dv")
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
    buffer. (``LaunchPlan(kernels, env).bind``: keep the plan, or a
    ``LaunchPlans``, to bind buffers at the same sizes again.)"""
    return LaunchPlan(kernels, env, aligned_roles).bind(buffers, allocate)


# --------------------------------------------------------------------------
# A kernel's arguments packed into one buffer (both launchers)
# --------------------------------------------------------------------------

# Calling-convention field types -> (bytes, struct format); each field is
# aligned to its size, in CUDA's parameter buffer and AMDGPU's kernarg
# segment (explicit arguments) alike.
_SCALARS = {"i64": (8, "q"), "i32": (4, "i"), "f32": (4, "f"),
            "f64": (8, "d")}
# Address spaces of 64-bit pointers (generic, global, constant); LDS and
# private pointers are 32-bit and never kernel arguments here.
_WIDE_ADDRESS_SPACES = ("0", "1", "4")


@lru_cache(maxsize=64)
def field_layout(t: str) -> Tuple[int, str]:
    """(bytes, struct format) of a kernel argument field of type `t`."""
    m = re.fullmatch(r"!llvm\.ptr(?:<(\d+)>)?", t)
    if m:
        if (m.group(1) or "0") not in _WIDE_ADDRESS_SPACES:
            raise ValueError("kernel argument %r: not a 64-bit pointer" % t)
        return 8, "Q"
    if t in _SCALARS:
        return _SCALARS[t]
    raise ValueError("kernel argument of type %r is not supported" % t)


def kernarg_layout(types: Sequence[str]) -> Tuple[List[int], int]:
    """Byte offsets of the fields of types `types` in the argument buffer,
    each at the next multiple of its size, and the buffer's size (a
    multiple of the largest field, as AMDGPU's kernarg segment)."""
    offsets, end, align = [], 0, 1
    for t in types:
        size, _ = field_layout(t)
        end = -(-end // size) * size
        offsets.append(end)
        end += size
        align = max(align, size)
    return offsets, -(-end // align) * align


@lru_cache(maxsize=256)
def kernarg_end(types: Tuple[str, ...]) -> int:
    """The bytes up to the end of the last field of the field types `types`
    (a tuple): the size of the buffer cuLaunchKernel takes (it refuses
    kernarg_layout's tail padding)."""
    if not types:
        return 0
    offsets, _ = kernarg_layout(types)
    return offsets[-1] + field_layout(types[-1])[0]


@lru_cache(maxsize=256)
def kernarg_struct(types: Tuple[str, ...]) -> struct.Struct:
    """A struct.Struct that packs values of the field types `types` (a
    tuple) into the buffer of kernarg_layout in one call: little-endian, as
    the GPU reads it, padding zero."""
    offsets, size = kernarg_layout(types)
    fmt, end = "<", 0
    for t, offset in zip(types, offsets):
        width, code = field_layout(t)
        fmt += ("%dx" % (offset - end) if offset > end else "") + code
        end = offset + width
    if size > end:
        fmt += "%dx" % (size - end)
    return struct.Struct(fmt)


def pack_kernargs(args: Sequence[Tuple[str, int]]) -> bytes:
    """The argument buffer of a ``Launch``'s (type, value) arguments."""
    return kernarg_struct(tuple(t for t, _ in args)).pack(
        *(v for _, v in args))


class PackedLaunch(NamedTuple):
    """One kernel launch with its arguments packed: `params` laid out by
    kernarg_layout (its size AMDGPU's kernarg segment), of which CUDA takes
    the first `params_end` bytes (kernarg_end)."""
    kernel: str
    grid: Tuple[int, int, int]
    block: Tuple[int, int, int]
    shared: int
    params: bytes
    params_end: int


def packed(launch) -> PackedLaunch:
    """A ``Launch`` with its arguments packed; a PackedLaunch as it is."""
    if isinstance(launch, PackedLaunch):
        return launch
    types = tuple(t for t, _ in launch.args)
    return PackedLaunch(launch.kernel, launch.grid, launch.block,
                        launch.shared, pack_kernargs(launch.args),
                        kernarg_end(types))


@lru_cache(maxsize=256)
def _extra_block(params_bytes):
    class ExtraBlock(ctypes.Structure):
        _fields_ = [("extra", ctypes.c_void_p * 5), ("size", ctypes.c_size_t),
                    ("params", ctypes.c_char * params_bytes)]
    return ExtraBlock


def param_buffer_extra(params: bytes, size: int, markers: Tuple[int, int,
                                                                  int]):
    """One ctypes block holding a copy of `params` and, at its start (field
    ``extra``), the `extra` array of cuLaunchKernel / hipModuleLaunchKernel
    that passes it as one buffer of `size` bytes: [BUFFER_POINTER, the
    copy, BUFFER_SIZE, the address of a size_t `size`, END], `markers` being
    the driver's (BUFFER_POINTER, BUFFER_SIZE, END). The drivers copy the
    arguments at the launch: the block need only outlive the call."""
    cls = _extra_block(len(params))
    block = cls()
    base = ctypes.addressof(block)
    ctypes.memmove(base + cls.params.offset, params, len(params))
    block.size = size
    block.extra[:] = (markers[0], base + cls.params.offset, markers[1],
                      base + cls.size.offset, markers[2])
    return block


# --------------------------------------------------------------------------
# Launch plans: what depends only on the recipe and the sizes, done once
# --------------------------------------------------------------------------

class ScratchBuffer(NamedTuple):
    """A scratch buffer of a plan, as ``allocate`` gets it."""
    name: str
    elt: str
    shape: Tuple[int, ...]
    init: str


class KernelPlan(NamedTuple):
    """One kernel of a LaunchPlan: its grid, block and dynamic shared
    memory bytes, its argument fields' types, their packing (``kernargs``,
    ``params_end`` as PackedLaunch's), and per argument the index of its
    fields among a call's (``LaunchPlan``'s operands, scalars first)."""
    name: str
    grid: Tuple[int, int, int]
    block: Tuple[int, int, int]
    shared: int
    types: Tuple[str, ...]
    kernargs: struct.Struct
    params_end: int
    sources: Tuple[int, ...]


def _static_entries(values):
    """(pick, want): ``pick(seq)`` the entries of a sequence at the places
    where `values` (a memref's sizes or strides, None where dynamic) are
    static, `want` those values; None when none is static."""
    index = [i for i, v in enumerate(values) if v is not None]
    if not index:
        return None
    pick = itemgetter(*index)
    return pick, pick(values)


class _Operand:
    """A memref argument of a LaunchPlan: its buffer (by role, or a scratch
    buffer by index) and what of bind's checks the recipe fixes, for each
    (buffer, memref type) once."""
    __slots__ = ("what", "type", "role", "scratch", "aligned", "elt", "rank",
                 "unit", "sizes", "strides")

    def __init__(self, what, memref_type, role, scratch, aligned):
        mt = parse_memref(memref_type)
        self.what, self.type, self.role = what, memref_type, role
        self.scratch, self.aligned = scratch, aligned
        self.elt, self.rank = mt["elt"], len(mt["shape"])
        # 16-byte rows: every outer stride a multiple of `unit` elements.
        size = ELEMENT_BYTES.get(self.elt)
        self.unit = size and 16 // math.gcd(16, size)
        self.sizes = _static_entries(mt["shape"])
        self.strides = _static_entries(mt["strides"])

    def _aligned(self, buf):
        strides = buf.strides
        return (self.unit and strides and buf.ptr % 16 == 0 and
                strides[-1] == 1 and math.gcd(*strides[:-1]) % self.unit == 0)

    def fields(self, buf) -> tuple:
        """`buf`'s calling-convention fields, or bind's ValueError."""
        shape, strides = buf.shape, buf.strides
        if (buf.elt != self.elt or len(shape) != self.rank or
                len(strides) != self.rank or
                (self.sizes and self.sizes[0](shape) != self.sizes[1]) or
                (self.strides and self.strides[0](strides) != self.strides[1])
                or (self.aligned and not self._aligned(buf))):
            return self._checked_fields(buf)
        return (buf.ptr, buf.ptr, 0, *shape, *strides)

    def _checked_fields(self, buf) -> tuple:
        """bind's checks one by one, in its order, for their messages."""
        if self.aligned:
            check_aligned(buf, self.what)
        values = memref_fields(buf, self.type, self.what)
        if len(values) != 3 + 2 * self.rank:
            raise ValueError("%s: %d calling-convention fields for %d values"
                             % (self.what, 3 + 2 * self.rank, len(values)))
        return tuple(values)


class LaunchPlan:
    """The kernels of `launch_list` prepared for the problem sizes `env`:
    grids (checked against the recipe's limits), blocks, shared bytes, the
    scratch buffers (``scratch``: ScratchBuffers in allocation order), each
    kernel's argument fields and packing (``kernels``: KernelPlans), the
    scalar arguments and what the memref types fix of bind's checks. A call
    (``bind`` or ``pack``) checks its buffers, allocates the scratch buffers
    and gives the launches. Raises bind's ValueError where the recipe and
    the sizes disagree (grid limits, unknown sizes, field counts)."""

    def __init__(self, kernels, env, aligned_roles=ALIGNED_ROLES):
        self.scratch: List[ScratchBuffer] = []
        self._scalars: List[Tuple[int]] = []
        self._operands: List[_Operand] = []
        scratch_index: Dict[str, int] = {}
        operand_index: Dict[tuple, int] = {}
        scalar_index: Dict[str, int] = {}
        planned = []
        for k in kernels:
            grid = launch_grid(k, env)
            types, sources = [], []
            for a in k["args"]:
                role, mt = a["role"], parse_memref(a["type"])
                what = "%s:%s" % (k["name"], role)
                if mt is None:
                    if role not in env:
                        raise ValueError("%s: no size named %r" % (what, role))
                    if role not in scalar_index:
                        scalar_index[role] = len(self._scalars)
                        self._scalars.append((int(env[role]),))
                    sources.append(("scalar", scalar_index[role]))
                    n = 1
                else:
                    if is_scratch(role):
                        name, elt, shape, init = scratch_spec(role, env)
                        if name not in scratch_index:
                            scratch_index[name] = len(self.scratch)
                            self.scratch.append(ScratchBuffer(
                                name, elt, tuple(shape), init))
                        key = ("scratch", name, a["type"])
                        operand = (what, a["type"], None, scratch_index[name],
                                   False)
                    else:
                        key = ("role", role, a["type"])
                        operand = (what, a["type"], role, None,
                                   role in aligned_roles)
                    if key not in operand_index:
                        operand_index[key] = len(self._operands)
                        self._operands.append(_Operand(*operand))
                    sources.append(("operand", operand_index[key]))
                    n = 3 + 2 * len(mt["shape"])
                abi = a.get("abi") or [None] * n
                if len(abi) != n:
                    raise ValueError("%s: %d calling-convention fields for %d "
                                     "values" % (what, len(abi), n))
                if None in abi:
                    abi = default_abi_types(n, mt is not None)
                types += abi
            planned.append((k, grid, tuple(types), sources))
        self.kernels: List[KernelPlan] = []
        for k, grid, types, sources in planned:
            self.kernels.append(KernelPlan(
                k["name"], grid, tuple(int(b) for b in k["block"]),
                int(k["shared"]), types, kernarg_struct(types),
                kernarg_end(types),
                tuple(i if kind == "scalar" else len(self._scalars) + i
                      for kind, i in sources)))

    def _fields(self, buffers: Mapping[str, Buffer], allocate) -> list:
        """The fields of each scalar, then each operand (KernelPlan.sources
        index them), for `buffers`; the scratch buffers allocated."""
        fields = list(self._scalars)
        scratch: List[Optional[Buffer]] = [None] * len(self.scratch)
        for op in self._operands:
            if op.scratch is None:
                if op.role not in buffers:
                    raise ValueError("%s: no buffer for role %r (given: %s)"
                                     % (op.what, op.role,
                                        ", ".join(sorted(buffers))))
                buf = buffers[op.role]
            else:
                buf = scratch[op.scratch]
                if buf is None:
                    s = self.scratch[op.scratch]
                    buf = scratch[op.scratch] = allocate(
                        s.name, s.elt, list(s.shape), s.init)
            fields.append(op.fields(buf))
        return fields

    def bind(self, buffers: Mapping[str, Buffer],
             allocate: Callable[[str, str, List[int], str], Buffer]
             ) -> List[Launch]:
        """``bind()``'s launches for `buffers`, its errors too."""
        fields = self._fields(buffers, allocate)
        return [Launch(k.name, k.grid, k.block, k.shared, tuple(zip(
            k.types, chain.from_iterable(map(fields.__getitem__,
                                             k.sources)))))
                for k in self.kernels]

    def pack(self, buffers: Mapping[str, Buffer],
             allocate: Callable[[str, str, List[int], str], Buffer]
             ) -> List[PackedLaunch]:
        """The launches of ``bind`` with their arguments packed (what the
        launchers pass to the driver)."""
        fields = self._fields(buffers, allocate)
        return [PackedLaunch(k.name, k.grid, k.block, k.shared,
                             k.kernargs.pack(*chain.from_iterable(
                                 map(fields.__getitem__, k.sources))),
                             k.params_end)
                for k in self.kernels]


class LaunchPlans:
    """The LaunchPlans of one recipe (launch_list's kernels) by problem
    sizes: ``get(env)`` makes one on the first call with these sizes
    (env's items, in its order) and keeps the `capacity` latest."""

    def __init__(self, kernels, capacity: int = 64,
                 aligned_roles=ALIGNED_ROLES):
        self.kernels, self.capacity = kernels, capacity
        self.aligned_roles = aligned_roles
        self._plans: Dict[tuple, LaunchPlan] = {}
        self._lock = threading.Lock()

    def get(self, env: Mapping[str, int]) -> LaunchPlan:
        key = tuple(env.items())
        plan = self._plans.get(key)
        if plan is None:
            plan = LaunchPlan(self.kernels, env, self.aligned_roles)
            with self._lock:
                while self._plans and len(self._plans) >= self.capacity:
                    del self._plans[next(iter(self._plans))]  # the oldest
                self._plans[key] = plan
        return plan
