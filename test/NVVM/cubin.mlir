// With ptxas available, format=bin gives an sm_90 cubin (ptxas assembles
// the red.global.add.v2/.v4.f32 of dq_runs).
// REQUIRES: ptxas
// RUN: rocke-opt %S/Inputs/bwd_kernels_nv.mlir -pass-pipeline='builtin.module(fmha-nvvm-to-ptx{chip=sm_90 format=bin},fmha-dump-binary{output=%t.cubin})' -o /dev/null
// RUN: llvm-readelf -h -s %t.cubin | FileCheck %s
// CHECK: Machine: NVIDIA CUDA architecture
// CHECK: Flags: {{.*}}sm_90
// CHECK-DAG: dq_accum
// CHECK-DAG: mma_bf16
// CHECK-DAG: dq_runs
