// RUN: rocke-opt %s -pass-pipeline='builtin.module(gpu.module(fmha-rocdl-native-atomics))' | FileCheck %s

gpu.module @m {
  // CHECK-LABEL: llvm.func @accumulate
  // CHECK: llvm.atomicrmw fadd %{{.*}}, %{{.*}} syncscope("agent") monotonic
  // CHECK-SAME: {rocdl.ignore_denormal_mode, rocdl.no_fine_grained_memory, rocdl.no_remote_memory}
  llvm.func @accumulate(%p: !llvm.ptr<1>, %v: f32) {
    %r = llvm.atomicrmw fadd %p, %v monotonic : !llvm.ptr<1>, f32
    llvm.return
  }

  // memref.atomic_rmw's acq_rel ordering is relaxed: no fences around adds.
  // CHECK-LABEL: llvm.func @relax
  // CHECK: llvm.atomicrmw fadd %{{.*}}, %{{.*}} syncscope("agent") monotonic
  llvm.func @relax(%p: !llvm.ptr<1>, %v: f32) {
    %r = llvm.atomicrmw fadd %p, %v acq_rel : !llvm.ptr<1>, f32
    llvm.return
  }
}
