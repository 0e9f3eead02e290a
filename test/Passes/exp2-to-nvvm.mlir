// RUN: rocke-opt %s -split-input-file -pass-pipeline='builtin.module(gpu.module(fmha-exp2-to-nvvm))' | FileCheck %s

gpu.module @m {
  // CHECK-LABEL: func.func @exp2_f32
  // CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"(%{{.*}}) : (f32) -> f32
  // CHECK-NOT: math.exp2
  func.func @exp2_f32(%x: f32) -> f32 {
    %e = math.exp2 %x : f32
    return %e : f32
  }
  // CHECK-LABEL: func.func @exp2_f16_untouched
  // CHECK: math.exp2
  // CHECK-NOT: llvm.call_intrinsic
  func.func @exp2_f16_untouched(%x: f16) -> f16 {
    %e = math.exp2 %x : f16
    return %e : f16
  }
  // Whole-fragment softmax: one instruction per element.
  // CHECK-LABEL: func.func @exp2_vector_f32
  // CHECK-COUNT-4: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
  // CHECK: vector.from_elements
  // CHECK-NOT: math.exp2
  func.func @exp2_vector_f32(%x: vector<4xf32>) -> vector<4xf32> {
    %e = math.exp2 %x : vector<4xf32>
    return %e : vector<4xf32>
  }
}
