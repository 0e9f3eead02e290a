// RUN: rocke-opt %s -split-input-file -pass-pipeline='builtin.module(gpu.module(gpu.func(fmha-place-workgroup-barriers)))' | FileCheck %s

// Bulk reductions (fmha.bulk_add) read their workgroup source through the
// async proxy until the issuing work-item's fmha.bulk_wait covers their
// group (fmha.bulk_commit closes one). The backward's
// staged dQ: each iteration issues the previous iteration's rows after the
// barrier that publishes them (with the proxy fence the writes need), waits
// for their reads before the barrier that publishes dS, then writes the
// stage again: two barriers an iteration, none for the stage alone.
// CHECK-LABEL: gpu.func @staged_rows
// CHECK: scf.for
// CHECK-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: scf.if
// CHECK-NEXT: fmha.bulk_add
// CHECK: fmha.bulk_commit
// CHECK-NEXT: memref.store %{{.*}}, %[[DS:[a-z0-9_]+]][
// CHECK-NEXT: fmha.bulk_wait
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: memref.load %[[DS]][
// CHECK-NEXT: memref.store
// CHECK-NEXT: }
// The last rows: issued after a fenced barrier, waited for at the end.
// CHECK-NEXT: nvvm.fence.proxy
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: scf.if
// CHECK-NEXT: fmha.bulk_add
// CHECK: fmha.bulk_commit
// CHECK-NEXT: fmha.bulk_wait
// CHECK-NEXT: gpu.return
#wg = #gpu.address_space<workgroup>
#global = #gpu.address_space<global>
gpu.module @m {
  gpu.func @staged_rows(%dq: memref<?x128xf32, #global>, %n: index, %v: f32)
      workgroup(%stage : memref<64x136xf32, #wg>, %ds : memref<64xf32, #wg>) kernel {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %issuer = arith.cmpi ult, %tid, %c64 : index
    scf.for %i = %c0 to %n step %c1 {
      scf.if %issuer {
        fmha.bulk_add %stage[%tid, %c0] to %dq[%tid, %c0] {count = 128 : i64}
            : memref<64x136xf32, #wg>, memref<?x128xf32, #global>
      }
      fmha.bulk_commit
      memref.store %v, %ds[%tid] : memref<64xf32, #wg>
      fmha.bulk_wait
      %r = memref.load %ds[%c0] : memref<64xf32, #wg>
      memref.store %r, %stage[%tid, %c0] : memref<64x136xf32, #wg>
    }
    scf.if %issuer {
      fmha.bulk_add %stage[%tid, %c0] to %dq[%tid, %c0] {count = 128 : i64}
          : memref<64x136xf32, #wg>, memref<?x128xf32, #global>
    }
    fmha.bulk_commit
    fmha.bulk_wait
    gpu.return
  }
}

// -----

// A barrier does not end a bulk reduction's read: a write of its source
// after the wait needs a barrier after the wait, even where one came
// between the issue and the wait.
// CHECK-LABEL: gpu.func @wait_then_write
// CHECK: fmha.bulk_add
// CHECK: gpu.barrier
// CHECK-NEXT: memref.load
// CHECK-NEXT: fmha.bulk_wait
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: memref.store
#wg = #gpu.address_space<workgroup>
#global = #gpu.address_space<global>
gpu.module @m {
  gpu.func @wait_then_write(%dq: memref<?x128xf32, #global>, %v: f32)
      workgroup(%stage : memref<64x136xf32, #wg>, %other : memref<64xf32, #wg>) kernel {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    fmha.bulk_add %stage[%tid, %c0] to %dq[%tid, %c0] {count = 128 : i64}
        : memref<64x136xf32, #wg>, memref<?x128xf32, #global>
    fmha.bulk_commit
    memref.store %v, %other[%tid] : memref<64xf32, #wg>
    %r = memref.load %other[%c0] : memref<64xf32, #wg>
    fmha.bulk_wait
    memref.store %r, %stage[%tid, %c0] : memref<64x136xf32, #wg>
    gpu.return
  }
}

// -----

// A double-buffered stage: iteration i writes slot i mod 2 and issues the
// rows of slot (i - 1) mod 2, in a group every work-item commits (empty
// where it issued none); the wait for all but the newest group before the
// barrier that publishes dS covers the reads of slot i mod 2 (issued an
// iteration earlier), and the reads still in flight are those of the
// other slot. Still two barriers an iteration.
// CHECK-LABEL: gpu.func @double_buffer
// CHECK: scf.for %[[I:.*]] = 
// CHECK-NEXT: nvvm.fence.proxy
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: arith.cmpi ugt, %[[I]]
// CHECK-NEXT: scf.if
// CHECK: fmha.bulk_add
// CHECK: fmha.bulk_commit
// CHECK-NEXT: memref.store %{{.*}}, %[[DS:[a-z0-9_]+]][
// CHECK-NEXT: fmha.bulk_wait pending 1
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: memref.load %[[DS]][
// CHECK-NEXT: arith.remui %[[I]]
// CHECK-NEXT: memref.subview
// CHECK-NEXT: memref.store
// CHECK-NEXT: }
// CHECK-NOT: gpu.barrier
// CHECK: fmha.bulk_wait{{$}}
// CHECK-NEXT: gpu.return
#wg = #gpu.address_space<workgroup>
#global = #gpu.address_space<global>
gpu.module @m {
  gpu.func @double_buffer(%dq: memref<?x128xf32, #global>, %n: index, %v: f32)
      workgroup(%stage : memref<2x64x136xf32, #wg>, %ds : memref<64xf32, #wg>) kernel {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %issuer = arith.cmpi ult, %tid, %c64 : index
    scf.for %i = %c0 to %n step %c1 {
      %later = arith.cmpi ugt, %i, %c0 : index
      scf.if %later {
        %prev = arith.subi %i, %c1 : index
        %prevSlot = arith.remui %prev, %c2 : index
        %src = memref.subview %stage[%prevSlot, 0, 0] [1, 64, 136] [1, 1, 1]
            : memref<2x64x136xf32, #wg> to memref<64x136xf32, strided<[136, 1], offset: ?>, #wg>
        scf.if %issuer {
          fmha.bulk_add %src[%tid, %c0] to %dq[%tid, %c0] {count = 128 : i64}
              : memref<64x136xf32, strided<[136, 1], offset: ?>, #wg>, memref<?x128xf32, #global>
        }
      }
      fmha.bulk_commit
      memref.store %v, %ds[%tid] : memref<64xf32, #wg>
      fmha.bulk_wait pending 1
      %r = memref.load %ds[%c0] : memref<64xf32, #wg>
      %slot = arith.remui %i, %c2 : index
      %dst = memref.subview %stage[%slot, 0, 0] [1, 64, 136] [1, 1, 1]
          : memref<2x64x136xf32, #wg> to memref<64x136xf32, strided<[136, 1], offset: ?>, #wg>
      memref.store %r, %dst[%tid, %c0] : memref<64x136xf32, strided<[136, 1], offset: ?>, #wg>
    }
    fmha.bulk_wait
    gpu.return
  }
}
