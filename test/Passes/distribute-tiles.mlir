// RUN: rocke-opt %s -split-input-file -fmha-distribute-tiles | FileCheck %s
// RUN: not rocke-opt %s -split-input-file -fmha-lower-mma 2>&1 | FileCheck %s --check-prefix=UNDISTRIBUTED

// A 32x32x32 product on 16x16x16 MFMA atoms: 2x2 accumulator atoms, 2 k
// steps, one fmha.mma per atom and step. The workgroup-memory operand is
// read one k step at a time next to its atoms (its fragments are live for
// one step); the register operand (tile_load) is loaded once, the full
// blocks without row checks.
// CHECK-LABEL: func.func @product
// CHECK-NOT: fmha.tile
// CHECK: scf.if
// CHECK-COUNT-2: vector.load %arg0
// CHECK-COUNT-4: fmha.mma {{.*}} {atom = "mfma_f32_16x16x16_bf16"} : vector<4xbf16>, vector<4xbf16> -> vector<4xf32>
// CHECK-COUNT-2: vector.load %arg0
// CHECK-COUNT-4: fmha.mma
// CHECK-NOT: fmha.mma
// CHECK: return {{.*}} : vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>
// UNDISTRIBUTED: error: 'fmha.tile_zero' op produces a subgroup tile: run fmha-distribute-tiles before fmha-lower-mma
func.func @product(%buf: memref<32x40xbf16>, %src: memref<?x?x8x128xbf16>, %i: index, %lane: index)
    -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>) {
  %z = fmha.tile_zero : !fmha.tile<32x32xf32, c, "mfma_f32_16x16x16_bf16">
  %a = fmha.tile_read %buf[%i, %i] lane %lane : memref<32x40xbf16> -> !fmha.tile<32x32xbf16, a, "mfma_f32_16x16x16_bf16">
  %b = fmha.tile_load %src[%i, %i, %i, %i] lane %lane seq %i {transposed} : memref<?x?x8x128xbf16> -> !fmha.tile<32x32xbf16, b, "mfma_f32_16x16x16_bf16">
  %c = fmha.tile_mma %a, %b, %z : !fmha.tile<32x32xbf16, a, "mfma_f32_16x16x16_bf16">, !fmha.tile<32x32xbf16, b, "mfma_f32_16x16x16_bf16"> -> !fmha.tile<32x32xf32, c, "mfma_f32_16x16x16_bf16">
  %f:4 = fmha.tile_unpack %c : !fmha.tile<32x32xf32, c, "mfma_f32_16x16x16_bf16"> -> vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>
  return %f#0, %f#1, %f#2, %f#3 : vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>
}

// -----

// An MFMA accumulator tile is the A operand of its transpose in registers:
// each A fragment is one C fragment truncated, the atoms transposed.
// CHECK-LABEL: func.func @convert
// CHECK-SAME: (%[[C0:.*]]: vector<4xf32>, %[[C1:.*]]: vector<4xf32>)
// CHECK: %[[T0:.*]] = arith.truncf %[[C0]] : vector<4xf32> to vector<4xbf16>
// CHECK: %[[T1:.*]] = arith.truncf %[[C1]] : vector<4xf32> to vector<4xbf16>
// CHECK: return %[[T1]], %[[T0]]
func.func @convert(%c0: vector<4xf32>, %c1: vector<4xf32>) -> (vector<4xbf16>, vector<4xbf16>) {
  %c = fmha.tile_pack %c0, %c1 : vector<4xf32>, vector<4xf32> -> !fmha.tile<16x32xf32, c, "mfma_f32_16x16x16_bf16">
  %t = fmha.tile_convert %c {transposed} : !fmha.tile<16x32xf32, c, "mfma_f32_16x16x16_bf16"> -> !fmha.tile<32x16xbf16, a, "mfma_f32_16x16x16_bf16">
  %f:2 = fmha.tile_unpack %t : !fmha.tile<32x16xbf16, a, "mfma_f32_16x16x16_bf16"> -> vector<4xbf16>, vector<4xbf16>
  return %f#1, %f#0 : vector<4xbf16>, vector<4xbf16>
}

// -----

// Loops carry a tile's fragments.
// CHECK-LABEL: func.func @loop
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (vector<4xf32>, vector<4xf32>)
// CHECK-COUNT-2: fmha.mma
// CHECK: scf.yield {{.*}} : vector<4xf32>, vector<4xf32>
func.func @loop(%buf: memref<16x24xbf16>, %n: index, %lane: index) -> (vector<4xf32>, vector<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = fmha.tile_zero : !fmha.tile<16x32xf32, c, "mfma_f32_16x16x16_bf16">
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (!fmha.tile<16x32xf32, c, "mfma_f32_16x16x16_bf16">) {
    %a = fmha.tile_read %buf[%c0, %c0] lane %lane : memref<16x24xbf16> -> !fmha.tile<16x16xbf16, a, "mfma_f32_16x16x16_bf16">
    %b = fmha.tile_read %buf[%c0, %c0] lane %lane {transposed} : memref<16x24xbf16> -> !fmha.tile<16x32xbf16, b, "mfma_f32_16x16x16_bf16">
    %d = fmha.tile_mma %a, %b, %acc : !fmha.tile<16x16xbf16, a, "mfma_f32_16x16x16_bf16">, !fmha.tile<16x32xbf16, b, "mfma_f32_16x16x16_bf16"> -> !fmha.tile<16x32xf32, c, "mfma_f32_16x16x16_bf16">
    scf.yield %d : !fmha.tile<16x32xf32, c, "mfma_f32_16x16x16_bf16">
  }
  %f:2 = fmha.tile_unpack %r : !fmha.tile<16x32xf32, c, "mfma_f32_16x16x16_bf16"> -> vector<4xf32>, vector<4xf32>
  return %f#0, %f#1 : vector<4xf32>, vector<4xf32>
}
