// RUN: rocke-opt %s -split-input-file -fmha-lower-atomic-add=chip=sm_90a | FileCheck %s
// RUN: not rocke-opt %s -split-input-file -fmha-lower-atomic-add=chip=sm_80 2>&1 | FileCheck %s --check-prefix=NOBULK
// RUN: not rocke-opt %s -split-input-file -fmha-lower-atomic-add=chip=gfx942 2>&1 | FileCheck %s --check-prefix=NOBULK-AMD

// NOBULK: fmha-lower-atomic-add: chip 'sm_80' has no bulk reductions (sm_90 and newer do)
// NOBULK-AMD: fmha-lower-atomic-add: chip 'gfx942' has no bulk reductions

// A row of the stage added to a row of the accumulator: the global address
// of dq[b, q, h, 0] (64 bits), the stage row's address in the shared window
// (32 bits: aligned pointer + 4 * (136 * r)), 512 bytes; the commit closes
// the group, the waits wait for the reads of all groups but the newest
// `pending`.
// CHECK-LABEL: func.func @row
// CHECK: %[[DQ:.*]] = llvm.getelementptr inbounds %{{.*}}[%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// CHECK: %[[BASE:.*]] = memref.extract_aligned_pointer_as_index %{{.*}} : memref<64x136xf32, #gpu.address_space<workgroup>> -> index
// CHECK: %[[C136:.*]] = arith.constant 136 : index
// CHECK: %[[ROW:.*]] = arith.muli %{{.*}}, %[[C136]] : index
// CHECK: %[[LIN:.*]] = arith.addi %[[ROW]], %{{.*}} : index
// CHECK: %[[C4:.*]] = arith.constant 4 : index
// CHECK: %[[OFF:.*]] = arith.muli %[[LIN]], %[[C4]] : index
// CHECK: %[[ADDR:.*]] = arith.addi %[[BASE]], %[[OFF]] : index
// CHECK: %[[SRC:.*]] = arith.index_cast %[[ADDR]] : index to i32
// CHECK: %[[BYTES:.*]] = arith.constant 512 : i32
// CHECK: llvm.inline_asm has_side_effects "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [$0], [$1], $2;", "l,r,r" %[[DQ]], %[[SRC]], %[[BYTES]] : (!llvm.ptr<1>, i32, i32) -> ()
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
// CHECK-NEXT: nvvm.cp.async.bulk.wait_group 1 {read}
// CHECK-NEXT: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK-NOT: fmha.bulk
func.func @row(%stage: memref<64x136xf32, #gpu.address_space<workgroup>>,
    %dq: memref<?x?x8x128xf32, #gpu.address_space<global>>, %r: index, %b: index, %q: index, %h: index) {
  %c0 = arith.constant 0 : index
  fmha.bulk_add %stage[%r, %c0] to %dq[%b, %q, %h, %c0] {count = 128 : i64}
      : memref<64x136xf32, #gpu.address_space<workgroup>>, memref<?x?x8x128xf32, #gpu.address_space<global>>
  fmha.bulk_commit
  fmha.bulk_wait pending 1
  fmha.bulk_wait
  return
}

// -----

// A slot of a double-buffered stage (a subview at a dynamic offset): the
// slot's element offset is part of the shared address.
// CHECK-LABEL: func.func @slot_row
// CHECK: %[[BASE:.*]] = memref.extract_aligned_pointer_as_index %{{.*}} : memref<64x136xf32, strided<[136, 1], offset: ?>, #gpu.address_space<workgroup>> -> index
// CHECK: %{{.*}}, %[[OFFSET:.*]], %{{.*}}:2, %{{.*}}:2 = memref.extract_strided_metadata
// CHECK: %[[ROW:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// CHECK: %[[LIN:.*]] = arith.addi %[[OFFSET]], %[[ROW]] : index
// CHECK: llvm.inline_asm has_side_effects "cp.reduce.async.bulk
func.func @slot_row(%stage: memref<2x64x136xf32, #gpu.address_space<workgroup>>,
    %dq: memref<?x128xf32, #gpu.address_space<global>>, %slot: index, %r: index) {
  %c0 = arith.constant 0 : index
  %view = memref.subview %stage[%slot, 0, 0] [1, 64, 136] [1, 1, 1]
      : memref<2x64x136xf32, #gpu.address_space<workgroup>> to memref<64x136xf32, strided<[136, 1], offset: ?>, #gpu.address_space<workgroup>>
  fmha.bulk_add %view[%r, %c0] to %dq[%r, %c0] {count = 128 : i64}
      : memref<64x136xf32, strided<[136, 1], offset: ?>, #gpu.address_space<workgroup>>, memref<?x128xf32, #gpu.address_space<global>>
  fmha.bulk_commit
  return
}
