// RUN: rocke-opt %s -split-input-file -pass-pipeline='builtin.module(gpu.module(fmha-rocdl-float-mode))' | FileCheck %s
// RUN: rocke-opt %s -split-input-file -pass-pipeline='builtin.module(gpu.module(fmha-rocdl-float-mode,fmha-rocdl-float-mode))' | FileCheck %s

// Kernels get IEEE mode off (once, after the passthrough attributes they
// have); the arithmetic (fmha-contract-multiply-adds' business) and
// non-kernel functions' attributes stay.
// CHECK-LABEL: gpu.module @kernels
// CHECK-LABEL: gpu.func @kernel
// CHECK-SAME: passthrough = {{\[\["amdgpu-waves-per-eu", "1,2"\], \["amdgpu-ieee", "false"\]\]}}
// CHECK: arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK: arith.subf %{{.*}}, %{{.*}} : f32
// CHECK-LABEL: gpu.func @helper
// CHECK-NOT: passthrough
gpu.module @kernels {
  gpu.func @kernel(%x: f32, %y: f32, %m: f32, %v: vector<4xf32>,
                   %out: memref<4xf32>) kernel
      attributes {passthrough = [["amdgpu-waves-per-eu", "1,2"]]} {
    %c0 = arith.constant 0 : index
    %s = arith.mulf %x, %y : f32
    %d = arith.subf %s, %m : f32
    %w = arith.addf %v, %v : vector<4xf32>
    %r = arith.mulf %d, %x fastmath<arcp> : f32
    %q = arith.divf %r, %y : f32
    %mx = arith.maxnumf %q, %m : f32
    memref.store %mx, %out[%c0] : memref<4xf32>
    vector.store %w, %out[%c0] : memref<4xf32>, vector<4xf32>
    gpu.return
  }
  gpu.func @helper(%x: f32) -> f32 {
    %a = arith.addf %x, %x : f32
    gpu.return %a : f32
  }
}

// -----

// A kernel without passthrough attributes gets them.
// CHECK-LABEL: gpu.func @bare
// CHECK-SAME: passthrough = {{\[\["amdgpu-ieee", "false"\]\]}}
gpu.module @bare_kernels {
  gpu.func @bare() kernel {
    gpu.return
  }
}
