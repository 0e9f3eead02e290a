"""rocke: Python front end for the fmha MLIR dialect.

* ``FmhaBwdSpec`` describes an attention problem; ``spec.to_mlir()`` emits it.
* ``compile(spec, pipeline=...)`` runs rocke-opt on it.
* ``rocke.reference`` is a NumPy float64 reference (forward and backward).
* ``rocke.launch_cuda`` loads PTX through CuPy when available.
"""
from .spec import (FmhaBwdSpec, FmhaSpec, Mask, DTYPES, HEAD_DIMS, MASK_KINDS,
                   CHIPS, STRATEGIES, LAYOUTS, STATS_ENCODINGS)
from .compile import (CompileError, RockeOptNotFound, auto_pipeline,
                      available_pipelines, binary_pipeline, compile,
                      compile_binary,
                      find_rocke_opt, resolve_pipeline)
from . import reference

__all__ = ["FmhaBwdSpec", "FmhaSpec", "Mask", "CompileError",
           "RockeOptNotFound", "auto_pipeline", "available_pipelines",
           "binary_pipeline", "compile", "compile_binary",
           "find_rocke_opt", "resolve_pipeline", "reference", "DTYPES",
           "HEAD_DIMS", "MASK_KINDS", "CHIPS", "STRATEGIES", "LAYOUTS",
           "STATS_ENCODINGS"]
