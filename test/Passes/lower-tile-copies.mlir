// RUN: rocke-opt %s -split-input-file -fmha-lower-tile-copies | FileCheck %s
// RUN: not rocke-opt %s -split-input-file -fmha-lower-mma 2>&1 | FileCheck %s --check-prefix=UNLOWERED

// A 64 x 128 bf16 tile by 256 threads in rows of 8 elements (16 bytes):
// 1024 chunks, a loop from the thread's id in steps of 256; each chunk one
// vector load (rows past seq_len: row 0, then zeros) and one vector store.
// CHECK-LABEL: func.func @copy_rows
// CHECK-NOT: fmha.tile_copy
// CHECK: %[[C1024:.*]] = arith.constant 1024 : index
// CHECK: %[[C256:.*]] = arith.constant 256 : index
// CHECK: scf.for %[[CHUNK:.*]] = %[[TID:.*]] to %[[C1024]] step %[[C256]] {
// CHECK: %[[ROW:.*]] = arith.divui %[[CHUNK]], %{{.*}} : index
// CHECK: arith.cmpi ult
// CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<?x?x8x128xbf16>, vector<8xbf16>
// CHECK: arith.select {{.*}} : vector<8xbf16>
// CHECK: vector.store {{.*}} : memref<64x136xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
// CHECK-NOT: vector.store
// CHECK: return
// UNLOWERED: error: 'fmha.tile_copy' op is a workgroup tile copy: run fmha-lower-tile-copies before fmha-lower-mma
func.func @copy_rows(%src: memref<?x?x8x128xbf16>, %b: index, %r: index,
    %h: index, %seq: index, %tid: index,
    %dst: memref<64x136xbf16, #gpu.address_space<workgroup>>) {
  fmha.tile_copy %src[%b, %r, %h] seq %seq thread %tid
      into %dst : memref<64x136xbf16, #gpu.address_space<workgroup>>
      {rows = 64 : i64, threads = 256 : i64, aligned_rows}
      : memref<?x?x8x128xbf16>
  return
}

// -----

// Rows of a buffer descriptor (#amdgpu.address_space<fat_raw_buffer>: the
// forward's K and V blocks on AMD chips, TileCopier::rowsBuffer) are not
// checked against seq_len: the descriptor ends at the sequence and the
// hardware reads zeros past it.
// CHECK-LABEL: func.func @copy_buffer_rows
// CHECK: scf.for
// CHECK-NOT: arith.cmpi
// CHECK-NOT: arith.select
// CHECK: vector.load %{{.*}} : memref<1x64x1x128xbf16, #amdgpu.address_space<fat_raw_buffer>>, vector<8xbf16>
// CHECK-NOT: arith.select
// CHECK: vector.store {{.*}} : memref<64x136xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
// CHECK: return
func.func @copy_buffer_rows(
    %src: memref<1x64x1x128xbf16, #amdgpu.address_space<fat_raw_buffer>>,
    %seq: index, %tid: index,
    %dst: memref<64x136xbf16, #gpu.address_space<workgroup>>) {
  %c0 = arith.constant 0 : index
  fmha.tile_copy %src[%c0, %c0, %c0] seq %seq thread %tid
      into %dst : memref<64x136xbf16, #gpu.address_space<workgroup>>
      {rows = 64 : i64, threads = 256 : i64, aligned_rows}
      : memref<1x64x1x128xbf16, #amdgpu.address_space<fat_raw_buffer>>
  return
}

// -----

// A copy and its transpose: square 4 x 4 chunks (64 x 64 f16 over 256
// threads: one each), four rows stored, then four columns of the transpose.
// With tail_unspecified rows past seq_len read row 0 and stay as they are.
// CHECK-LABEL: func.func @copy_transposed
// CHECK: scf.for
// CHECK-COUNT-4: vector.load {{.*}} : memref<?x?x8x64xf16>, vector<4xf16>
// CHECK-NOT: arith.select {{.*}} : vector<4xf16>
// CHECK-COUNT-4: vector.store {{.*}} : memref<64x72xf16>, vector<4xf16>
// CHECK-COUNT-4: vector.store {{.*}} : memref<64x72xf16, 1>, vector<4xf16>
// CHECK-NOT: vector.store
func.func @copy_transposed(%src: memref<?x?x8x64xf16>, %b: index, %r: index,
    %h: index, %seq: index, %tid: index, %dst: memref<64x72xf16>,
    %dstT: memref<64x72xf16, 1>) {
  fmha.tile_copy %src[%b, %r, %h] seq %seq thread %tid
      into %dst : memref<64x72xf16> transposed into %dstT : memref<64x72xf16, 1>
      {rows = 64 : i64, threads = 256 : i64, tail_unspecified}
      : memref<?x?x8x64xf16>
  return
}

// -----

// Into core matrices [8][16][8][8]: chunk p goes down the 8 rows of one
// matrix (p % 8), then along them, so 8 consecutive threads store 128
// consecutive bytes; element (r, c) is at [r / 8, c / 8, r % 8, c % 8].
// CHECK-LABEL: func.func @copy_core_matrices
// CHECK: scf.for %[[CHUNK:.*]] =
// CHECK: %[[IN:.*]] = arith.remui %[[CHUNK]], %[[C8:.*]] : index
// CHECK: %[[MATRIX:.*]] = arith.divui %[[CHUNK]], %[[C8]] : index
// CHECK: vector.load
// CHECK: vector.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : memref<8x16x8x8xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
func.func @copy_core_matrices(%src: memref<?x?x8x128xbf16>, %b: index,
    %r: index, %h: index, %seq: index, %tid: index,
    %dst: memref<8x16x8x8xbf16, #gpu.address_space<workgroup>>) {
  fmha.tile_copy %src[%b, %r, %h] seq %seq thread %tid
      into %dst : memref<8x16x8x8xbf16, #gpu.address_space<workgroup>>
      {rows = 64 : i64, threads = 128 : i64, aligned_rows}
      : memref<?x?x8x128xbf16>
  return
}

// -----

// cp.async into slot %slot: 64 x 128 bf16 = 1024 16-byte chunks, 4 per
// thread; rows at or past %end read 0 source elements (zero fill); one
// group for the four.
// CHECK-LABEL: func.func @copy_async
// CHECK-COUNT-4: nvgpu.device_async_copy %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}], 8, %{{.*}} {bypassL1} : memref<?x?x8x128xbf16> to memref<2x64x136xbf16, #gpu.address_space<workgroup>>
// CHECK-NEXT: %[[GROUP:.*]] = nvgpu.device_async_create_group
// CHECK-NEXT: nvgpu.device_async_wait %[[GROUP]]
func.func @copy_async(%src: memref<?x?x8x128xbf16>, %b: index, %r: index,
    %h: index, %end: index, %tid: index, %slot: index,
    %dst: memref<2x64x136xbf16, #gpu.address_space<workgroup>>) {
  %g = fmha.tile_copy_async %src[%b, %r, %h] until %end thread %tid
      into %dst[%slot] {rows = 64 : i64, threads = 256 : i64}
      : memref<?x?x8x128xbf16>, memref<2x64x136xbf16, #gpu.address_space<workgroup>>
  nvgpu.device_async_wait %g
  return
}

// -----

// Fetched before a loop, carried by it (as the thread's two vectors),
// placed at the top of each iteration and fetched again for the next: the
// loads of block i + 1 are in flight while block i computes. The stores
// go last-loaded first.
// CHECK-LABEL: func.func @prefetch_loop
// CHECK: %[[A:.*]] = vector.load {{.*}} : memref<?x?x8x64xf16>, vector<8xf16>
// CHECK: %[[B:.*]] = vector.load {{.*}} : memref<?x?x8x64xf16>, vector<8xf16>
// CHECK: scf.for {{.*}} iter_args(%[[X:.*]] = %{{.*}}, %[[Y:.*]] = %{{.*}}) -> (vector<8xf16>, vector<8xf16>) {
// CHECK: vector.store %[[Y]]
// CHECK: vector.store %[[X]]
// CHECK: %[[NA:.*]] = vector.load
// CHECK: %[[NB:.*]] = vector.load
// CHECK: scf.yield {{.*}} : vector<8xf16>, vector<8xf16>
func.func @prefetch_loop(%src: memref<?x?x8x64xf16>, %b: index, %h: index,
    %seq: index, %tid: index, %n: index,
    %dst: memref<64x72xf16, #gpu.address_space<workgroup>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %first = fmha.tile_fetch %src[%b, %c0, %h] seq %seq thread %tid
      {aligned_rows} : memref<?x?x8x64xf16>
      -> !fmha.fetched<64x64xf16, chunk 1x8, threads 256>
  %last = scf.for %i = %c0 to %n step %c1 iter_args(%cur = %first)
      -> (!fmha.fetched<64x64xf16, chunk 1x8, threads 256>) {
    fmha.tile_place %cur thread %tid
        into %dst : memref<64x72xf16, #gpu.address_space<workgroup>>
        : !fmha.fetched<64x64xf16, chunk 1x8, threads 256>
    %i1 = arith.addi %i, %c1 : index
    %r = arith.muli %i1, %c64 : index
    %next = fmha.tile_fetch %src[%b, %r, %h] seq %seq thread %tid
        {aligned_rows} : memref<?x?x8x64xf16>
        -> !fmha.fetched<64x64xf16, chunk 1x8, threads 256>
    scf.yield %next : !fmha.fetched<64x64xf16, chunk 1x8, threads 256>
  }
  return
}
