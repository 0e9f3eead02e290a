// RUN: rocke-opt %s -split-input-file -fmha-interleave-matrix-ops | FileCheck %s
// RUN: rocke-opt %s -split-input-file -fmha-interleave-matrix-ops='vector-ops-per-matrix-op=1' | FileCheck %s --check-prefix=ONE

// The work after a run of MFMAs moves into it, vector-ops-per-matrix-op
// after each of the run's last MFMAs but the very last (as many as the
// work needs), each op where its operands are defined: what needs the
// run's result (%d) stays after it.
// CHECK-LABEL: func.func @into_run
// CHECK:      amdgpu.mfma
// CHECK-NEXT: math.exp2 %arg3
// CHECK-NEXT: math.exp2
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: arith.addf
// CHECK-NEXT: amdgpu.mfma
// CHECK-NEXT: %[[LAST:.*]] = amdgpu.mfma
// CHECK-NEXT: arith.subf %[[LAST]]
// ONE-LABEL: func.func @into_run
// ONE:      amdgpu.mfma
// ONE-NEXT: math.exp2 %arg3
// ONE-NEXT: amdgpu.mfma
// ONE-NEXT: math.exp2
// ONE-NEXT: amdgpu.mfma
// ONE-NEXT: arith.mulf
// ONE-NEXT: arith.addf
func.func @into_run(%a: vector<4xbf16>, %b: vector<4xbf16>, %c: vector<4xf32>, %x: vector<4xf32>) -> (vector<4xf32>, vector<4xf32>, vector<4xf32>) {
  %0 = amdgpu.mfma 16x16x16 %a * %b + %c blgp = none : vector<4xbf16>, vector<4xbf16>, vector<4xf32>
  %1 = amdgpu.mfma 16x16x16 %a * %b + %0 blgp = none : vector<4xbf16>, vector<4xbf16>, vector<4xf32>
  %d = amdgpu.mfma 16x16x16 %a * %b + %1 blgp = none : vector<4xbf16>, vector<4xbf16>, vector<4xf32>
  %e = math.exp2 %x : vector<4xf32>
  %f = math.exp2 %e : vector<4xf32>
  %g = arith.mulf %f, %x : vector<4xf32>
  %h = arith.addf %g, %x : vector<4xf32>
  %s = arith.subf %d, %h : vector<4xf32>
  return %s, %g, %h : vector<4xf32>, vector<4xf32>, vector<4xf32>
}

// -----

// A read moves into the run when no write lies between and it feeds no
// MFMA (the next product's operands would stay live across the run);
// writes, and the reads after them, stay.
// CHECK-LABEL: func.func @reads
// CHECK:      amdgpu.mfma
// CHECK-NEXT: vector.load %arg3[%c0]
// CHECK-NEXT: math.exp2
// CHECK-NEXT: amdgpu.mfma
// CHECK-NEXT: vector.store
// CHECK-NEXT: vector.load %arg3[%c4]
// CHECK-NEXT: vector.load %arg4[%c8]
func.func @reads(%a: vector<4xbf16>, %b: vector<4xbf16>, %c: vector<4xf32>, %m: memref<16xf32, 3>, %n: memref<16xbf16, 3>) -> (vector<4xf32>, vector<4xf32>, vector<4xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %0 = amdgpu.mfma 16x16x16 %a * %b + %c blgp = none : vector<4xbf16>, vector<4xbf16>, vector<4xf32>
  %d = amdgpu.mfma 16x16x16 %a * %b + %0 blgp = none : vector<4xbf16>, vector<4xbf16>, vector<4xf32>
  %stats = vector.load %m[%c0] : memref<16xf32, 3>, vector<4xf32>
  %e = math.exp2 %stats : vector<4xf32>
  vector.store %e, %m[%c4] : memref<16xf32, 3>, vector<4xf32>
  %after = vector.load %m[%c4] : memref<16xf32, 3>, vector<4xf32>
  %operand = vector.load %n[%c8] : memref<16xbf16, 3>, vector<4xbf16>
  %x1 = arith.addf %d, %d : vector<4xf32>
  %x2 = arith.addf %x1, %d : vector<4xf32>
  %x3 = arith.addf %x2, %d : vector<4xf32>
  %x4 = arith.addf %x3, %d : vector<4xf32>
  %next = amdgpu.mfma 16x16x16 %operand * %b + %x4 blgp = none : vector<4xbf16>, vector<4xbf16>, vector<4xf32>
  return %next, %after, %e : vector<4xf32>, vector<4xf32>, vector<4xf32>
}
