"""Drive ``rocke-opt`` on emitted MLIR.

Pipelines plug in by name: whatever ``rocke-opt --help`` lists under
"Pass Pipelines:" (or "Passes:") at call time can be passed as
``pipeline="fmha-..."``.  Short aliases ``"hsaco"``/``"ptx"`` resolve to a
registered ``fmha-*`` pipeline whose name contains them.  Pipeline options
named like spec fields (``chip``, ``strategy``, ...) are filled from the spec
automatically when the pipeline's help lists them.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from functools import lru_cache
from pathlib import Path
from typing import Dict, Iterable, List, Mapping, Optional, Union

__all__ = ["CompileError", "RockeOptNotFound", "find_rocke_opt",
           "available_pipelines", "resolve_pipeline", "auto_pipeline",
           "compile", "compile_binary", "binary_pipeline"]

_REPO = Path(__file__).resolve().parents[2]


class CompileError(RuntimeError):
    """rocke-opt failed; ``diagnostic`` holds its stderr."""

    def __init__(self, message: str, diagnostic: str = "", returncode=None,
                 command=None):
        super().__init__(message + ("\n" + diagnostic if diagnostic else ""))
        self.diagnostic = diagnostic
        self.returncode = returncode
        self.command = command


class RockeOptNotFound(FileNotFoundError):
    pass


def find_rocke_opt(rocke_opt: Optional[str] = None) -> str:
    """Path to rocke-opt: argument, $ROCKE_OPT, PATH, then <repo>/build/bin."""
    cands = []
    if rocke_opt:
        cands.append(rocke_opt)
    elif os.environ.get("ROCKE_OPT"):
        cands.append(os.environ["ROCKE_OPT"])
    else:
        w = shutil.which("rocke-opt")
        if w:
            cands.append(w)
        cands.append(str(_REPO / "build" / "bin" / "rocke-opt"))
    for c in cands:
        p = shutil.which(c) or (c if os.path.isfile(c) and
                                os.access(c, os.X_OK) else None)
        if p:
            return p
    raise RockeOptNotFound(
        "rocke-opt not found (tried: %s); pass rocke_opt=, set $ROCKE_OPT, "
        "or build it into %s" % (", ".join(cands) or "<none>",
                                  _REPO / "build" / "bin"))


@lru_cache(maxsize=8)
def _help(rocke_opt: str) -> str:
    r = subprocess.run([rocke_opt, "--help"], capture_output=True, text=True)
    return r.stdout


def _parse_section(text: str, header: str) -> Dict[str, List[str]]:
    """{name: [option names]} for entries under a '--help' section."""
    out: Dict[str, List[str]] = {}
    lines = text.splitlines()
    try:
        start = next(i for i, l in enumerate(lines) if l.strip() == header)
    except StopIteration:
        return out
    indent = len(lines[start]) - len(lines[start].lstrip())
    cur = None
    for l in lines[start + 1:]:
        if not l.strip():
            continue
        ind = len(l) - len(l.lstrip())
        if l.lstrip().startswith("="):  # enum values of an option
            continue
        if ind <= indent:
            break
        m = re.match(r"\s*--([\w.\-]+)", l)
        if not m:
            continue
        if ind == indent + 2:
            cur = m.group(1)
            out[cur] = []
        elif cur is not None:
            out[cur].append(m.group(1))
    return out


def available_pipelines(rocke_opt: Optional[str] = None,
                        include_passes: bool = False) -> Dict[str, List[str]]:
    """Pipelines (optionally passes) registered in rocke-opt, with options."""
    text = _help(find_rocke_opt(rocke_opt))
    res = _parse_section(text, "Pass Pipelines:")
    if include_passes:
        for k, v in _parse_section(text, "Passes:").items():
            res.setdefault(k, v)
    return res


def resolve_pipeline(name: str, rocke_opt: Optional[str] = None) -> str:
    """Map a pipeline name or alias to a registered pipeline/pass name."""
    reg = available_pipelines(rocke_opt, include_passes=True)
    if name in reg:
        return name
    if "fmha-" + name in reg:
        return "fmha-" + name
    hits = sorted(p for p in reg if p.startswith("fmha-") and name in p)
    if len(hits) == 1:
        return hits[0]
    fmha = sorted(p for p in reg if p.startswith("fmha-"))
    raise CompileError(
        "pipeline %r is not registered in rocke-opt%s; registered fmha "
        "pipelines/passes: %s" % (name, (" (ambiguous: %s)" % ", ".join(hits))
                                   if hits else "",
                                   ", ".join(fmha) or "<none>"))


_TARGET_KEYS = {"rocm": ("hsaco", "rocdl", "amdgpu", "rocm"),
                "cuda": ("ptx", "nvvm", "cuda", "cubin")}


def _end_to_end_pipeline(target: str, reg) -> Optional[str]:
    """The registered fmha op -> code object pipeline of ``target`` ("rocm"
    or "cuda"), or None. An fmha spec wants it, not a finish that expects
    gpu-level kernels (and rejects fmha ops)."""
    for key in _TARGET_KEYS[target]:
        if "fmha-bwd-" + key in reg:
            return "fmha-bwd-" + key
    return None


def auto_pipeline(spec, rocke_opt: Optional[str] = None) -> str:
    """The registered fmha-* pipeline for the spec's target (by chip)."""
    keys = _TARGET_KEYS[spec.target]
    reg = available_pipelines(rocke_opt)
    end_to_end = _end_to_end_pipeline(spec.target, reg)
    if end_to_end:
        return end_to_end
    for key in keys:
        hits = sorted(p for p in reg if p.startswith("fmha-") and key in p)
        if hits:
            return hits[0]
    raise CompileError(
        "no fmha-* pipeline for chip %s (%s) is registered in rocke-opt; "
        "registered fmha pipelines: %s" % (
            spec.chip, spec.target,
            ", ".join(sorted(p for p in reg if p.startswith("fmha-")))
            or "<none>"))


def _fmt_opt(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _named_pipeline(spec, names: Iterable[str], exe: str,
                    options: Optional[Mapping[str, object]]) -> str:
    """``a{opts},b{opts}`` for registered pipeline names, with the options
    each declares filled from the spec and ``options``."""
    reg = available_pipelines(exe, include_passes=True)
    parts = []
    for n in names:
        # With a spec (fmha ops), a target alias ("hsaco", "ptx", ...) means
        # the target's end-to-end pipeline where one is registered.
        target = next((t for t, keys in _TARGET_KEYS.items() if n in keys),
                      None)
        end_to_end = (_end_to_end_pipeline(target, reg)
                      if spec is not None and target else None)
        n = end_to_end or resolve_pipeline(n, exe)
        opts: Dict[str, object] = {}
        declared = reg.get(n, [])
        if spec is not None:
            for o in declared:
                attr = o.replace("-", "_")
                if hasattr(spec, attr) and getattr(spec, attr) is not None:
                    opts[o] = getattr(spec, attr)
        for k, v in (options or {}).items():
            opts[k] = v
        unknown = [k for k in (options or {}) if k not in declared]
        if unknown:
            raise CompileError(
                "pipeline %r has no option(s) %s; it declares: %s"
                % (n, ", ".join(unknown), ", ".join(declared) or "<none>"))
        body = " ".join("%s=%s" % (k, _fmt_opt(v)) for k, v in opts.items())
        parts.append(n + ("{%s}" % body if body else ""))
    return ",".join(parts)


def compile(spec_or_text, pipeline: Optional[Union[str, Iterable[str]]] = None,
            rocke_opt: Optional[str] = None, *, forward: bool = False,
            options: Optional[Mapping[str, object]] = None,
            extra_args: Iterable[str] = (), timeout: Optional[float] = 600
            ) -> str:
    """Run rocke-opt on a spec (``spec.to_mlir(forward)``) or MLIR text.

    ``pipeline``: None (parse + verify only), ``"auto"`` (the registered
    fmha-* pipeline matching the spec's chip), a registered name or alias
    (``"fmha-..."``, ``"hsaco"``, ``"ptx"``), a full textual pipeline
    (``"builtin.module(...)"``), or a list of names run in order.
    ``options`` are that named pipeline's options; options the pipeline
    declares and the spec has (chip, strategy, ...) are filled from the spec.
    Returns rocke-opt's stdout; raises CompileError with its diagnostic.
    """
    exe = find_rocke_opt(rocke_opt)
    spec = None
    if hasattr(spec_or_text, "to_mlir"):
        spec = spec_or_text
        text = spec.to_mlir(forward=forward)
    else:
        text = str(spec_or_text)

    if pipeline == "auto":
        if spec is None:
            raise CompileError("pipeline='auto' needs a spec, not MLIR text")
        pipeline = auto_pipeline(spec, exe)
    args: List[str] = []
    if pipeline is not None:
        if isinstance(pipeline, str) and "(" in pipeline:
            args.append("--pass-pipeline=" + pipeline)
        else:
            names = [pipeline] if isinstance(pipeline, str) else list(pipeline)
            args.append("--pass-pipeline=builtin.module(%s)"
                        % _named_pipeline(spec, names, exe, options))
    args.extend(extra_args)
    cmd = [exe] + args
    try:
        r = subprocess.run(cmd, input=text, capture_output=True, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired as e:
        raise CompileError("rocke-opt timed out after %ss" % timeout,
                           command=cmd) from e
    if r.returncode != 0:
        raise CompileError("rocke-opt failed (exit %d): %s"
                           % (r.returncode, " ".join(cmd)), r.stderr.strip(),
                           r.returncode, cmd)
    return r.stdout


def binary_pipeline(spec, rocke_opt: Optional[str] = None,
                    options: Optional[Mapping[str, object]] = None) -> str:
    """The pipeline (text inside ``builtin.module(...)``) that compiles a
    spec end to end for its chip, with its options filled from the spec and
    ``options``; ``compile_binary`` appends ``fmha-dump-binary`` to it."""
    exe = find_rocke_opt(rocke_opt)
    return _named_pipeline(spec, [auto_pipeline(spec, exe)], exe, options)


def compile_binary(spec, rocke_opt: Optional[str] = None,
                   options: Optional[Mapping[str, object]] = None,
                   timeout: Optional[float] = 600, *, forward: bool = False,
                   output: Optional[str] = None):
    """Compile a spec end to end for its chip: ``(code, description)``.

    ``code`` is the HSACO (AMD chips) or PTX (NVIDIA chips) as bytes;
    ``description`` the parsed ``fmha-dump-binary`` JSON sidecar: the kernels
    in launch order with their arguments, grid / block expressions and
    resource counts. ``forward=True`` compiles ``spec.to_mlir(forward=True)``
    (the forward) instead of the backward. ``output``: where the code is
    written (the sidecar next to it, ``output + ".json"``); a temporary
    directory by default.
    """
    import json
    import tempfile
    exe = find_rocke_opt(rocke_opt)
    body = binary_pipeline(spec, exe, options)
    with tempfile.TemporaryDirectory(prefix="rocke-") as tmp:
        out = output or os.path.join(
            tmp, "kernel." + ("hsaco" if spec.target == "rocm" else "ptx"))
        compile(spec, "builtin.module(%s,fmha-dump-binary{output=%s})"
                % (body, out), exe, forward=forward, timeout=timeout,
                extra_args=("-o", os.devnull))
        with open(out, "rb") as f:
            code = f.read()
        with open(out + ".json") as f:
            desc = json.load(f)
    return code, desc
