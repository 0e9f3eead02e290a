"""Kernels compiled by rocke-opt on first use and kept on disk.

An entry is the code object (PTX for NVIDIA chips, HSACO for AMD ones) and
fmha-dump-binary's JSON sidecar (the launch recipe), under
``<cache>/<key>/``, where ``<cache>`` is ``$ROCKE_CACHE_DIR`` (default
``~/.cache/rocke``) and ``<key>`` a hash of everything that changes the
code: the MLIR text of the spec (which carries the chip), the pipeline with
its options, the chip, and the compiler build (a hash of ``rocke-opt
--version`` and of the rocke-opt binary itself). Entries are written to a
temporary directory and renamed into place, so concurrent processes (one
per GPU) share a cache safely: a reader sees a whole entry or none.

Where rocke-opt is not found (a GPU machine the compiler was not copied
to), kernels built elsewhere serve: an entry of the same MLIR text (which
names the chip) is taken from the cache, the newest if several builds made
one. Build them with ``cached_kernels`` (or ``rocke.torch.prebuild``) where
rocke-opt is, then copy the cache directory over.
"""
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple, Optional

from .compile import (RockeOptNotFound, binary_pipeline, compile_binary,
                      find_rocke_opt)
from .kernel_abi import launch_list

__all__ = ["cache_dir", "compiler_identity", "cache_key", "CachedKernels",
           "cached_kernels"]

CACHE_ENV = "ROCKE_CACHE_DIR"
# Bumped when the layout of an entry changes.
ENTRY_FORMAT = 1


def cache_dir(directory: Optional[str] = None) -> Path:
    """The cache root: `directory`, ``$ROCKE_CACHE_DIR``, or
    ``~/.cache/rocke``."""
    return Path(directory or os.environ.get(CACHE_ENV) or
                Path.home() / ".cache" / "rocke")


@lru_cache(maxsize=None)
def _identity(path: str, size: int, mtime_ns: int) -> str:
    version = subprocess.run([path, "--version"], capture_output=True,
                             text=True).stdout
    h = hashlib.sha256(version.encode())
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def compiler_identity(rocke_opt: str) -> str:
    """A hash of ``rocke-opt --version`` and the binary's bytes (hashed once
    per process and build: keyed by path, size and modification time)."""
    path = os.path.realpath(rocke_opt)
    st = os.stat(path)
    return _identity(path, st.st_size, st.st_mtime_ns)


def cache_key(mlir: str, pipeline: str, chip: str, compiler: str) -> str:
    """The entry name of the code compiled from `mlir` by `pipeline` for
    `chip` with the compiler build `compiler` (``compiler_identity``)."""
    text = json.dumps([ENTRY_FORMAT, mlir, pipeline, chip, compiler])
    return hashlib.sha256(text.encode()).hexdigest()[:32]


class CachedKernels(NamedTuple):
    """A cache entry: its key and directory, the code file and the launch
    recipe (``kernel_abi.launch_list`` of the sidecar)."""
    key: str
    directory: Path
    code_path: Path
    kernels: list


def _code_name(spec) -> str:
    return "kernel." + ("hsaco" if spec.target == "rocm" else "ptx")


def cached_kernels(spec, forward: bool, rocke_opt: Optional[str] = None,
                   directory: Optional[str] = None) -> CachedKernels:
    """The kernels of ``spec.to_mlir(forward=forward)`` for the spec's chip:
    from the cache, or compiled by rocke-opt (``compile_binary``) and stored
    there first; without rocke-opt, an entry built elsewhere for the same
    MLIR (``prebuilt_entry``). Raises ``CompileError`` /
    ``RockeOptNotFound`` as ``compile_binary`` does."""
    mlir = spec.to_mlir(forward=forward)
    root = cache_dir(directory)
    try:
        exe = find_rocke_opt(rocke_opt)
    except RockeOptNotFound as e:
        entry = prebuilt_entry(root, mlir)
        if entry is None:
            raise RockeOptNotFound(
                "%s; and the kernel cache %s holds no kernels built for this "
                "problem (build them where rocke-opt is, with "
                "rocke.torch.prebuild or a first call, and copy the cache "
                "over):\n%s" % (e, root, mlir)) from None
    else:
        pipeline = binary_pipeline(spec, exe)
        key = cache_key(mlir, pipeline, spec.chip, compiler_identity(exe))
        entry = root / key
        if not (entry / (_code_name(spec) + ".json")).is_file():
            _build(spec, forward, exe, mlir, pipeline, root, entry)
    code_path = entry / _code_name(spec)
    with open(str(code_path) + ".json") as f:
        kernels = launch_list(json.load(f))
    return CachedKernels(entry.name, entry, code_path, kernels)


def prebuilt_entry(root: Path, mlir: str) -> Optional[Path]:
    """The newest entry under `root` compiled from the MLIR text `mlir`,
    whatever the compiler build, or None."""
    found = []
    if root.is_dir():
        for entry in root.iterdir():
            spec_file = entry / "spec.mlir"
            if not entry.name.startswith(".") and spec_file.is_file() and \
                    spec_file.read_text() == mlir:
                found.append((spec_file.stat().st_mtime, entry))
    return max(found)[1] if found else None


def _build(spec, forward, exe, mlir, pipeline, root, entry):
    """Compile into a temporary directory under `root`, then rename it to
    `entry` (another process may have done so first)."""
    name = _code_name(spec)
    code, desc = compile_binary(spec, exe, forward=forward)
    root.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".tmp-" + entry.name, dir=root))
    try:
        (tmp / name).write_bytes(code)
        (tmp / (name + ".json")).write_text(json.dumps(desc, indent=1))
        (tmp / "spec.mlir").write_text(mlir)
        (tmp / "pipeline.txt").write_text(pipeline + "\n")
        try:
            os.rename(tmp, entry)
        except OSError:
            if not (entry / (name + ".json")).is_file():  # not a racer's
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
