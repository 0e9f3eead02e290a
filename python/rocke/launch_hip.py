"""AMD launcher: HSACO code objects through the HIP module API.

``hipModuleLoadData`` / ``hipModuleGetFunction`` / ``hipModuleLaunchKernel``
through ctypes on libamdhip64, the kernel arguments packed into one kernarg
buffer passed with ``HIP_LAUNCH_PARAM_BUFFER_POINTER``. The packing
(``rocke.kernel_abi``'s ``kernarg_layout`` / ``pack_kernargs``, shared with
the CUDA launcher) is pure Python, checked against the sidecar and the code
object's own metadata on any machine
(python/tests/test_launch_hip.py); the launches themselves have NOT run on
AMD hardware yet.

Importing this module needs no ROCm; ``HipModule`` raises ImportError with
an explanation when libamdhip64 cannot be loaded.
"""
import ctypes
import os
from typing import Optional

from .kernel_abi import (LaunchPlans, field_layout, kernarg_layout,
                         pack_kernargs, packed, param_buffer_extra)

__all__ = ["field_layout", "kernarg_layout", "pack_kernargs", "HipRuntime",
           "HipModule", "HIP_LAUNCH_PARAM_BUFFER_POINTER",
           "HIP_LAUNCH_PARAM_BUFFER_SIZE", "HIP_LAUNCH_PARAM_END"]

# hip_runtime_api.h: the `extra` array's markers.
HIP_LAUNCH_PARAM_BUFFER_POINTER = 0x01
HIP_LAUNCH_PARAM_BUFFER_SIZE = 0x02
HIP_LAUNCH_PARAM_END = 0x03
_MARKERS = (HIP_LAUNCH_PARAM_BUFFER_POINTER, HIP_LAUNCH_PARAM_BUFFER_SIZE,
            HIP_LAUNCH_PARAM_END)


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
    ``plans.get(env).pack`` (or ``kernel_abi.bind``) made of it, in order,
    on the ``hipStream_t`` `stream` (an int; 0 is the null stream)."""

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
        self.plans = LaunchPlans(kernels)

    def launch(self, launches, stream: int = 0) -> None:
        for l in launches:
            l = packed(l)
            block = param_buffer_extra(l.params, len(l.params), _MARKERS)
            self.hip.check(self.hip.lib.hipModuleLaunchKernel(
                self.functions[l.kernel], *l.grid, *l.block, l.shared,
                ctypes.c_void_p(stream), None, block.extra),
                "hipModuleLaunchKernel(%s)" % l.kernel)

    def __del__(self):
        module = getattr(self, "module", None)
        if module is not None and module.value:
            self.hip.lib.hipModuleUnload(module)
