// RUN: rocke-opt %s -split-input-file -pass-pipeline='builtin.module(gpu.module(fmha-exp2-to-rocdl))' | FileCheck %s

gpu.module @m {
  // CHECK-LABEL: func.func @exp2_f32
  // CHECK: rocdl.exp2
  // CHECK-NOT: math.exp2
  func.func @exp2_f32(%x: f32) -> f32 {
    %e = math.exp2 %x : f32
    return %e : f32
  }
  // CHECK-LABEL: func.func @exp2_f16_untouched
  // CHECK: math.exp2
  func.func @exp2_f16_untouched(%x: f16) -> f16 {
    %e = math.exp2 %x : f16
    return %e : f16
  }
  // Whole-fragment softmax: one v_exp_f32 per element.
  // CHECK-LABEL: func.func @exp2_vector_f32
  // CHECK-COUNT-4: rocdl.exp2
  // CHECK: vector.from_elements
  // CHECK-NOT: math.exp2
  func.func @exp2_vector_f32(%x: vector<4xf32>) -> vector<4xf32> {
    %e = math.exp2 %x : vector<4xf32>
    return %e : vector<4xf32>
  }
  // CHECK-LABEL: func.func @rcp_fast
  // CHECK: rocdl.rcp
  func.func @rcp_fast(%x: f32) -> f32 {
    %one = arith.constant 1.0 : f32
    %r = arith.divf %one, %x fastmath<arcp> : f32
    return %r : f32
  }
  // CHECK-LABEL: func.func @rcp_exact_untouched
  // CHECK: arith.divf
  // CHECK-NOT: rocdl.rcp
  func.func @rcp_exact_untouched(%x: f32) -> f32 {
    %one = arith.constant 1.0 : f32
    %r = arith.divf %one, %x : f32
    return %r : f32
  }
}
