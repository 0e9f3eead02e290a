// RUN: rocke-opt %s -split-input-file -verify-diagnostics -pass-pipeline='builtin.module(gpu.module(fmha-declare-dynamic-shared-memory))' -o /dev/null

// A zero-length shared global with an initializer is no dynamic region.
gpu.module @initialised {
  // expected-error @below {{fmha-declare-dynamic-shared-memory: the zero-length shared-memory global has an initializer; the launch's dynamic shared memory cannot}}
  llvm.mlir.global internal @__dynamic_shmem__0() {addr_space = 3 : i32} : !llvm.array<0 x i8> {
    %0 = llvm.mlir.undef : !llvm.array<0 x i8>
    llvm.return %0 : !llvm.array<0 x i8>
  }
}
