"""Thin CUDA launcher: load PTX with CuPy (``cupy.RawModule``) and launch,
one kernel (``launch``) or a launch recipe (``RecipeModule``, the kernels of
an fmha-dump-binary sidecar bound by ``rocke.kernel_abi``'s launch plans),
each kernel's arguments packed into one buffer that cuLaunchKernel takes
(``launch_packed``).

CuPy is optional. Without it, importing this module works but every entry
point raises ImportError with an explanation; tests use ``available()`` /
``pytest.importorskip("cupy")`` to skip cleanly.
"""
from __future__ import annotations

import ctypes
import os
import re
import tempfile
from typing import Optional, Sequence, Tuple, Union

from .kernel_abi import (GRID_LIMIT, LaunchPlans, PackedLaunch, check_grid,
                         packed, param_buffer_extra)

try:  # pragma: no cover - depends on the machine
    import cupy as _cp
    _IMPORT_ERROR: Optional[BaseException] = None
except Exception as e:  # ImportError, or CUDA runtime missing
    _cp = None
    _IMPORT_ERROR = e

__all__ = ["available", "require_cupy", "load_ptx", "extract_ptx", "launch",
           "check_grid", "GRID_LIMIT", "PtxModule", "RecipeModule",
           "launch_packed", "stream_handle"]

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


# Shared memory every kernel may use without opting in.
_DEFAULT_SHARED = 48 * 1024


def _opt_in_shared(kernel, dynamic: int) -> None:
    """Opts `kernel` (a RawKernel) in to `dynamic` bytes of dynamic shared
    memory where they and its static shared memory (a kernel's alignment of
    the dynamic memory shows here too) pass the 48 KiB every kernel may use:
    at exactly 48 KiB of dynamic memory a byte of static memory makes the
    launch an invalid argument."""
    if dynamic + kernel.shared_size_bytes > _DEFAULT_SHARED:
        kernel.max_dynamic_shared_size_bytes = dynamic


def launch(kernel, grid: Dim3, block: Dim3, args: Sequence,
           shared_mem: int = 0, stream=None,
           grid_limit: Sequence[int] = GRID_LIMIT) -> None:
    """Launch a RawKernel (or (PtxModule, name)); args are CuPy arrays/ints.
    shared_mem: the dynamic shared memory bytes (a kernel's
    `dynamic_shared_bytes` in the sidecar); where it and the kernel's static
    shared memory pass the 48 KiB every kernel may use, the kernel is opted
    in first. The grid is checked against
    `grid_limit` (a recipe's) first."""
    name = kernel[1] if isinstance(kernel, tuple) else \
        getattr(kernel, "name", "kernel")
    check_grid(_dim3(grid), grid_limit, name)
    require_cupy()
    if isinstance(kernel, tuple):
        mod, name = kernel
        kernel = mod.get(name)
    _opt_in_shared(kernel, shared_mem)
    kw = {"shared_mem": shared_mem}
    if stream is not None:
        kw["stream"] = stream
    kernel(_dim3(grid), _dim3(block), tuple(args), **kw)


# cuda.h: the markers of cuLaunchKernel's `extra` array.
CU_LAUNCH_PARAM_BUFFER_POINTER = 0x01
CU_LAUNCH_PARAM_BUFFER_SIZE = 0x02
CU_LAUNCH_PARAM_END = 0x00
_MARKERS = (CU_LAUNCH_PARAM_BUFFER_POINTER, CU_LAUNCH_PARAM_BUFFER_SIZE,
            CU_LAUNCH_PARAM_END)


def stream_handle(stream) -> int:
    """The CUstream of `stream`: a CuPy stream, a handle (an int, e.g. a
    PyTorch stream's ``cuda_stream``), or None for CuPy's current stream."""
    if stream is None:
        return require_cupy().cuda.get_current_stream().ptr
    return stream if isinstance(stream, int) else stream.ptr


def launch_packed(function: int, launch: PackedLaunch, stream: int) -> None:
    """cuLaunchKernel of the CUfunction `function` (``RecipeModule.pointers``,
    of a module loaded on the current device) with `launch`'s grid, block,
    dynamic shared bytes and packed arguments, on the CUstream `stream`."""
    block = param_buffer_extra(launch.params, launch.params_end, _MARKERS)
    require_cupy().cuda.driver.launchKernel(
        function, *launch.grid, *launch.block, launch.shared, stream, 0,
        ctypes.addressof(block))


class RecipeModule:
    """A PTX file loaded on the current CUDA device with its launch recipe
    (``kernel_abi.launch_list``): ``launch(launches, stream)`` runs what
    ``plans.get(env).pack`` (or ``kernel_abi.bind``) made of it, in order."""

    def __init__(self, ptx_path, kernels):
        cp = require_cupy()
        self.module = cp.RawModule(path=str(ptx_path))
        self.module.compile()  # load now so errors surface here
        self.kernels = kernels
        self.functions = {}  # RawKernels
        self.pointers = {}  # their CUfunctions on this device
        for k in kernels:
            fn = self.module.get_function(k["name"])
            _opt_in_shared(fn, k["shared"])
            self.functions[k["name"]] = fn
            self.pointers[k["name"]] = fn.kernel.ptr
        self.plans = LaunchPlans(kernels)

    def launch(self, launches, stream=None):
        """Launch `launches` (PackedLaunch or Launch items) in order on
        `stream` (as ``stream_handle`` takes it), on the module's device
        (current)."""
        stream = stream_handle(stream)
        for l in launches:
            launch_packed(self.pointers[l.kernel], packed(l), stream)
