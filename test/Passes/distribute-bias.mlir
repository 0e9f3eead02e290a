// RUN: rocke-opt %s -fmha-split-workgroup-tiles | FileCheck %s --check-prefix=SPLIT
// RUN: rocke-opt %s -fmha-split-workgroup-tiles -fmha-distribute-tiles | FileCheck %s
// An additive bias's tile ops (issue 33) over two subgroups of 32 lanes,
// keys along the tile's rows (S^T): split, the subgroup's key origin moves
// (tile_store_scores' key, which keys_along_rows puts along the rows);
// distributed (mma.sync m16n8k16: registers at rows +0 +0 +8 +8, columns
// +0 +1 +0 +1 of the lane's first element (lane / 4, lane % 4 * 2)), a
// load in a tile_map body is one scalar load per register at its
// positions, and tile_store_scores one guarded fmha.atomic_add (or
// memref.store) per register at the same (query, key).

// SPLIT: %[[ROW:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// SPLIT: %[[K0:.*]] = arith.addi %arg2, %[[ROW]] : index
// SPLIT: fmha.tile_map(%{{.*}}) at(%[[K0]], %arg1) lane %[[LANE:.*]] : !fmha.tile<16x8xf32, c, "mma_sync_m16n8k16_f16">
// SPLIT: %[[K1:.*]] = arith.addi %arg2, %[[ROW]] : index
// SPLIT: fmha.tile_store_scores atomic_add %{{.*}}, %arg7[%{{.*}}, %{{.*}}] at(%arg1, %[[K1]]) lane %[[LANE]] seq(%arg3, %arg4) {keys_along_rows} : <16x8xf32, c, "mma_sync_m16n8k16_f16">

// CHECK: %[[ROWS:.*]] = arith.constant dense<[0, 0, 8, 8]> : vector<4xindex>
// CHECK: %[[KS:.*]] = arith.addi %{{.*}}, %[[ROWS]] : vector<4xindex>
// CHECK: %[[COLS:.*]] = arith.constant dense<[0, 1, 0, 1]> : vector<4xindex>
// CHECK: %[[QS:.*]] = arith.addi %{{.*}}, %[[COLS]] : vector<4xindex>
// CHECK: %[[Q0:.*]] = vector.extract %[[QS]][0] : index from vector<4xindex>
// CHECK-NEXT: %[[K0:.*]] = vector.extract %[[KS]][0] : index from vector<4xindex>
// CHECK-NEXT: %[[B0:.*]] = memref.load %arg6[%{{.*}}, %{{.*}}, %[[Q0]], %[[K0]]] : memref<1x1x?x?xf32>
// CHECK-COUNT-3: memref.load %arg6
// CHECK: %[[BIAS:.*]] = vector.from_elements %[[B0]], %{{.*}}, %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK-NEXT: %[[SUM:.*]] = arith.addf %{{.*}}, %[[BIAS]] : vector<4xf32>
// Register 0 at (query, key) = (q0 + lane % 4 * 2, k0 + 16 sg + lane / 4).
// CHECK: %[[Q:.*]] = arith.addi %arg1, %{{.*}} : index
// CHECK-NEXT: %[[K:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK: %[[X0:.*]] = vector.extract %[[SUM]][%{{.*}}] : f32 from vector<4xf32>
// CHECK-NEXT: %[[INQ:.*]] = arith.cmpi ult, %[[Q]], %arg3 : index
// CHECK-NEXT: %[[INK:.*]] = arith.cmpi ult, %[[K]], %arg4 : index
// CHECK-NEXT: %[[IN:.*]] = arith.andi %[[INQ]], %[[INK]] : i1
// CHECK-NEXT: scf.if %[[IN]] {
// CHECK-NEXT: %[[ELT:.*]] = vector.from_elements %[[X0]] : vector<1xf32>
// CHECK-NEXT: fmha.atomic_add %[[ELT]], %arg7[%{{.*}}, %{{.*}}, %[[Q]], %[[K]]] : vector<1xf32>, memref<1x1x?x?xf32>
// Register 1: the next query.
// CHECK: %[[Q1:.*]] = arith.addi %[[Q]], %{{.*}} : index
// CHECK: fmha.atomic_add %{{.*}}, %arg7[%{{.*}}, %{{.*}}, %[[Q1]], %[[K]]]
// CHECK-COUNT-2: fmha.atomic_add
// CHECK: scf.if
// CHECK-NEXT: memref.store %{{.*}}, %arg7[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : memref<1x1x?x?xf32>
// CHECK-COUNT-3: memref.store
// CHECK-NOT: fmha.tile_
func.func @bias_tile(%tid: index, %q0: index, %k0: index, %sq: index, %sk: index, %b: index,
    %bias: memref<1x1x?x?xf32>, %dbias: memref<1x1x?x?xf32>) {
  %c0 = arith.constant 0 : index
  %w = fmha.tile_zero : !fmha.tile<32x8xf32, c, "mma_sync_m16n8k16_f16", subgroups 2x1>
  %r = fmha.tile_map(%w) at(%k0, %q0) lane %tid : !fmha.tile<32x8xf32, c, "mma_sync_m16n8k16_f16", subgroups 2x1>
      -> !fmha.tile<32x8xf32, c, "mma_sync_m16n8k16_f16", subgroups 2x1> {
  ^bb0(%x: f32, %k: index, %q: index):
    %e = memref.load %bias[%c0, %c0, %q, %k] : memref<1x1x?x?xf32>
    %y = arith.addf %x, %e : f32
    fmha.yield %y : f32
  }
  fmha.tile_store_scores atomic_add %r, %dbias[%c0, %c0] at(%q0, %k0) lane %tid seq(%sq, %sk) {keys_along_rows}
      : !fmha.tile<32x8xf32, c, "mma_sync_m16n8k16_f16", subgroups 2x1>, memref<1x1x?x?xf32>
  fmha.tile_store_scores store %r, %dbias[%c0, %c0] at(%q0, %k0) lane %tid seq(%sq, %sk) {keys_along_rows}
      : !fmha.tile<32x8xf32, c, "mma_sync_m16n8k16_f16", subgroups 2x1>, memref<1x1x?x?xf32>
  return
}
