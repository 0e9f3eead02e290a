// RUN: rocke-opt %s -split-input-file -fmha-rocdl-truncf-bf16 | FileCheck %s
// RUN: rocke-opt %s -split-input-file -fmha-rocdl-truncf-bf16 -canonicalize | FileCheck %s --check-prefix=FOLDED

// f32 -> bf16 as bits + 0x7fff + bit 16, the high half: no NaN compare or
// select (LLVM's expansion on chips without a conversion instruction).
// CHECK-LABEL: func.func @vector
// CHECK: %[[BITS:.*]] = arith.bitcast %arg0 : vector<4xf32> to vector<4xi32>
// CHECK: %[[SHIFT:.*]] = arith.shrui %[[BITS]], %{{.*}} : vector<4xi32>
// CHECK: %[[LOWEST:.*]] = arith.andi %[[SHIFT]], %{{.*}} : vector<4xi32>
// CHECK: %[[BIAS:.*]] = arith.addi %[[LOWEST]], %{{.*}} : vector<4xi32>
// CHECK: %[[ROUNDED:.*]] = arith.addi %[[BITS]], %[[BIAS]] : vector<4xi32>
// CHECK: %[[HIGH:.*]] = arith.shrui %[[ROUNDED]], %{{.*}} : vector<4xi32>
// CHECK: %[[HALF:.*]] = arith.trunci %[[HIGH]] : vector<4xi32> to vector<4xi16>
// CHECK: arith.bitcast %[[HALF]] : vector<4xi16> to vector<4xbf16>
// CHECK-NOT: arith.truncf
func.func @vector(%x: vector<4xf32>) -> vector<4xbf16> {
  %y = arith.truncf %x : vector<4xf32> to vector<4xbf16>
  return %y : vector<4xbf16>
}

// -----

// Other conversions stay.
// CHECK-LABEL: func.func @others
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: arith.truncf %{{.*}} to_nearest_away : f32 to bf16
func.func @others(%x: f32) -> (f16, bf16) {
  %h = arith.truncf %x : f32 to f16
  %b = arith.truncf %x to_nearest_away : f32 to bf16
  return %h, %b : f16, bf16
}

// -----

// Folded, the rounding gives the round-to-nearest-even bf16 values: exact
// values, ties to even both ways (0x3F80, 0x3F82), the largest finite value
// and one past the midpoint to infinity, -0, -infinity, the canonical NaN
// and a denormal (0x000116C2 -> 0x0001).
// FOLDED-LABEL: func.func @values
// FOLDED: arith.constant dense<[1.000000e+00, 1.000000e+00, 1.015630e+00, 3.389530e+38, 0x7F80, -0.000000e+00, 0xFF80, 0x7FC0, 9.183550e-41]> : vector<9xbf16>
func.func @values() -> vector<9xbf16> {
  %x = arith.constant dense<[1.0, 1.00390625, 1.01171875, 3.3895e38, 3.4e38, -0.0, 0xFF800000, 0x7FC00000, 1.0e-40]> : vector<9xf32>
  %y = arith.truncf %x : vector<9xf32> to vector<9xbf16>
  return %y : vector<9xbf16>
}
