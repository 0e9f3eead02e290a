"""Thin CUDA launcher: load PTX with CuPy (``cupy.RawModule``) and launch.

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
           "check_grid", "GRID_LIMIT", "PtxModule"]

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
