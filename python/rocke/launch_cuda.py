"""Thin CUDA launcher: load PTX with CuPy (``cupy.RawModule``) and launch,
one kernel (``launch``) or a launch recipe (``RecipeModule``, the kernels of
an fmha-dump-binary sidecar bound by ``rocke.kernel_abi.bind``).

CuPy is optional. Without it, importing this module works but every entry
point raises ImportError with an explanation; tests use ``available()`` /
``pytest.importorskip("cupy")`` to skip cleanly.
"""
from __future__ import annotations

import os
import re
import tempfile
from typing import Optional, Sequence, Tuple, Union

try:  # pragma: no cover - depends on the machine
    import cupy as _cp
    _IMPORT_ERROR: Optional[BaseException] = None
except Exception as e:  # ImportError, or CUDA runtime missing
    _cp = None
    _IMPORT_ERROR = e

__all__ = ["available", "require_cupy", "load_ptx", "extract_ptx", "launch",
           "check_grid", "GRID_LIMIT", "PtxModule", "RecipeModule",
           "kernel_arguments", "external_stream"]

# Workgroups per grid dimension (x, y, z) every supported chip launches
# (lib/Target/ChipInfo's LaunchLimits); a launch recipe states its own as
# `grid_limit`.
GRID_LIMIT = (2**31 - 1, 65535, 65535)

_MSG = ("rocke.launch_cuda needs CuPy with a working CUDA runtime "
        "(e.g. a cupy-cuda12x package); importing cupy failed: %r")


def available() -> bool:
    return _cp is not None


def require_cupy():
    if _cp is None:
        raise ImportError(_MSG % (_IMPORT_ERROR,))
    return _cp


def extract_ptx(text: str) -> str:
    """PTX text itself, or the first PTX blob in a ``gpu.binary`` MLIR dump
    (``#gpu.object<..., assembly = "...">`` / ``"..."`` with .version)."""
    if ".entry" in text and ".version" in text and "gpu.binary" not in text:
        return text
    for m in re.finditer(r'"((?:[^"\\]|\\.)*)"', text, re.S):
        s = m.group(1)
        if ".version" in s and ".entry" in s:
            return re.sub(r"\\([0-9A-Fa-f]{2})",
                          lambda x: chr(int(x.group(1), 16)),
                          s.replace('\\"', '"').replace("\\n", "\n"))
    raise ValueError("no PTX found in the given text")


class PtxModule:
    """A loaded PTX module; ``get(name)`` returns a ``cupy.RawKernel``."""

    def __init__(self, ptx: str):
        cp = require_cupy()
        self.ptx = extract_ptx(ptx)
        fd, path = tempfile.mkstemp(suffix=".ptx")
        try:
            with os.fdopen(fd, "w") as f:
                f.write(self.ptx)
            self.module = cp.RawModule(path=path)
            self.module.compile()  # load now so errors surface here
        finally:
            os.unlink(path)

    def kernel_names(self):
        return re.findall(r"\.entry\s+([\w$]+)", self.ptx)

    def get(self, name: Optional[str] = None):
        if name is None:
            names = self.kernel_names()
            if len(names) != 1:
                raise ValueError("module has kernels %s; pass a name" % names)
            name = names[0]
        return self.module.get_function(name)


def load_ptx(ptx: str) -> PtxModule:
    return PtxModule(ptx)


Dim3 = Union[int, Tuple[int, ...]]


def _dim3(x: Dim3) -> Tuple[int, int, int]:
    t = (x,) if isinstance(x, int) else tuple(x)
    return tuple(t) + (1,) * (3 - len(t))


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


def launch(kernel, grid: Dim3, block: Dim3, args: Sequence,
           shared_mem: int = 0, stream=None,
           grid_limit: Sequence[int] = GRID_LIMIT) -> None:
    """Launch a RawKernel (or (PtxModule, name)); args are CuPy arrays/ints.
    shared_mem: the dynamic shared memory bytes (a kernel's
    `dynamic_shared_bytes` in the sidecar); past the 48 KiB every kernel may
    use, the kernel is opted in first. The grid is checked against
    `grid_limit` (a recipe's) first."""
    name = kernel[1] if isinstance(kernel, tuple) else \
        getattr(kernel, "name", "kernel")
    check_grid(_dim3(grid), grid_limit, name)
    require_cupy()
    if isinstance(kernel, tuple):
        mod, name = kernel
        kernel = mod.get(name)
    if shared_mem > 48 * 1024:
        kernel.max_dynamic_shared_size_bytes = shared_mem
    kw = {"shared_mem": shared_mem}
    if stream is not None:
        kw["stream"] = stream
    kernel(_dim3(grid), _dim3(block), tuple(args), **kw)


# Calling-convention field types (the sidecar's `abi`) -> NumPy scalar types,
# which CuPy packs at their own width.
_SCALAR_TYPES = {"i64": "int64", "i32": "int32", "f32": "float32",
                 "f64": "float64"}


def kernel_arguments(args):
    """NumPy scalars for a ``kernel_abi.Launch``'s (type, value) arguments:
    pointers (``!llvm.ptr``, any address space) as uint64, integers and
    floats at their width."""
    import numpy as np
    out = []
    for t, v in args:
        if t.startswith("!llvm.ptr"):
            out.append(np.uint64(v))
        elif t in _SCALAR_TYPES:
            out.append(getattr(np, _SCALAR_TYPES[t])(v))
        else:
            raise ValueError("kernel argument of type %r is not supported" % t)
    return tuple(out)


_STREAMS = {}


def external_stream(torch_stream):
    """CuPy's view of a PyTorch CUDA stream (so our kernels run in order
    with PyTorch's work on it)."""
    cp = require_cupy()
    key = (torch_stream.cuda_stream, torch_stream.device_index)
    if key not in _STREAMS:
        try:  # CuPy 14: the CUDA stream protocol (ExternalStream deprecated)
            cs = cp.cuda.Stream.from_external(torch_stream)
        except (AttributeError, TypeError, ValueError):
            cs = cp.cuda.ExternalStream(torch_stream.cuda_stream,
                                        torch_stream.device_index)
        _STREAMS[key] = cs
    return _STREAMS[key]


class RecipeModule:
    """A PTX file loaded on the current CUDA device with its launch recipe
    (``kernel_abi.launch_list``): ``launch(launches, stream)`` runs what
    ``kernel_abi.bind`` made of it, in order."""

    def __init__(self, ptx_path, kernels):
        cp = require_cupy()
        self.module = cp.RawModule(path=str(ptx_path))
        self.module.compile()  # load now so errors surface here
        self.kernels = kernels
        self.functions = {}
        for k in kernels:
            fn = self.module.get_function(k["name"])
            if k["shared"] > 48 * 1024:  # opt in past the static limit
                fn.max_dynamic_shared_size_bytes = k["shared"]
            self.functions[k["name"]] = fn

    def launch(self, launches, stream=None):
        kw = {} if stream is None else {"stream": stream}
        for l in launches:
            self.functions[l.kernel](l.grid, l.block,
                                     kernel_arguments(l.args),
                                     shared_mem=l.shared, **kw)
