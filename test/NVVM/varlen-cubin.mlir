// ptxas assembles the packed (varlen) forward and backward kernels for
// sm_90a (format=bin).
// REQUIRES: ptxas
// RUN: rocke-opt %S/Inputs/varlen_fwd_bwd_bf16_d128_causal.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-to-kernels{chip=sm_90a subgroup-size=32 strategy=tiled end-to-end=true forward=true},fmha-lower-tile-copies,fmha-split-workgroup-tiles,fmha-distribute-tiles,fmha-defer-warpgroup-waits,fmha-lower-subgroup-reduce{subgroup-size=32},fmha-lower-mma,fmha-nvvm-to-ptx{chip=sm_90a format=bin},fmha-dump-binary{output=%t.cubin})'
// RUN: llvm-readelf -h -s %t.cubin | FileCheck %s
// CHECK: Machine: NVIDIA CUDA architecture
// CHECK-DAG: fmha_fwd_tiled_main
// CHECK-DAG: fmha_bwd_preprocess
// CHECK-DAG: fmha_bwd_tiled_main
// CHECK-DAG: fmha_bwd_convert_dq
