"""The launch recipe of generated kernels, from fmha-dump-binary's sidecar.

No GPU needed: memref argument types, grid and scratch-shape expressions
over the problem sizes, scratch-buffer roles (conventions in
lib/Kernels/KernelBuilder.h), the kernels of one sidecar in launch order and
their grids, checked against the recipe's grid limits. bench/run_bwd.py binds
these to tensors; python/tests checks them on CI.
"""
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
from rocke.launch_cuda import check_grid  # noqa: E402

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


def parse_memref(t):
    """memref<?x?x16x64xbf16, strided<[?, 64, ?, 1]>> ->
    {elt, shape, strides} (None for dynamic), or None for a non-memref."""
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


def eval_expr(expr, env):
    """Sizes, integers, + - * ( ) and ceildiv(a,b); nothing else."""
    expr = str(expr)
    if not re.fullmatch(r"[\sA-Za-z0-9_+\-*(),]*", expr):
        raise ValueError("bad expression %r" % expr)
    unknown = set(re.findall(r"[A-Za-z_]\w*", expr)) - set(env) - {"ceildiv"}
    if unknown:
        raise ValueError("expression %r uses unknown %s"
                         % (expr, sorted(unknown)))
    return int(eval(expr, {"__builtins__": {}}, dict(env, ceildiv=ceildiv)))


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
    Checks that the recorded calling-convention expansion matches the PTX
    parameter count."""
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
                            args=[dict(role=r, type=a["type"])
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
