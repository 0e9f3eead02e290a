// RUN: rocke-opt %s -split-input-file -fmha-pipeline-tile-fetches="place-first=true" | FileCheck %s

// place-first: the first block's fetch and read before the loop are also
// placed there (the place, the extract and the store into workgroup memory
// cloned for block lb), and the first iteration places the carried block
// as before.
// CHECK-LABEL: func.func @place_first
// CHECK: %[[F0:.*]] = fmha.tile_fetch
// CHECK: %[[S0:.*]] = vector.transfer_read
// CHECK: fmha.tile_place %[[F0]]
// CHECK: %[[X0:.*]] = vector.extract %[[S0]][0]
// CHECK: memref.store %[[X0]]
// CHECK: scf.for %[[I:.*]] = {{.*}} iter_args(%[[CUR:.*]] = %[[F0]], %[[STAT:.*]] = %[[S0]])
// CHECK: fmha.tile_place %[[CUR]]
// CHECK: vector.extract %[[STAT]][0]
// CHECK: memref.store
// CHECK: fmha.tile_fetch
// CHECK: scf.yield
func.func @place_first(%src: memref<?x?x8x64xf16>, %stats: memref<?x8x?xf32>,
    %lb: index, %ub: index, %b: index, %h: index, %seq: index, %tid: index,
    %dst: memref<64x72xf16, #gpu.address_space<workgroup>>,
    %row_stats: memref<64xf32, #gpu.address_space<workgroup>>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %pad = arith.constant 0.0 : f32
  scf.for %i = %lb to %ub step %c1 {
    %q0 = arith.muli %i, %c64 : index
    %rows = fmha.tile_fetch %src[%b, %q0, %h] seq %seq thread %tid
        {aligned_rows, tail_unspecified} : memref<?x?x8x64xf16>
        -> !fmha.fetched<64x64xf16, chunk 1x8, threads 256>
    fmha.tile_place %rows thread %tid
        into %dst : memref<64x72xf16, #gpu.address_space<workgroup>>
        : !fmha.fetched<64x64xf16, chunk 1x8, threads 256>
    %row = arith.addi %q0, %tid : index
    %s = vector.transfer_read %stats[%b, %h, %row], %pad
        : memref<?x8x?xf32>, vector<1xf32>
    %x = vector.extract %s[0] : f32 from vector<1xf32>
    memref.store %x, %row_stats[%tid]
        : memref<64xf32, #gpu.address_space<workgroup>>
  }
  return
}

// -----

// A vector.load through a bounds-checked buffer descriptor of the block's
// rows (the AMD backward's row records) needs no guard a block past the
// end: it moves ahead with the descriptor it reads, beside the fetch; the
// select that uses its value and the iteration's row (pure, placing) is
// cloned for block lb before the loop, and stays in the body for the
// carried value.
// CHECK-LABEL: func.func @buffer_load_ahead
// CHECK: %[[F0:.*]] = fmha.tile_fetch
// CHECK: amdgpu.fat_raw_buffer_cast
// CHECK: %[[L0:.*]] = vector.load
// CHECK: fmha.tile_place %[[F0]]
// CHECK: %[[X0:.*]] = vector.extract %[[L0]][0]
// CHECK: arith.select %{{.*}}, %[[X0]]
// CHECK: memref.store
// CHECK: scf.for %[[I:.*]] = {{.*}} iter_args(%[[CUR:.*]] = %[[F0]], %[[REC:.*]] = %[[L0]])
// CHECK: vector.extract %[[REC]][0]
// CHECK: memref.store
// CHECK: %[[F1:.*]] = fmha.tile_fetch
// CHECK: amdgpu.fat_raw_buffer_cast
// CHECK: %[[L1:.*]] = vector.load
// CHECK: scf.yield %[[F1]], %[[L1]]
func.func @buffer_load_ahead(%src: memref<?x?x8x64xf16>,
    %stats: memref<?x8x?x2xf32>, %lb: index, %ub: index, %b: index,
    %h: index, %seq: index, %tid: index,
    %dst: memref<64x72xf16, #gpu.address_space<workgroup>>,
    %row_stats: memref<64xf32, #gpu.address_space<workgroup>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %big = arith.constant 0x71000000 : f32
  scf.for %i = %lb to %ub step %c1 {
    %q0 = arith.muli %i, %c64 : index
    %rows = fmha.tile_fetch %src[%b, %q0, %h] seq %seq thread %tid
        {aligned_rows, tail_unspecified} : memref<?x?x8x64xf16>
        -> !fmha.fetched<64x64xf16, chunk 1x8, threads 256>
    %view = memref.subview %stats[%b, %h, %q0, 0] [1, 1, 64, 2] [1, 1, 1, 1]
        : memref<?x8x?x2xf32> to memref<1x1x64x2xf32, strided<[?, ?, 2, 1], offset: ?>>
    %bytes = arith.constant 512 : i64
    %buf = amdgpu.fat_raw_buffer_cast %view validBytes(%bytes) resetOffset
        : memref<1x1x64x2xf32, strided<[?, ?, 2, 1], offset: ?>>
        to memref<1x1x64x2xf32, strided<[?, ?, 2, 1]>, #amdgpu.address_space<fat_raw_buffer>>
    %rec = vector.load %buf[%c0, %c0, %tid, %c0]
        : memref<1x1x64x2xf32, strided<[?, ?, 2, 1]>, #amdgpu.address_space<fat_raw_buffer>>, vector<2xf32>
    fmha.tile_place %rows thread %tid
        into %dst : memref<64x72xf16, #gpu.address_space<workgroup>>
        : !fmha.fetched<64x64xf16, chunk 1x8, threads 256>
    %row = arith.addi %q0, %tid : index
    %in = arith.cmpi ult, %row, %seq : index
    %x = vector.extract %rec[0] : f32 from vector<2xf32>
    %y = arith.select %in, %x, %big : f32
    memref.store %y, %row_stats[%tid]
        : memref<64xf32, #gpu.address_space<workgroup>>
  }
  return
}
