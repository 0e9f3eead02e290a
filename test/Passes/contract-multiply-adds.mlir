// RUN: rocke-opt %s -split-input-file -pass-pipeline='builtin.module(gpu.module(fmha-contract-multiply-adds))' | FileCheck %s
// RUN: rocke-opt %s -split-input-file -pass-pipeline='builtin.module(gpu.module(fmha-contract-multiply-adds,fmha-contract-multiply-adds))' | FileCheck %s
// RUN: rocke-opt %S/../NVVM/Inputs/fwd_bf16_d128_causal.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-nvvm{chip=sm_90a},fmha-dump-binary{output=%t.ptx})'
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx

// f32 adds, subtracts and multiplies get `contract` next to the flags they
// carry, scalar and vector, in kernels and other functions alike (once);
// other arithmetic stays.
// CHECK-LABEL: gpu.func @kernel
// CHECK: arith.mulf %{{.*}}, %{{.*}} fastmath<contract> : f32
// CHECK: arith.subf %{{.*}}, %{{.*}} fastmath<contract> : f32
// CHECK: arith.addf %{{.*}}, %{{.*}} fastmath<contract> : vector<4xf32>
// CHECK: arith.mulf %{{.*}}, %{{.*}} fastmath<arcp,contract> : f32
// CHECK: arith.divf %{{.*}}, %{{.*}} : f32
// CHECK: arith.maxnumf %{{.*}}, %{{.*}} : f32
// CHECK-LABEL: gpu.func @helper
// CHECK: arith.addf %{{.*}}, %{{.*}} fastmath<contract> : f32
gpu.module @kernels {
  gpu.func @kernel(%x: f32, %y: f32, %m: f32, %v: vector<4xf32>,
                   %out: memref<4xf32>) kernel {
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

// The NVIDIA forward's loop: the scores' s c - m are fused multiply-adds
// before each exp2 (fmha-nvvm-to-ptx runs the pass), no separately rounded
// multiply and subtract.
// PTX-LABEL: .entry fmha_fwd_tiled_main(
// PTX: fma.rn.f32
// PTX: ex2.approx
// PTX-NOT: sub.rn.f32
// PTX: ret;
