// RUN: rocke-opt %s -split-input-file -fmha-split-workgroup-tiles | FileCheck %s --check-prefix=SPLIT
// RUN: rocke-opt %s -split-input-file -fmha-split-workgroup-tiles -fmha-distribute-tiles | FileCheck %s
// A tile_map that takes its elements' positions (`at(row, col) lane`, a
// score_mod's query and key, issue 33): split over subgroups, the origin
// moves to the subgroup's block; distributed, each fragment's positions
// are an index vector, the lane's first element plus the atom's and the
// registers' offsets of the C layout, once per atom row (column).

// 32 query rows x 16 keys over two subgroups of 32 lanes (mma.sync
// m16n8k16: C registers at rows +0 +0 +8 +8, columns +0 +1 +0 +1 of the
// lane's first element (lane / 4, lane % 4 * 2)).
// SPLIT-LABEL: func.func @alibi_like
// SPLIT: %[[SG:.*]] = arith.divui %arg0, %[[C32:.*]] : index
// SPLIT: %[[LANE:.*]] = arith.remui %arg0, %[[C32]] : index
// SPLIT: %[[ROW:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// SPLIT: %[[Q:.*]] = arith.addi %arg1, %[[ROW]] : index
// SPLIT: fmha.tile_map(%{{.*}}) at(%[[Q]], %arg2) lane %[[LANE]] : !fmha.tile<16x16xf32, c, "mma_sync_m16n8k16_f16"> -> !fmha.tile<16x16xf32, c, "mma_sync_m16n8k16_f16">
// SPLIT-NEXT: ^bb0(%{{.*}}: f32, %{{.*}}: index, %{{.*}}: index):

// CHECK-LABEL: func.func @alibi_like
// CHECK: %[[ORIGIN:.*]] = arith.addi %arg1, %{{.*}} : index
// CHECK: %[[LROW:.*]] = arith.remui %{{.*}}, %{{.*}} : index
// CHECK: %[[LCOL:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// Atom row 0: the lane's query, + 0 0 8 8.
// CHECK: %[[Q:.*]] = arith.addi %[[ORIGIN]], %[[LROW]] : index
// CHECK: %[[ROWS:.*]] = arith.constant dense<[0, 0, 8, 8]> : vector<4xindex>
// CHECK: %[[QB:.*]] = vector.broadcast %[[Q]] : index to vector<4xindex>
// CHECK: %[[QS:.*]] = arith.addi %[[QB]], %[[ROWS]] : vector<4xindex>
// Atom column 0: the lane's key, + 0 1 0 1.
// CHECK: %[[K:.*]] = arith.addi %arg2, %[[LCOL]] : index
// CHECK: %[[COLS:.*]] = arith.constant dense<[0, 1, 0, 1]> : vector<4xindex>
// CHECK: %[[KB:.*]] = vector.broadcast %[[K]] : index to vector<4xindex>
// CHECK: %[[KS:.*]] = arith.addi %[[KB]], %[[COLS]] : vector<4xindex>
// CHECK: %[[D:.*]] = arith.subi %[[QS]], %[[KS]] : vector<4xindex>
// CHECK: %[[D32:.*]] = arith.index_cast %[[D]] : vector<4xindex> to vector<4xi32>
// CHECK: arith.sitofp %[[D32]] : vector<4xi32> to vector<4xf32>
// Atom column 1 (keys + 8), the same query positions.
// CHECK: %[[K1:.*]] = arith.addi %arg2, %[[LCOL]] : index
// CHECK: %[[K8:.*]] = arith.addi %[[K1]], %{{.*}} : index
// CHECK: %[[KB8:.*]] = vector.broadcast %[[K8]] : index to vector<4xindex>
// CHECK: %[[KS8:.*]] = arith.addi %[[KB8]], %{{.*}} : vector<4xindex>
// CHECK: arith.subi %[[QS]], %[[KS8]] : vector<4xindex>
// CHECK-NOT: fmha.tile_map
func.func @alibi_like(%tid: index, %q0: index, %k0: index, %buf: memref<32x16xf32>) {
  %w = fmha.tile_zero : !fmha.tile<32x16xf32, c, "mma_sync_m16n8k16_f16", subgroups 2x1>
  %r = fmha.tile_map(%w) at(%q0, %k0) lane %tid : !fmha.tile<32x16xf32, c, "mma_sync_m16n8k16_f16", subgroups 2x1>
      -> !fmha.tile<32x16xf32, c, "mma_sync_m16n8k16_f16", subgroups 2x1> {
  ^bb0(%x: f32, %q: index, %k: index):
    %d = arith.subi %q, %k : index
    %d32 = arith.index_cast %d : index to i32
    %df = arith.sitofp %d32 : i32 to f32
    %y = arith.subf %x, %df : f32
    fmha.yield %y : f32
  }
  fmha.tile_write %r, %buf[%q0, %k0] lane %tid : !fmha.tile<32x16xf32, c, "mma_sync_m16n8k16_f16", subgroups 2x1>, memref<32x16xf32>
  return
}
