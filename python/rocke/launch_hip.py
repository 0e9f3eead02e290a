"""AMD launcher: HSACO code objects through the HIP module API.

``hipModuleLoadData`` / ``hipModuleGetFunction`` / ``hipModuleLaunchKernel``
through ctypes on libamdhip64, the kernel arguments packed into one kernarg
buffer passed with ``HIP_LAUNCH_PARAM_BUFFER_POINTER``. The packing
(``kernarg_layout`` / ``pack_kernargs``) is pure Python, checked against the
sidecar and the code object's own metadata on any machine
(python/tests/test_launch_hip.py); the launches themselves have NOT run on
AMD hardware yet.

Importing this module needs no ROCm; ``HipModule`` raises ImportError with
an explanation when libamdhip64 cannot be loaded.
"""
import ctypes
import os
import re
import struct
from typing import List, Optional, Sequence, Tuple

__all__ = ["field_layout", "kernarg_layout", "pack_kernargs", "HipRuntime",
           "HipModule", "HIP_LAUNCH_PARAM_BUFFER_POINTER",
           "HIP_LAUNCH_PARAM_BUFFER_SIZE", "HIP_LAUNCH_PARAM_END"]

# hip_runtime_api.h: the `extra` array's markers.
HIP_LAUNCH_PARAM_BUFFER_POINTER = 0x01
HIP_LAUNCH_PARAM_BUFFER_SIZE = 0x02
HIP_LAUNCH_PARAM_END = 0x03

# Calling-convention field types -> (bytes, struct format); each field is
# aligned to its size in the kernarg segment (AMDGPU ABI, explicit args).
_SCALARS = {"i64": (8, "q"), "i32": (4, "i"), "f32": (4, "f"),
            "f64": (8, "d")}
# Address spaces of 64-bit pointers (generic, global, constant); LDS and
# private pointers are 32-bit and never kernel arguments here.
_WIDE_ADDRESS_SPACES = ("0", "1", "4")


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
    """Byte offsets of the fields of types `types` in the kernarg buffer,
    each at the next multiple of its size, and the buffer's size (a
    multiple of the largest field)."""
    offsets, end, align = [], 0, 1
    for t in types:
        size, _ = field_layout(t)
        end = -(-end // size) * size
        offsets.append(end)
        end += size
        align = max(align, size)
    return offsets, -(-end // align) * align


def pack_kernargs(args: Sequence[Tuple[str, int]]) -> bytes:
    """The kernarg buffer of a ``kernel_abi.Launch``'s (type, value)
    arguments (little-endian, as the GPU reads it)."""
    offsets, size = kernarg_layout([t for t, _ in args])
    buf = bytearray(size)
    for (t, v), off in zip(args, offsets):
        struct.pack_into("<" + field_layout(t)[1], buf, off, v)
    return bytes(buf)


def _loaded_hip_library() -> Optional[str]:
    """The libamdhip64 this process has loaded already (PyTorch's ROCm
    wheels ship their own): a second copy would be a second runtime."""
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                path = line.split()[-1]
                if "libamdhip64.so" in os.path.basename(path):
                    return path
    except OSError:
        pass
    return None


class HipRuntime:
    """The HIP module API of libamdhip64 through ctypes: the copy already
    loaded in the process, else ``$ROCKE_HIP_LIB``, else the loader's
    ``libamdhip64.so``."""

    def __init__(self, library: Optional[str] = None):
        tried = [p for p in (library, _loaded_hip_library(),
                             os.environ.get("ROCKE_HIP_LIB"),
                             "libamdhip64.so", "libamdhip64.so.6") if p]
        errors = []
        for path in tried:
            try:
                self.lib = ctypes.CDLL(path)
                self.path = path
                break
            except OSError as e:
                errors.append(str(e))
        else:
            raise ImportError(
                "rocke.launch_hip needs the HIP runtime (libamdhip64, from "
                "ROCm or a PyTorch ROCm build); tried %s: %s"
                % (", ".join(tried), "; ".join(errors)))
        vp, u = ctypes.c_void_p, ctypes.c_uint
        self.lib.hipModuleLoadData.argtypes = [ctypes.POINTER(vp), vp]
        self.lib.hipModuleGetFunction.argtypes = [ctypes.POINTER(vp), vp,
                                                  ctypes.c_char_p]
        self.lib.hipModuleLaunchKernel.argtypes = [
            vp, u, u, u, u, u, u, u, vp, ctypes.POINTER(vp),
            ctypes.POINTER(vp)]
        self.lib.hipModuleUnload.argtypes = [vp]
        self.lib.hipGetErrorString.argtypes = [ctypes.c_int]
        self.lib.hipGetErrorString.restype = ctypes.c_char_p
        for fn in ("hipModuleLoadData", "hipModuleGetFunction",
                   "hipModuleLaunchKernel", "hipModuleUnload"):
            getattr(self.lib, fn).restype = ctypes.c_int

    def check(self, err: int, what: str) -> None:
        if err:
            raise RuntimeError("%s failed: %s (hipError_t %d)" % (
                what, self.lib.hipGetErrorString(err).decode(), err))


_RUNTIME = None


def runtime() -> HipRuntime:
    global _RUNTIME
    if _RUNTIME is None:
        _RUNTIME = HipRuntime()
    return _RUNTIME


class HipModule:
    """A HSACO loaded on the current HIP device with its launch recipe
    (``kernel_abi.launch_list``): ``launch(launches, stream)`` runs what
    ``kernel_abi.bind`` made of it, in order, on the ``hipStream_t``
    `stream` (an int; 0 is the null stream)."""

    def __init__(self, code: bytes, kernels, hip: Optional[HipRuntime] = None):
        self.hip = hip or runtime()
        self.image = ctypes.create_string_buffer(code, len(code))
        self.module = ctypes.c_void_p()
        self.hip.check(self.hip.lib.hipModuleLoadData(
            ctypes.byref(self.module), self.image), "hipModuleLoadData")
        self.functions = {}
        for k in kernels:
            fn = ctypes.c_void_p()
            self.hip.check(self.hip.lib.hipModuleGetFunction(
                ctypes.byref(fn), self.module, k["name"].encode()),
                "hipModuleGetFunction(%s)" % k["name"])
            self.functions[k["name"]] = fn

    def launch(self, launches, stream: int = 0) -> None:
        for l in launches:
            buf = pack_kernargs(l.args)
            args = ctypes.create_string_buffer(buf, len(buf))
            size = ctypes.c_size_t(len(buf))
            extra = (ctypes.c_void_p * 5)(
                HIP_LAUNCH_PARAM_BUFFER_POINTER,
                ctypes.cast(args, ctypes.c_void_p),
                HIP_LAUNCH_PARAM_BUFFER_SIZE,
                ctypes.cast(ctypes.byref(size), ctypes.c_void_p),
                HIP_LAUNCH_PARAM_END)
            self.hip.check(self.hip.lib.hipModuleLaunchKernel(
                self.functions[l.kernel], *l.grid, *l.block, l.shared,
                ctypes.c_void_p(stream), None, extra),
                "hipModuleLaunchKernel(%s)" % l.kernel)

    def __del__(self):
        module = getattr(self, "module", None)
        if module is not None and module.value:
            self.hip.lib.hipModuleUnload(module)
