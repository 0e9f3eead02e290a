// RUN: rocke-opt %s -split-input-file | rocke-opt | FileCheck %s

// fmha.bulk_add, fmha.bulk_commit and fmha.bulk_wait print as they parse;
// a wait for all groups (pending 0) prints without its count.
// CHECK-LABEL: func.func @round_trip
// CHECK: fmha.bulk_add %{{.*}}[%{{.*}}, %{{.*}}] to %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] {count = 128 : i64} : memref<64x136xf32, #gpu.address_space<workgroup>>, memref<?x?x8x128xf32, #gpu.address_space<global>>
// CHECK-NEXT: fmha.bulk_commit
// CHECK-NEXT: fmha.bulk_wait pending 1
// CHECK-NEXT: fmha.bulk_wait{{$}}
// CHECK-NEXT: fmha.bulk_wait{{$}}
func.func @round_trip(%stage: memref<64x136xf32, #gpu.address_space<workgroup>>,
    %dq: memref<?x?x8x128xf32, #gpu.address_space<global>>, %r: index, %q: index) {
  %c0 = arith.constant 0 : index
  fmha.bulk_add %stage[%r, %c0] to %dq[%c0, %q, %c0, %c0] {count = 128 : i64}
      : memref<64x136xf32, #gpu.address_space<workgroup>>, memref<?x?x8x128xf32, #gpu.address_space<global>>
  fmha.bulk_commit
  fmha.bulk_wait pending 1
  fmha.bulk_wait pending 0
  fmha.bulk_wait
  return
}

// -----

// A whole slot of padded rows in one operation: the run crosses the rows of
// the stage and of the dest, both laid out contiguously.
// CHECK-LABEL: func.func @whole_tile
// CHECK: fmha.bulk_add {{.*}} {count = 8704 : i64} : memref<64x136xf32, strided<[136, 1], offset: ?>, #gpu.address_space<workgroup>>, memref<?x8x?x136xf32>
func.func @whole_tile(%slot: memref<64x136xf32, strided<[136, 1], offset: ?>, #gpu.address_space<workgroup>>,
    %dq: memref<?x8x?x136xf32>, %b: index, %h: index, %q: index) {
  %c0 = arith.constant 0 : index
  fmha.bulk_add %slot[%c0, %c0] to %dq[%b, %h, %q, %c0] {count = 8704 : i64}
      : memref<64x136xf32, strided<[136, 1], offset: ?>, #gpu.address_space<workgroup>>, memref<?x8x?x136xf32>
  return
}
