// RUN: rocke-opt %s -split-input-file -fmha-split-workgroup-tiles | FileCheck %s
// RUN: not rocke-opt %s -split-input-file -fmha-distribute-tiles 2>&1 | FileCheck %s --check-prefix=UNSPLIT
// RUN: rocke-opt %s -split-input-file -fmha-split-workgroup-tiles -canonicalize | FileCheck %s --check-prefix=FOLD

// Scores of 128 KV rows x 64 queries split over 4 subgroups of 64 lanes
// (32 KV rows each): the thread's id becomes the subgroup (tid / 64) and
// the lane (tid % 64) once, where it is defined; each op on the split
// tiles takes the block's origin ((subgroup % 4) * 32) along the split
// dimension: K's rows, the mask's keys (keys along rows), the dS copy's
// columns (written transposed). Q (1x1) and the per-query statistics
// (dim 1, not split) keep their coordinates. cut_only passes through.
// CHECK-LABEL: func.func @scores
// CHECK-SAME: %[[TID:[^:]*]]: index, %[[Q0:[^:]*]]: index, %[[K0:[^:]*]]: index
// CHECK: %[[C64:.*]] = arith.constant 64 : index
// CHECK: %[[SG:.*]] = arith.divui %[[TID]], %[[C64]] : index
// CHECK: %[[LANE:.*]] = arith.remui %[[TID]], %[[C64]] : index
// CHECK: %[[PART:.*]] = arith.remui %[[SG]], %{{.*}} : index
// CHECK: %[[C32:.*]] = arith.constant 32 : index
// CHECK: %[[ROW:.*]] = arith.muli %[[PART]], %[[C32]] : index
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: fmha.tile_zero : <32x64xf32, c, "mfma_f32_16x16x16_bf16">
// CHECK: fmha.tile_read %{{.*}}[%[[ROW]], %[[C0]]] lane %[[LANE]] : memref<128x40xbf16> -> <32x32xbf16, a, "mfma_f32_16x16x16_bf16">
// CHECK: fmha.tile_read %{{.*}}[%[[C0]], %[[C0]]] lane %[[LANE]] {transposed} : memref<64x40xbf16> -> <32x64xbf16, b, "mfma_f32_16x16x16_bf16">
// CHECK: fmha.tile_mma {{.*}} -> <32x64xf32, c, "mfma_f32_16x16x16_bf16">
// CHECK: %[[KEY:.*]] = arith.addi %[[K0]], %[[ROW]] : index
// CHECK: fmha.tile_mask %{{.*}} at(%[[Q0]], %[[KEY]]) lane %[[LANE]] seq(%{{.*}}, %{{.*}}) {cut_only, keys_along_rows, mask = #fmha.mask<causal>} : <32x64xf32, c, "mfma_f32_16x16x16_bf16">
// CHECK: fmha.tile_broadcast %{{.*}}[%[[C0]]] lane %[[LANE]] dim 1 : memref<64xf32> -> <32x64xf32, c, "mfma_f32_16x16x16_bf16">
// CHECK: fmha.tile_map({{.*}}) : !fmha.tile<32x64xf32, c, "mfma_f32_16x16x16_bf16">, !fmha.tile<32x64xf32, c, "mfma_f32_16x16x16_bf16"> -> !fmha.tile<32x64xf32, c, "mfma_f32_16x16x16_bf16">
// CHECK: fmha.tile_write %{{.*}}, %{{.*}}[%[[C0]], %[[ROW]]] lane %[[LANE]] {transposed}
// CHECK-NOT: subgroups
// UNSPLIT: error: 'fmha.tile_zero' op works on a workgroup's tiles (split over subgroups): run fmha-split-workgroup-tiles before fmha-distribute-tiles
func.func @scores(%kbuf: memref<128x40xbf16>, %qbuf: memref<64x40xbf16>, %stats: memref<64xf32>,
                  %ds: memref<64x136xbf16>, %tid: index, %q0: index, %k0: index, %sq: index, %sk: index) {
  %c0 = arith.constant 0 : index
  %z = fmha.tile_zero : !fmha.tile<128x64xf32, c, "mfma_f32_16x16x16_bf16", subgroups 4x1>
  %k = fmha.tile_read %kbuf[%c0, %c0] lane %tid : memref<128x40xbf16> -> !fmha.tile<128x32xbf16, a, "mfma_f32_16x16x16_bf16", subgroups 4x1>
  %q = fmha.tile_read %qbuf[%c0, %c0] lane %tid {transposed} : memref<64x40xbf16> -> !fmha.tile<32x64xbf16, b, "mfma_f32_16x16x16_bf16", subgroups 1x1>
  %s = fmha.tile_mma %k, %q, %z : !fmha.tile<128x32xbf16, a, "mfma_f32_16x16x16_bf16", subgroups 4x1>, !fmha.tile<32x64xbf16, b, "mfma_f32_16x16x16_bf16", subgroups 1x1> -> !fmha.tile<128x64xf32, c, "mfma_f32_16x16x16_bf16", subgroups 4x1>
  %m = fmha.tile_mask %s at(%q0, %k0) lane %tid seq(%sq, %sk) {keys_along_rows, cut_only, mask = #fmha.mask<causal>} : !fmha.tile<128x64xf32, c, "mfma_f32_16x16x16_bf16", subgroups 4x1>
  %st = fmha.tile_broadcast %stats[%c0] lane %tid dim 1 : memref<64xf32> -> !fmha.tile<128x64xf32, c, "mfma_f32_16x16x16_bf16", subgroups 4x1>
  %p = fmha.tile_map(%m, %st) : !fmha.tile<128x64xf32, c, "mfma_f32_16x16x16_bf16", subgroups 4x1>, !fmha.tile<128x64xf32, c, "mfma_f32_16x16x16_bf16", subgroups 4x1> -> !fmha.tile<128x64xf32, c, "mfma_f32_16x16x16_bf16", subgroups 4x1> {
  ^bb0(%x: f32, %y: f32):
    %d = arith.subf %x, %y : f32
    fmha.yield %d : f32
  }
  fmha.tile_write %p, %ds[%c0, %c0] lane %tid {transposed} : !fmha.tile<128x64xf32, c, "mfma_f32_16x16x16_bf16", subgroups 4x1>, memref<64x136xbf16>
  return
}

// -----

// A 2x2 grid of 32-lane subgroups, column-major (strides 1x2): subgroup s
// holds rows (s % 2) * 32 and columns ((s / 2) % 2) * 32. A product's A is
// split like its rows, B like its columns; the loop carries the block. The
// accumulation is transposed: the block's rows are the buffer's columns.
// CHECK-LABEL: func.func @grid
// CHECK-SAME: %[[TID:[^:]*]]: index, %[[B:[^:]*]]: index, %[[Q0:[^:]*]]: index
// CHECK: %[[SG:.*]] = arith.divui %[[TID]], %{{.*}} : index
// CHECK: %[[LANE:.*]] = arith.remui %[[TID]], %{{.*}} : index
// CHECK: %[[RP:.*]] = arith.remui %[[SG]], %{{.*}} : index
// CHECK: %[[ROW:.*]] = arith.muli %[[RP]], %{{.*}} : index
// CHECK: %[[CD:.*]] = arith.divui %[[SG]], %{{.*}} : index
// CHECK: %[[CP:.*]] = arith.remui %[[CD]], %{{.*}} : index
// CHECK: %[[COL:.*]] = arith.muli %[[CP]], %{{.*}} : index
// CHECK: scf.for {{.*}} -> (!fmha.tile<32x32xf32, c, "mma_sync_m16n8k16_bf16">)
// CHECK: fmha.tile_read %{{.*}}[%[[ROW]], %{{.*}}] lane %[[LANE]] : memref<64x72xbf16> -> <32x64xbf16, a, "mma_sync_m16n8k16_bf16">
// CHECK: fmha.tile_read %{{.*}}[%{{.*}}, %[[COL]]] lane %[[LANE]] : memref<64x72xbf16> -> <64x32xbf16, b, "mma_sync_m16n8k16_bf16">
// CHECK: scf.yield %{{.*}} : !fmha.tile<32x32xf32, c, "mma_sync_m16n8k16_bf16">
// CHECK: %[[QROW:.*]] = arith.addi %[[Q0]], %[[COL]] : index
// CHECK: fmha.tile_accumulate atomic_add %{{.*}}, %{{.*}}[%[[B]], %[[QROW]], %{{.*}}, %[[ROW]]] lane %[[LANE]] {transposed}
func.func @grid(%acc: memref<?x?x8x64xf32>, %dsbuf: memref<64x72xbf16>, %kbuf: memref<64x72xbf16>, %tid: index, %b: index, %q0: index, %h: index, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = fmha.tile_zero : !fmha.tile<64x64xf32, c, "mma_sync_m16n8k16_bf16", subgroups 2x2 strides 1x2>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %z) -> (!fmha.tile<64x64xf32, c, "mma_sync_m16n8k16_bf16", subgroups 2x2 strides 1x2>) {
    %ds = fmha.tile_read %dsbuf[%c0, %c0] lane %tid : memref<64x72xbf16> -> !fmha.tile<64x64xbf16, a, "mma_sync_m16n8k16_bf16", subgroups 2x1>
    %k = fmha.tile_read %kbuf[%c0, %c0] lane %tid : memref<64x72xbf16> -> !fmha.tile<64x64xbf16, b, "mma_sync_m16n8k16_bf16", subgroups 1x2 strides 1x2>
    %d = fmha.tile_mma %ds, %k, %a : !fmha.tile<64x64xbf16, a, "mma_sync_m16n8k16_bf16", subgroups 2x1>, !fmha.tile<64x64xbf16, b, "mma_sync_m16n8k16_bf16", subgroups 1x2 strides 1x2> -> !fmha.tile<64x64xf32, c, "mma_sync_m16n8k16_bf16", subgroups 2x2 strides 1x2>
    scf.yield %d : !fmha.tile<64x64xf32, c, "mma_sync_m16n8k16_bf16", subgroups 2x2 strides 1x2>
  }
  fmha.tile_accumulate atomic_add %r, %acc[%b, %q0, %h, %c0] lane %tid {transposed} : !fmha.tile<64x64xf32, c, "mma_sync_m16n8k16_bf16", subgroups 2x2 strides 1x2>, memref<?x?x8x64xf32>
  return
}

// -----

#wg = #gpu.address_space<workgroup>
// Warpgroup products on a workgroup's 128 x 32 tile of 8 subgroups (two
// warpgroups, 16 rows each): A from workgroup memory starts at the
// warpgroup's 64 rows (the subgroup's row origin, (s % 8) * 16, rounded
// down to 64), transposed here, so along the buffer's columns; the
// thread operand is gone. Stores of per-row vectors take the row origin.
// CHECK-LABEL: func.func @warpgroups
// CHECK-SAME: %[[TID:[^:]*]]: index
// CHECK: %[[SG:.*]] = arith.divui %[[TID]], %{{.*}} : index
// CHECK: %[[LANE:.*]] = arith.remui %[[TID]], %{{.*}} : index
// CHECK: %[[RP:.*]] = arith.remui %[[SG]], %{{.*}} : index
// CHECK: %[[ROW:.*]] = arith.muli %[[RP]], %{{.*}} : index
// CHECK: %[[C64:.*]] = arith.constant 64 : index
// CHECK: %[[WG:.*]] = arith.divui %[[ROW]], %[[C64]] : index
// CHECK: %[[WGROW:.*]] = arith.muli %[[WG]], %[[C64]] : index
// CHECK: fmha.tile_mma_warpgroup lhs_buffer %{{.*}}[%{{.*}}, %[[WGROW]]] : memref<4x16x8x8xbf16, #gpu.address_space<workgroup>>, rhs %{{.*}}[%{{.*}}, %{{.*}}] : memref<4x4x8x8xbf16, #gpu.address_space<workgroup>>, acc %{{.*}} {k = 32 : i64, lhs_transposed} : <16x32xf32, c, "mma_sync_m16n8k16_bf16">
// CHECK: %[[MX:.*]] = fmha.tile_reduce max %{{.*}} dim 1 : <16x32xf32, c, "mma_sync_m16n8k16_bf16"> -> <16x1xf32, rows, "mma_sync_m16n8k16_bf16">
// CHECK: %[[IDX:.*]] = arith.addi %{{.*}}, %[[ROW]] : index
// CHECK: fmha.tile_store_lines %[[MX]], %{{.*}}[%{{.*}}, %{{.*}}, %[[IDX]]] lane %[[LANE]]
func.func @warpgroups(%abuf: memref<4x16x8x8xbf16, #wg>, %bbuf: memref<4x4x8x8xbf16, #wg>, %stats: memref<?x8x?xf32>, %tid: index, %i: index, %sq: index) {
  %c0 = arith.constant 0 : index
  %z = fmha.tile_zero : !fmha.tile<128x32xf32, c, "mma_sync_m16n8k16_bf16", subgroups 8x1>
  %d = fmha.tile_mma_warpgroup lhs_buffer %abuf[%c0, %c0] : memref<4x16x8x8xbf16, #wg>, rhs %bbuf[%c0, %c0] : memref<4x4x8x8xbf16, #wg>, acc %z thread %tid {k = 32 : i64, lhs_transposed} : !fmha.tile<128x32xf32, c, "mma_sync_m16n8k16_bf16", subgroups 8x1>
  %mx = fmha.tile_reduce max %d dim 1 : !fmha.tile<128x32xf32, c, "mma_sync_m16n8k16_bf16", subgroups 8x1> -> !fmha.tile<128x1xf32, rows, "mma_sync_m16n8k16_bf16", subgroups 8x1>
  fmha.tile_store_lines %mx, %stats[%i, %i, %i] lane %tid seq %sq : !fmha.tile<128x1xf32, rows, "mma_sync_m16n8k16_bf16", subgroups 8x1>, memref<?x8x?xf32>
  return
}

// -----

// The index map, folded for constant threads (32 lanes): on a 2 x 2 grid
// with strides 1x2 subgroups 0, 1, 2, 3 hold the blocks at (0, 0),
// (32, 0), (0, 32), (32, 32), lane 5 each; a warpgroup product's
// subgroup 5 (rows 80-95) reads A from its warpgroup's rows 64-127 and
// writes its rows.
// FOLD-LABEL: func.func @index_map
// FOLD-DAG: %[[C0:.*]] = arith.constant 0 : index
// FOLD-DAG: %[[C5:.*]] = arith.constant 5 : index
// FOLD-DAG: %[[C32:.*]] = arith.constant 32 : index
// FOLD-DAG: %[[C64:.*]] = arith.constant 64 : index
// FOLD-DAG: %[[C80:.*]] = arith.constant 80 : index
// FOLD: fmha.tile_write %{{.*}}, %{{.*}}[%[[C0]], %[[C0]]] lane %[[C5]]
// FOLD: fmha.tile_write %{{.*}}, %{{.*}}[%[[C32]], %[[C0]]] lane %[[C5]]
// FOLD: fmha.tile_write %{{.*}}, %{{.*}}[%[[C0]], %[[C32]]] lane %[[C5]]
// FOLD: fmha.tile_write %{{.*}}, %{{.*}}[%[[C32]], %[[C32]]] lane %[[C5]]
// FOLD: fmha.tile_mma_warpgroup lhs_buffer %{{.*}}[%[[C64]], %[[C0]]]
// FOLD: fmha.tile_write %{{.*}}, %{{.*}}[%[[C80]], %[[C0]]] lane %[[C5]]
!T = !fmha.tile<64x64xf32, c, "mma_sync_m16n8k16_bf16", subgroups 2x2 strides 1x2>
!W = !fmha.tile<128x32xf32, c, "mma_sync_m16n8k16_bf16", subgroups 8x1>
#wg = #gpu.address_space<workgroup>
func.func @index_map(%buf: memref<128x72xbf16>, %abuf: memref<16x4x8x8xbf16, #wg>, %bbuf: memref<4x4x8x8xbf16, #wg>) {
  %c0 = arith.constant 0 : index
  %t0 = arith.constant 5 : index
  %t1 = arith.constant 37 : index
  %t2 = arith.constant 69 : index
  %t3 = arith.constant 101 : index
  %t5 = arith.constant 165 : index
  %z = fmha.tile_zero : !T
  fmha.tile_write %z, %buf[%c0, %c0] lane %t0 : !T, memref<128x72xbf16>
  fmha.tile_write %z, %buf[%c0, %c0] lane %t1 : !T, memref<128x72xbf16>
  fmha.tile_write %z, %buf[%c0, %c0] lane %t2 : !T, memref<128x72xbf16>
  fmha.tile_write %z, %buf[%c0, %c0] lane %t3 : !T, memref<128x72xbf16>
  %w = fmha.tile_zero : !W
  %d = fmha.tile_mma_warpgroup lhs_buffer %abuf[%c0, %c0] : memref<16x4x8x8xbf16, #wg>, rhs %bbuf[%c0, %c0] : memref<4x4x8x8xbf16, #wg>, acc %w thread %t5 {k = 32 : i64} : !W
  fmha.tile_write %d, %buf[%c0, %c0] lane %t5 : !W, memref<128x72xbf16>
  return
}
