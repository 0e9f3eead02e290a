// ptxas accepts the warpgroup products of the sm_90a tiled backward (its
// inline wgmma PTX, the register ties through wgmma.wait_group, the proxy
// fences): the passes of fmha-bwd-nvvm, then fmha-nvvm-to-ptx with
// format=bin.
// REQUIRES: ptxas
// RUN: rocke-opt %S/Inputs/attention_bwd_bf16.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-to-kernels{chip=sm_90a subgroup-size=32 strategy=tiled end-to-end=true forward=true},fmha-lower-tile-copies,fmha-split-workgroup-tiles,fmha-distribute-tiles,fmha-defer-warpgroup-waits,fmha-lower-subgroup-reduce{subgroup-size=32},fmha-lower-mma,fmha-nvvm-to-ptx{chip=sm_90a format=bin},fmha-dump-binary{output=%t.cubin})'
// RUN: llvm-readelf -h -s %t.cubin | FileCheck %s
// CHECK: Machine: NVIDIA CUDA architecture
// CHECK: Flags: {{.*}}sm_90
// CHECK-DAG: FUNC {{.*}} fmha_bwd_tiled_main
// CHECK-DAG: FUNC {{.*}} fmha_bwd_preprocess
// CHECK-DAG: FUNC {{.*}} fmha_bwd_convert_dq
