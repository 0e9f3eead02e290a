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

// -----

// Async copies into slot i rem 2 of a double-buffered tile, waited for in
// the same iteration, the slot read through its view: the copies of block
// i + 1 go right after this block's wait, into the other slot, and the loop
// carries their group; the block past the end is waited for after the loop.
// CHECK-LABEL: func.func @async_copies
// CHECK: %[[S0:.*]] = arith.remui %[[LB:.*]], %{{.*}} : index
// CHECK: fmha.tile_copy_async {{.*}} into %{{.*}}[%[[S0]]]
// CHECK: %[[G0:.*]] = fmha.tile_copy_async {{.*}} into %{{.*}}[%[[S0]]]
// CHECK: %[[L:.*]] = scf.for %[[I:.*]] = %[[LB]] to {{.*}} iter_args(%[[G:.*]] = %[[G0]])
// CHECK: %[[SLOT:.*]] = arith.remui %[[I]]
// CHECK-NOT: fmha.tile_copy_async
// CHECK: nvgpu.device_async_wait %[[G]]
// CHECK-NEXT: %[[NEXT:.*]] = arith.addi %[[I]], %{{.*}} : index
// CHECK: %[[S1:.*]] = arith.remui %[[NEXT]]
// CHECK: fmha.tile_copy_async {{.*}} into %{{.*}}[%[[S1]]]
// CHECK: %[[G1:.*]] = fmha.tile_copy_async {{.*}} into %{{.*}}[%[[S1]]]
// CHECK: memref.subview %{{.*}}[%[[SLOT]], 0, 0]
// CHECK: scf.yield %[[G1]]
// CHECK: nvgpu.device_async_wait %[[L]]
// CHECK-NEXT: return
func.func @async_copies(%q: memref<?x?x8x64xf16>, %k: memref<?x?x8x64xf16>,
    %lb: index, %ub: index, %b: index, %h: index, %end: index, %tid: index,
    %qbuf: memref<2x64x72xf16, #gpu.address_space<workgroup>>,
    %kbuf: memref<2x64x72xf16, #gpu.address_space<workgroup>>,
    %out: memref<64xf16, #gpu.address_space<workgroup>>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %lb to %ub step %c1 {
    %r0 = arith.muli %i, %c64 : index
    %slot = arith.remui %i, %c2 : index
    %gq = fmha.tile_copy_async %q[%b, %r0, %h] until %end thread %tid
        into %qbuf[%slot] {rows = 64 : i64, threads = 256 : i64}
        : memref<?x?x8x64xf16>,
          memref<2x64x72xf16, #gpu.address_space<workgroup>>
    %gk = fmha.tile_copy_async %k[%b, %r0, %h] until %end thread %tid
        into %kbuf[%slot] {rows = 64 : i64, threads = 256 : i64}
        : memref<?x?x8x64xf16>,
          memref<2x64x72xf16, #gpu.address_space<workgroup>>
    nvgpu.device_async_wait %gk
    %tile = memref.subview %qbuf[%slot, 0, 0] [1, 64, 72] [1, 1, 1]
        : memref<2x64x72xf16, #gpu.address_space<workgroup>>
          to memref<64x72xf16, strided<[72, 1], offset: ?>,
                    #gpu.address_space<workgroup>>
    %x = memref.load %tile[%tid, %tid]
        : memref<64x72xf16, strided<[72, 1], offset: ?>,
                 #gpu.address_space<workgroup>>
    memref.store %x, %out[%tid] : memref<64xf16, #gpu.address_space<workgroup>>
  }
  return
}

// -----

// The loop also reads slot 0 of the tile, whatever its block: the next
// block's copy could land in the slot read, so the loop is left as it is.
// CHECK-LABEL: func.func @async_copy_other_slot_read
// CHECK: scf.for
// CHECK-NEXT: arith.muli
// CHECK-NEXT: arith.remui
// CHECK-NEXT: fmha.tile_copy_async
// CHECK-NOT: iter_args
func.func @async_copy_other_slot_read(%q: memref<?x?x8x64xf16>, %lb: index,
    %ub: index, %b: index, %h: index, %end: index, %tid: index,
    %qbuf: memref<2x64x72xf16, #gpu.address_space<workgroup>>,
    %out: memref<64xf16, #gpu.address_space<workgroup>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %lb to %ub step %c1 {
    %r0 = arith.muli %i, %c64 : index
    %slot = arith.remui %i, %c2 : index
    %gq = fmha.tile_copy_async %q[%b, %r0, %h] until %end thread %tid
        into %qbuf[%slot] {rows = 64 : i64, threads = 256 : i64}
        : memref<?x?x8x64xf16>,
          memref<2x64x72xf16, #gpu.address_space<workgroup>>
    nvgpu.device_async_wait %gq
    %x = memref.load %qbuf[%c0, %tid, %tid]
        : memref<2x64x72xf16, #gpu.address_space<workgroup>>
    memref.store %x, %out[%tid] : memref<64xf16, #gpu.address_space<workgroup>>
  }
  return
}

// -----

// A step of 2 with two slots: block i + 2 would land in block i's slot, so
// the loop is left as it is.
// CHECK-LABEL: func.func @async_copy_step_of_slots
// CHECK: scf.for
// CHECK-NEXT: arith.muli
// CHECK-NEXT: arith.remui
// CHECK-NEXT: fmha.tile_copy_async
// CHECK-NOT: iter_args
func.func @async_copy_step_of_slots(%q: memref<?x?x8x64xf16>, %lb: index,
    %ub: index, %b: index, %h: index, %end: index, %tid: index,
    %qbuf: memref<2x64x72xf16, #gpu.address_space<workgroup>>) {
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %lb to %ub step %c2 {
    %r0 = arith.muli %i, %c64 : index
    %slot = arith.remui %i, %c2 : index
    %gq = fmha.tile_copy_async %q[%b, %r0, %h] until %end thread %tid
        into %qbuf[%slot] {rows = 64 : i64, threads = 256 : i64}
        : memref<?x?x8x64xf16>,
          memref<2x64x72xf16, #gpu.address_space<workgroup>>
    nvgpu.device_async_wait %gq
  }
  return
}

// -----

// Loops in sequence with async copies: one pipeline, one prologue, and one
// wait, after the last loop.
// CHECK-LABEL: func.func @async_loops_in_sequence
// CHECK: %[[G0:.*]] = fmha.tile_copy_async
// CHECK-NOT: fmha.tile_copy_async
// CHECK: %[[L1:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[G0]])
// CHECK: fmha.tile_copy_async
// CHECK: scf.yield
// CHECK-NOT: nvgpu.device_async_wait
// CHECK: %[[L2:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[L1]])
// CHECK: nvgpu.device_async_wait
// CHECK: fmha.tile_copy_async
// CHECK: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: nvgpu.device_async_wait %[[L2]]
// CHECK-NEXT: return
func.func @async_loops_in_sequence(%q: memref<?x?x8x64xf16>, %lb: index,
    %mid: index, %ub: index, %b: index, %h: index, %end: index, %tid: index,
    %qbuf: memref<2x64x72xf16, #gpu.address_space<workgroup>>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %lb to %mid step %c1 {
    %r0 = arith.muli %i, %c64 : index
    %slot = arith.remui %i, %c2 : index
    %gq = fmha.tile_copy_async %q[%b, %r0, %h] until %end thread %tid
        into %qbuf[%slot] {rows = 64 : i64, threads = 256 : i64}
        : memref<?x?x8x64xf16>,
          memref<2x64x72xf16, #gpu.address_space<workgroup>>
    nvgpu.device_async_wait %gq
  }
  scf.for %i = %mid to %ub step %c1 {
    %r0 = arith.muli %i, %c64 : index
    %slot = arith.remui %i, %c2 : index
    %gq = fmha.tile_copy_async %q[%b, %r0, %h] until %end thread %tid
        into %qbuf[%slot] {rows = 64 : i64, threads = 256 : i64}
        : memref<?x?x8x64xf16>,
          memref<2x64x72xf16, #gpu.address_space<workgroup>>
    nvgpu.device_async_wait %gq
  }
  return
}

// -----

// Where the next block's reads go: before the operand reads of the last
// product whose result reaches memory in the iteration (%s, written out),
// not before a later one that only feeds the carried accumulator (%acc2),
// which holds nothing up in its iteration.
// CHECK-LABEL: func.func @issue_point
// CHECK: scf.for
// CHECK: fmha.tile_place
// CHECK: %[[NEXT:.*]] = arith.addi
// CHECK-NEXT: arith.muli %[[NEXT]]
// CHECK-NEXT: fmha.tile_fetch
// CHECK-NEXT: fmha.tile_read
// CHECK: fmha.tile_mma
// CHECK: fmha.tile_write
// CHECK: fmha.tile_mma
// CHECK-NOT: fmha.tile_fetch
// CHECK: scf.yield
func.func @issue_point(%src: memref<?x?x8x64xf16>, %lb: index, %ub: index,
    %b: index, %h: index, %seq: index, %tid: index,
    %dst: memref<64x72xf16, #gpu.address_space<workgroup>>,
    %out: memref<32x40xf32, #gpu.address_space<workgroup>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %z = fmha.tile_zero : !fmha.tile<32x32xf32, c, "mfma_f32_16x16x16_bf16">
  %r = scf.for %i = %lb to %ub step %c1 iter_args(%acc = %z)
      -> (!fmha.tile<32x32xf32, c, "mfma_f32_16x16x16_bf16">) {
    %q0 = arith.muli %i, %c64 : index
    %rows = fmha.tile_fetch %src[%b, %q0, %h] seq %seq thread %tid
        {aligned_rows, tail_unspecified} : memref<?x?x8x64xf16>
        -> !fmha.fetched<64x64xf16, chunk 1x8, threads 256>
    fmha.tile_place %rows thread %tid
        into %dst : memref<64x72xf16, #gpu.address_space<workgroup>>
        : !fmha.fetched<64x64xf16, chunk 1x8, threads 256>
    %a = fmha.tile_read %dst[%c0, %c0] lane %tid
        : memref<64x72xf16, #gpu.address_space<workgroup>>
        -> !fmha.tile<32x32xf16, a, "mfma_f32_16x16x16_bf16">
    %bt = fmha.tile_read %dst[%c0, %c0] lane %tid {transposed}
        : memref<64x72xf16, #gpu.address_space<workgroup>>
        -> !fmha.tile<32x32xf16, b, "mfma_f32_16x16x16_bf16">
    %s = fmha.tile_mma %a, %bt, %z
        : !fmha.tile<32x32xf16, a, "mfma_f32_16x16x16_bf16">,
          !fmha.tile<32x32xf16, b, "mfma_f32_16x16x16_bf16">
        -> !fmha.tile<32x32xf32, c, "mfma_f32_16x16x16_bf16">
    fmha.tile_write %s, %out[%c0, %c0] lane %tid
        : !fmha.tile<32x32xf32, c, "mfma_f32_16x16x16_bf16">,
          memref<32x40xf32, #gpu.address_space<workgroup>>
    %acc2 = fmha.tile_mma %a, %bt, %acc
        : !fmha.tile<32x32xf16, a, "mfma_f32_16x16x16_bf16">,
          !fmha.tile<32x32xf16, b, "mfma_f32_16x16x16_bf16">
        -> !fmha.tile<32x32xf32, c, "mfma_f32_16x16x16_bf16">
    scf.yield %acc2 : !fmha.tile<32x32xf32, c, "mfma_f32_16x16x16_bf16">
  }
  return
}

// -----

// A body whose products only feed what the loop carries (the forward's
// S^T = K Q^T, whose scores make P, and O^T += V^T P^T): the next block's
// fetches go before the first product's operand reads, so the whole
// iteration hides their latency.
// CHECK-LABEL: func.func @issue_point_carried_only
// CHECK: scf.for
// CHECK: fmha.tile_place
// CHECK: fmha.tile_place
// CHECK: %[[NEXT:.*]] = arith.addi
// CHECK-NEXT: arith.muli %[[NEXT]]
// CHECK-NEXT: fmha.tile_fetch
// CHECK-NEXT: fmha.tile_fetch
// CHECK-NEXT: fmha.tile_read
// CHECK: fmha.tile_mma
// CHECK: fmha.tile_mma
// CHECK-NOT: fmha.tile_fetch
// CHECK: scf.yield
func.func @issue_point_carried_only(%k: memref<?x?x8x64xf16>,
    %v: memref<?x?x8x64xf16>, %lb: index, %ub: index, %b: index, %h: index,
    %seq: index, %tid: index,
    %q: !fmha.tile<32x32xf16, b, "mfma_f32_16x16x16_f16">,
    %kbuf: memref<64x72xf16, #gpu.address_space<workgroup>>,
    %vbuf: memref<64x72xf16, #gpu.address_space<workgroup>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %z = fmha.tile_zero : !fmha.tile<32x32xf32, c, "mfma_f32_16x16x16_f16">
  %r = scf.for %i = %lb to %ub step %c1 iter_args(%acc = %z)
      -> (!fmha.tile<32x32xf32, c, "mfma_f32_16x16x16_f16">) {
    %k0 = arith.muli %i, %c64 : index
    %krows = fmha.tile_fetch %k[%b, %k0, %h] seq %seq thread %tid
        {aligned_rows, tail_unspecified} : memref<?x?x8x64xf16>
        -> !fmha.fetched<64x64xf16, chunk 1x8, threads 256>
    %vrows = fmha.tile_fetch %v[%b, %k0, %h] seq %seq thread %tid
        {aligned_rows, tail_unspecified} : memref<?x?x8x64xf16>
        -> !fmha.fetched<64x64xf16, chunk 1x8, threads 256>
    fmha.tile_place %krows thread %tid
        into %kbuf : memref<64x72xf16, #gpu.address_space<workgroup>>
        : !fmha.fetched<64x64xf16, chunk 1x8, threads 256>
    fmha.tile_place %vrows thread %tid
        into %vbuf : memref<64x72xf16, #gpu.address_space<workgroup>>
        : !fmha.fetched<64x64xf16, chunk 1x8, threads 256>
    %kt = fmha.tile_read %kbuf[%c0, %c0] lane %tid
        : memref<64x72xf16, #gpu.address_space<workgroup>>
        -> !fmha.tile<32x32xf16, a, "mfma_f32_16x16x16_f16">
    %s = fmha.tile_mma %kt, %q, %z
        : !fmha.tile<32x32xf16, a, "mfma_f32_16x16x16_f16">,
          !fmha.tile<32x32xf16, b, "mfma_f32_16x16x16_f16">
        -> !fmha.tile<32x32xf32, c, "mfma_f32_16x16x16_f16">
    %p = fmha.tile_convert %s
        : !fmha.tile<32x32xf32, c, "mfma_f32_16x16x16_f16">
        -> !fmha.tile<32x32xf16, b, "mfma_f32_16x16x16_f16">
    %vt = fmha.tile_read %vbuf[%c0, %c0] lane %tid {transposed}
        : memref<64x72xf16, #gpu.address_space<workgroup>>
        -> !fmha.tile<32x32xf16, a, "mfma_f32_16x16x16_f16">
    %acc2 = fmha.tile_mma %vt, %p, %acc
        : !fmha.tile<32x32xf16, a, "mfma_f32_16x16x16_f16">,
          !fmha.tile<32x32xf16, b, "mfma_f32_16x16x16_f16">
        -> !fmha.tile<32x32xf32, c, "mfma_f32_16x16x16_f16">
    scf.yield %acc2 : !fmha.tile<32x32xf32, c, "mfma_f32_16x16x16_f16">
  }
  return
}

// -----

// An async copy the loop never waits for (its wait is after the loop): the
// next block's copy would have no place after this block's wait, so the
// loop is left as it is, its fetch included.
// CHECK-LABEL: func.func @async_copy_not_waited
// CHECK: scf.for
// CHECK-NEXT: arith.muli
// CHECK-NEXT: arith.remui
// CHECK-NEXT: fmha.tile_copy_async
// CHECK-NOT: iter_args
func.func @async_copy_not_waited(%q: memref<?x?x8x64xf16>, %lb: index,
    %ub: index, %b: index, %h: index, %end: index, %tid: index,
    %qbuf: memref<2x64x72xf16, #gpu.address_space<workgroup>>,
    %dst: memref<64x72xf16, #gpu.address_space<workgroup>>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %lb to %ub step %c1 {
    %r0 = arith.muli %i, %c64 : index
    %slot = arith.remui %i, %c2 : index
    %gq = fmha.tile_copy_async %q[%b, %r0, %h] until %end thread %tid
        into %qbuf[%slot] {rows = 64 : i64, threads = 256 : i64}
        : memref<?x?x8x64xf16>,
          memref<2x64x72xf16, #gpu.address_space<workgroup>>
    %rows = fmha.tile_fetch %q[%b, %r0, %h] seq %end thread %tid
        {aligned_rows, tail_unspecified} : memref<?x?x8x64xf16>
        -> !fmha.fetched<64x64xf16, chunk 1x8, threads 256>
    fmha.tile_place %rows thread %tid
        into %dst : memref<64x72xf16, #gpu.address_space<workgroup>>
        : !fmha.fetched<64x64xf16, chunk 1x8, threads 256>
  }
  return
}
