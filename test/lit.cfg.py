# -*- Python -*-
import os

import lit.formats
from lit.llvm import llvm_config

config.name = "ROCKE"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.rocke_obj_root, "test")
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py.in", "Inputs", "unit"]

config.substitutions.append(("%rocke_src", config.rocke_src_root))
# The warp strategy on the CPU (one lane per workgroup), after the tiled
# forward (forward=true) whose O and statistics it consumes.
config.substitutions.append(
    ("%warp_host",
     "fmha-bwd-to-kernels{strategy=warp target=host forward=true},"
     "fmha-lower-tile-copies,fmha-split-workgroup-tiles,fmha-distribute-tiles,fmha-lower-mma,fmha-lower-to-loops"))
# The tiled forward and backward on the CPU (host matrix atom, one lane per
# workgroup).
config.substitutions.append(
    ("%tiled_host",
     "fmha-bwd-to-kernels{strategy=tiled target=host block-q=16 block-kv=32 "
     "forward=true},"
     "fmha-lower-tile-copies,fmha-split-workgroup-tiles,fmha-distribute-tiles,fmha-lower-mma,fmha-lower-to-loops"))
# The tiled forward with each KV block's scores in two slices
# (fwd-kv-slices=2, as sm_90a's warpgroup forward at Dv >= 128): the
# slices' masks, dropout and online softmax on the CPU.
config.substitutions.append(
    ("%fwd_sliced_host",
     "fmha-bwd-to-kernels{strategy=tiled target=host block-q=16 block-kv=32 "
     "forward=true fwd-block-kv=32 fwd-kv-slices=2},"
     "fmha-lower-tile-copies,fmha-split-workgroup-tiles,fmha-distribute-tiles,fmha-lower-mma,fmha-lower-to-loops"))
# The same with the schedules MFMA targets run: backward scores held as S [q
# x kv] (score-layout=q-kv), Q and dO staged as rows and transposed, K in
# registers (operand-staging=transposed-copies); forward scores as S^T [kv x
# q] with P^T the B operand of O^T = V^T P^T (fwd-score-layout=kv-q): checks
# their register reuse and staging on the CPU.
config.substitutions.append(
    ("%tiled_mfma_host",
     "fmha-bwd-to-kernels{strategy=tiled target=host block-q=16 block-kv=32 "
     "score-layout=q-kv operand-staging=transposed-copies forward=true "
     "fwd-score-layout=kv-q},"
     "fmha-lower-tile-copies,fmha-split-workgroup-tiles,fmha-distribute-tiles,fmha-lower-mma,fmha-lower-to-loops"))
# The forward and backward as gfx950 schedules them (fwd-operand-staging=
# transposing-reads: V staged as rows, V^T read down their columns, which
# the chip's transposed LDS reads do; fwd-kv-pipelining=registers: the next
# K and V blocks fetched into registers while this one computes, as on
# gfx950; the backward's scores as S [q x kv] with Q, dO and K staged as
# rows only, dO, Q and K^T read down their columns (score-layout=q-kv
# operand-staging=transposing-reads); fmha-contract-multiply-adds:
# multiply-adds contracted, as on the GPUs): checks that staging, pipelining
# and arithmetic on the CPU.
config.substitutions.append(
    ("%fwd_value_rows_host",
     "fmha-bwd-to-kernels{strategy=tiled target=host block-q=16 block-kv=32 "
     "score-layout=q-kv operand-staging=transposing-reads "
     "forward=true fwd-score-layout=kv-q fwd-operand-staging=transposing-reads "
     "fwd-kv-pipelining=registers},"
     "fmha-pipeline-tile-fetches,fmha-lower-tile-copies,fmha-split-workgroup-tiles,fmha-distribute-tiles,fmha-lower-mma,fmha-lower-to-loops,"
     "fmha-contract-multiply-adds"))
# The same with each KV loop's first block also placed before the loop
# (fmha-pipeline-tile-fetches place-first, as on gfx942): checks the cloned
# placement and the repeated one of the first iteration on the CPU.
config.substitutions.append(
    ("%fwd_place_first_host",
     "fmha-bwd-to-kernels{strategy=tiled target=host block-q=16 block-kv=32 "
     "score-layout=q-kv operand-staging=transposing-reads "
     "forward=true fwd-score-layout=kv-q fwd-operand-staging=transposing-reads "
     "fwd-kv-pipelining=registers},"
     "fmha-pipeline-tile-fetches{place-first=true},fmha-lower-tile-copies,fmha-split-workgroup-tiles,fmha-distribute-tiles,fmha-lower-mma,fmha-lower-to-loops,"
     "fmha-contract-multiply-adds"))
llvm_config.use_default_substitutions()

tool_dirs = [os.path.join(config.rocke_obj_root, "bin"), config.llvm_tools_dir]
llvm_config.add_tool_substitutions(
    ["rocke-opt", "rocke-report", "rocke-run", "rocke-unittests", "FileCheck", "not", "count", "llvm-objdump", "llvm-readelf", "llvm-strip"],
    tool_dirs)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

# rocke-report's estimate runs the llvm-mca found at configure time.
if os.path.isfile(config.rocke_llvm_mca):
    config.available_features.add("llvm-mca")

# NVVM cubin tests need CUDA's ptxas (PATH or /usr/local/cuda/bin).
import shutil
ptxas = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
if os.path.exists(ptxas):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
