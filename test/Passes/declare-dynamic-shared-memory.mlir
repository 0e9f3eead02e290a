// fmha-declare-dynamic-shared-memory makes the zero-length shared-memory
// globals (convert-gpu-to-nvvm's dynamic shared memory) external
// declarations, PTX's `.extern .shared` arrays that ptxas places after the
// static shared variables, and raises their alignment to the option's (never
// lowers one); sized or other globals stay as they are.
// RUN: rocke-opt %s -split-input-file -pass-pipeline='builtin.module(gpu.module(fmha-declare-dynamic-shared-memory))' | FileCheck %s
// RUN: rocke-opt %s -split-input-file -pass-pipeline='builtin.module(gpu.module(fmha-declare-dynamic-shared-memory{alignment=128}))' | FileCheck %s --check-prefix=SMALL
// RUN: not rocke-opt %s -split-input-file -pass-pipeline='builtin.module(gpu.module(fmha-declare-dynamic-shared-memory{alignment=48}))' 2>&1 | FileCheck %s --check-prefix=BAD

// CHECK-LABEL: gpu.module @kernels
// CHECK: llvm.mlir.global external @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// CHECK: llvm.mlir.global external @wide() {addr_space = 3 : i32, alignment = 4096 : i64} : !llvm.array<0 x i8>
// CHECK: llvm.mlir.global internal @__mbarrier() {addr_space = 3 : i32, alignment = 8 : i64} : !llvm.array<4 x i64>
// CHECK: llvm.mlir.global internal @global_memory() {addr_space = 1 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// SMALL: @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 128 : i64}
// BAD: error: fmha-declare-dynamic-shared-memory: alignment 48 is not a positive power of two
gpu.module @kernels {
  llvm.mlir.global internal @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
  llvm.mlir.global internal @wide() {addr_space = 3 : i32, alignment = 4096 : i64} : !llvm.array<0 x i8>
  llvm.mlir.global internal @__mbarrier() {addr_space = 3 : i32, alignment = 8 : i64} : !llvm.array<4 x i64>
  llvm.mlir.global internal @global_memory() {addr_space = 1 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
}

