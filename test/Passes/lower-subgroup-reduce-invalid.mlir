// RUN: rocke-opt %s -split-input-file -verify-diagnostics -pass-pipeline='builtin.module(gpu.module(fmha-lower-subgroup-reduce{subgroup-size=32}))'
// RUN: not rocke-opt %s -split-input-file -pass-pipeline='builtin.module(gpu.module(fmha-lower-subgroup-reduce{subgroup-size=48}))' 2>&1 | FileCheck %s --check-prefix=POW2

// POW2: subgroup-size must be a power of two, got 48

gpu.module @m {
  func.func @f64(%x: f64) -> f64 {
    // expected-error @below {{cannot be lowered to 32-bit shuffles (operand type 'f64')}}
    %r = gpu.subgroup_reduce add %x : (f64) -> f64
    return %r : f64
  }
}

// -----

gpu.module @m {
  func.func @too_wide(%x: f32) -> f32 {
    // expected-error @below {{cluster of 64 lanes (stride 1) does not fit a subgroup of 32 lanes}}
    %r = gpu.subgroup_reduce add %x cluster(size = 64) : (f32) -> f32
    return %r : f32
  }
}
