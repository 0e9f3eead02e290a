// ptxas accepts the warpgroup products of the sm_90a tiled forward (and of
// the backward after it): the forward -> backward chain through the passes
// of fmha-bwd-nvvm, then fmha-nvvm-to-ptx with format=bin.
// REQUIRES: ptxas
// RUN: rocke-opt %S/Inputs/fwd_bwd_bf16_d128_causal.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-to-kernels{chip=sm_90a subgroup-size=32 strategy=tiled end-to-end=true forward=true fwd-warpgroup-mma=auto},fmha-pipeline-tile-fetches,fmha-lower-tile-copies,fmha-split-workgroup-tiles,fmha-distribute-tiles,fmha-defer-warpgroup-waits,fmha-lower-subgroup-reduce{subgroup-size=32},fmha-lower-mma,fmha-nvvm-to-ptx{chip=sm_90a format=bin},fmha-dump-binary{output=%t.cubin})'
// RUN: llvm-readelf -h -s %t.cubin | FileCheck %s
// CHECK: Machine: NVIDIA CUDA architecture
// CHECK: Flags: {{.*}}sm_90
// CHECK-DAG: FUNC {{.*}} fmha_fwd_tiled_main
// CHECK-DAG: FUNC {{.*}} fmha_bwd_tiled_main
