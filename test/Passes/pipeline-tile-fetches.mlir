// RUN: rocke-opt %s -split-input-file -fmha-pipeline-tile-fetches | FileCheck %s

// A loop that fetches a block's rows, places them and reads each row's
// record: the fetch and the padded read move one iteration ahead, before the
// loop for block lb, and the loop carries them; the place and the use stay.
// Nothing is predicated: the last iteration reads a block past the end,
// which the fetch clamps and the read pads.
// CHECK-LABEL: func.func @pipelined
// CHECK: %[[F0:.*]] = fmha.tile_fetch %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] seq
// CHECK: %[[S0:.*]] = vector.transfer_read
// CHECK: scf.for %[[I:.*]] = {{.*}} iter_args(%[[CUR:.*]] = %[[F0]], %[[STAT:.*]] = %[[S0]])
// CHECK: fmha.tile_place %[[CUR]]
// CHECK: vector.extract %[[STAT]][0]
// CHECK: memref.store
// CHECK: %[[NEXT:.*]] = arith.addi %[[I]], %{{.*}} : index
// CHECK: %[[F1:.*]] = fmha.tile_fetch
// CHECK: %[[S1:.*]] = vector.transfer_read
// CHECK-NOT: scf.if
// CHECK: scf.yield %[[F1]], %[[S1]]
func.func @pipelined(%src: memref<?x?x8x64xf16>, %stats: memref<?x8x?xf32>,
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

// The statistic's row index follows the loop but its dim is in_bounds: the
// read cannot run a block past the end unguarded, so it stays in its
// iteration; the fetch still moves ahead.
// CHECK-LABEL: func.func @in_bounds_read_stays
// CHECK: fmha.tile_fetch
// CHECK: scf.for
// CHECK: fmha.tile_place
// CHECK: vector.transfer_read
// CHECK: fmha.tile_fetch
// CHECK: scf.yield
func.func @in_bounds_read_stays(%src: memref<?x?x8x64xf16>,
    %stats: memref<?x8x?xf32>, %lb: index, %ub: index, %b: index, %h: index,
    %seq: index, %tid: index,
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
    %s = vector.transfer_read %stats[%b, %h, %row], %pad {in_bounds = [true]}
        : memref<?x8x?xf32>, vector<1xf32>
    %x = vector.extract %s[0] : f32 from vector<1xf32>
    memref.store %x, %row_stats[%tid]
        : memref<64xf32, #gpu.address_space<workgroup>>
  }
  return
}

// -----

// The loop writes the memref it fetches from: its next block is not known
// an iteration ahead, so the loop is left as it is.
// CHECK-LABEL: func.func @writes_source
// CHECK: scf.for
// CHECK-NEXT: arith.muli
// CHECK-NEXT: fmha.tile_fetch
// CHECK-NOT: iter_args
func.func @writes_source(%src: memref<?x?x8x64xf16>, %lb: index, %ub: index,
    %b: index, %h: index, %seq: index, %tid: index,
    %dst: memref<64x72xf16, #gpu.address_space<workgroup>>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f16
  scf.for %i = %lb to %ub step %c1 {
    %q0 = arith.muli %i, %c64 : index
    %rows = fmha.tile_fetch %src[%b, %q0, %h] seq %seq thread %tid
        {aligned_rows, tail_unspecified} : memref<?x?x8x64xf16>
        -> !fmha.fetched<64x64xf16, chunk 1x8, threads 256>
    fmha.tile_place %rows thread %tid
        into %dst : memref<64x72xf16, #gpu.address_space<workgroup>>
        : !fmha.fetched<64x64xf16, chunk 1x8, threads 256>
    memref.store %zero, %src[%b, %q0, %h, %tid] : memref<?x?x8x64xf16>
  }
  return
}

// -----

// Two loops in sequence (the second starts at the first's end) with the
// same reads: one pipeline. The block the first loop's last iteration reads
// is the second loop's first, so only the first loop has a prologue.
// CHECK-LABEL: func.func @loops_in_sequence
// CHECK: %[[F0:.*]] = fmha.tile_fetch
// CHECK-NOT: fmha.tile_fetch
// CHECK: %[[L1:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[F0]])
// CHECK: fmha.tile_place
// CHECK: fmha.tile_fetch
// CHECK: scf.yield
// CHECK-NOT: fmha.tile_fetch
// CHECK: scf.for {{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %[[L1]])
// CHECK: fmha.tile_place
// CHECK: fmha.tile_fetch
// CHECK: scf.yield
// CHECK-NOT: fmha.tile_fetch
// CHECK: return
func.func @loops_in_sequence(%src: memref<?x?x8x64xf16>, %lb: index,
    %mid: index, %ub: index, %b: index, %h: index, %seq: index, %tid: index,
    %dst: memref<64x72xf16, #gpu.address_space<workgroup>>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %lb to %mid step %c1 {
    %q0 = arith.muli %i, %c64 : index
    %rows = fmha.tile_fetch %src[%b, %q0, %h] seq %seq thread %tid
        {aligned_rows, tail_unspecified} : memref<?x?x8x64xf16>
        -> !fmha.fetched<64x64xf16, chunk 1x8, threads 256>
    fmha.tile_place %rows thread %tid
        into %dst : memref<64x72xf16, #gpu.address_space<workgroup>>
        : !fmha.fetched<64x64xf16, chunk 1x8, threads 256>
  }
  scf.for %i = %mid to %ub step %c1 {
    %q0 = arith.muli %i, %c64 : index
    %rows = fmha.tile_fetch %src[%b, %q0, %h] seq %seq thread %tid
        {aligned_rows, tail_unspecified} : memref<?x?x8x64xf16>
        -> !fmha.fetched<64x64xf16, chunk 1x8, threads 256>
    fmha.tile_place %rows thread %tid
        into %dst : memref<64x72xf16, #gpu.address_space<workgroup>>
        : !fmha.fetched<64x64xf16, chunk 1x8, threads 256>
  }
  return
}

// -----

// The second loop reads other rows (another head): it starts its own
// pipeline, with a prologue of its own.
// CHECK-LABEL: func.func @different_reads
// CHECK: fmha.tile_fetch
// CHECK: scf.for
// CHECK: scf.yield
// CHECK: fmha.tile_fetch
// CHECK: scf.for
// CHECK: scf.yield
func.func @different_reads(%src: memref<?x?x8x64xf16>, %lb: index,
    %mid: index, %ub: index, %b: index, %h: index, %h2: index, %seq: index,
    %tid: index, %dst: memref<64x72xf16, #gpu.address_space<workgroup>>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %lb to %mid step %c1 {
    %q0 = arith.muli %i, %c64 : index
    %rows = fmha.tile_fetch %src[%b, %q0, %h] seq %seq thread %tid
        {aligned_rows, tail_unspecified} : memref<?x?x8x64xf16>
        -> !fmha.fetched<64x64xf16, chunk 1x8, threads 256>
    fmha.tile_place %rows thread %tid
        into %dst : memref<64x72xf16, #gpu.address_space<workgroup>>
        : !fmha.fetched<64x64xf16, chunk 1x8, threads 256>
  }
  scf.for %i = %mid to %ub step %c1 {
    %q0 = arith.muli %i, %c64 : index
    %rows = fmha.tile_fetch %src[%b, %q0, %h2] seq %seq thread %tid
        {aligned_rows, tail_unspecified} : memref<?x?x8x64xf16>
        -> !fmha.fetched<64x64xf16, chunk 1x8, threads 256>
    fmha.tile_place %rows thread %tid
        into %dst : memref<64x72xf16, #gpu.address_space<workgroup>>
        : !fmha.fetched<64x64xf16, chunk 1x8, threads 256>
  }
  return
}
