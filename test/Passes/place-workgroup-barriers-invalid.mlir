// RUN: rocke-opt %s -split-input-file -verify-diagnostics -pass-pipeline='builtin.module(gpu.module(gpu.func(fmha-place-workgroup-barriers)))'

// A loop of blocks joined by branches: the pass follows scf only, so a
// kernel accessing workgroup memory through cf is refused, not left
// without barriers.
gpu.module @m {
  gpu.func @cf_loop(%out: memref<64xf32>, %n: index)
      workgroup(%buf : memref<64xf32, #gpu.address_space<workgroup>>) kernel {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %x = arith.constant 1.0 : f32
    // expected-error @below {{fmha-place-workgroup-barriers needs structured control flow (scf) in a kernel that accesses workgroup memory; this kernel's body is blocks joined by branches}}
    cf.br ^loop(%c0 : index)
  ^loop(%i: index):
    // expected-note @below {{workgroup memory accessed here}}
    memref.store %x, %buf[%tid] : memref<64xf32, #gpu.address_space<workgroup>>
    %y = memref.load %buf[%i] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %y, %out[%tid] : memref<64xf32>
    %next = arith.addi %i, %c1 : index
    %more = arith.cmpi ult, %next, %n : index
    cf.cond_br %more, ^loop(%next : index), ^exit
  ^exit:
    gpu.return
  }
}

// -----

// A read of another work-item's write, both inside an scf.if that only the
// first 32 work-items take: the barrier between them would not be reached
// by the others.
gpu.module @m {
  gpu.func @divergent_if(%out: memref<64xf32>)
      workgroup(%buf : memref<64xf32, #gpu.address_space<workgroup>>) kernel {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %x = arith.constant 1.0 : f32
    %first = arith.cmpi ult, %tid, %c32 : index
    // expected-note @below {{control flow depending on the work-item}}
    scf.if %first {
      // expected-note @below {{the conflicting write}}
      memref.store %x, %buf[%tid] : memref<64xf32, #gpu.address_space<workgroup>>
      // expected-error @below {{needs a gpu.barrier after a conflicting workgroup-memory write, but both are inside control flow that not every work-item takes, where a barrier would not be reached by the whole workgroup}}
      %y = memref.load %buf[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
      memref.store %y, %out[%tid] : memref<64xf32>
    }
    gpu.return
  }
}

// -----

// A loop whose bounds depend on the work-item: the write of one iteration
// follows another work-item's read of the previous one (a divergent op's
// first hazard is reported, the read after the write is not).
gpu.module @m {
  gpu.func @divergent_loop(%out: memref<64xf32>)
      workgroup(%buf : memref<64xf32, #gpu.address_space<workgroup>>) kernel {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %x = arith.constant 1.0 : f32
    // expected-note @below {{control flow depending on the work-item}}
    scf.for %i = %tid to %c64 step %c32 {
      // expected-error @below {{needs a gpu.barrier after a conflicting workgroup-memory read}}
      memref.store %x, %buf[%i] : memref<64xf32, #gpu.address_space<workgroup>>
      // expected-note @below {{the conflicting read}}
      %y = memref.load %buf[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
      memref.store %y, %out[%i] : memref<64xf32>
    }
    gpu.return
  }
}

// -----

// An scf.while whose condition depends on the work-item (a carried value
// fed by the work-item id) is divergent too: the read in the before region
// follows another work-item's write in the after region.
gpu.module @m {
  gpu.func @divergent_while(%out: memref<64xf32>)
      workgroup(%buf : memref<64xf32, #gpu.address_space<workgroup>>) kernel {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %x = arith.constant 1.0 : f32
    // expected-note @below {{control flow depending on the work-item}}
    %r = scf.while (%i = %tid) : (index) -> index {
      // expected-error @below {{needs a gpu.barrier after a conflicting workgroup-memory write}}
      %y = memref.load %buf[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
      memref.store %y, %out[%i] : memref<64xf32>
      %go = arith.cmpi ult, %i, %c64 : index
      scf.condition(%go) %i : index
    } do {
    ^bb0(%j: index):
      // expected-note @below {{the conflicting write}}
      memref.store %x, %buf[%j] : memref<64xf32, #gpu.address_space<workgroup>>
      %next = arith.addi %j, %c32 : index
      scf.yield %next : index
    }
    gpu.return
  }
}

// -----

// A copy issued by every work-item, waited for inside divergent control
// flow and read there: the barrier after the wait would be divergent.
gpu.module @m {
  gpu.func @divergent_wait(%src: memref<64xf32>, %out: memref<64xf32>)
      workgroup(%buf : memref<64xf32, #gpu.address_space<workgroup>>) kernel {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    // expected-note @below {{the conflicting write}}
    %t = nvgpu.device_async_copy %src[%tid], %buf[%tid], 4 : memref<64xf32> to memref<64xf32, #gpu.address_space<workgroup>>
    %g = nvgpu.device_async_create_group %t
    %first = arith.cmpi ult, %tid, %c32 : index
    // expected-note @below {{control flow depending on the work-item}}
    scf.if %first {
      nvgpu.device_async_wait %g
      // expected-error @below {{needs a gpu.barrier after a conflicting workgroup-memory write}}
      %y = memref.load %buf[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
      memref.store %y, %out[%tid] : memref<64xf32>
    }
    gpu.return
  }
}

// -----

// An op with regions the pass does not follow, holding workgroup-memory
// accesses: refused rather than skipped.
gpu.module @m {
  gpu.func @unknown_region(%out: memref<64xf32>)
      workgroup(%buf : memref<64xf32, #gpu.address_space<workgroup>>) kernel {
    %tid = gpu.thread_id x
    %x = arith.constant 1.0 : f32
    // expected-error @below {{holds workgroup-memory accesses in regions that fmha-place-workgroup-barriers does not follow (it follows scf.for, scf.if and scf.while)}}
    scf.execute_region {
      // expected-note @below {{workgroup memory accessed here}}
      memref.store %x, %buf[%tid] : memref<64xf32, #gpu.address_space<workgroup>>
      scf.yield
    }
    gpu.return
  }
}

// -----

// A write of a bulk reduction's source before the wait for its read: no
// barrier can order it.
#wg = #gpu.address_space<workgroup>
#global = #gpu.address_space<global>
gpu.module @m {
  gpu.func @bulk_source_written(%dq: memref<?x128xf32, #global>, %v: f32)
      workgroup(%stage : memref<64x136xf32, #wg>) kernel {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    // expected-note @below {{the bulk reduction}}
    fmha.bulk_add %stage[%tid, %c0] to %dq[%tid, %c0] {count = 128 : i64}
        : memref<64x136xf32, #wg>, memref<?x128xf32, #global>
    // expected-error @below {{writes workgroup memory that an fmha.bulk_add may still be reading: an fmha.bulk_wait (then a barrier) must come first}}
    memref.store %v, %stage[%tid, %c0] : memref<64x136xf32, #wg>
    fmha.bulk_commit
    fmha.bulk_wait
    gpu.return
  }
}

// -----

// A double buffer whose wait leaves two groups pending: the group that read
// the slot about to be written (issued an iteration earlier) may still be
// reading it.
#wg = #gpu.address_space<workgroup>
#global = #gpu.address_space<global>
gpu.module @m {
  gpu.func @double_buffer_waits_too_little(%dq: memref<?x128xf32, #global>, %n: index, %v: f32)
      workgroup(%stage : memref<2x64x136xf32, #wg>) kernel {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    scf.for %i = %c1 to %n step %c1 {
      %prev = arith.subi %i, %c1 : index
      %prevSlot = arith.remui %prev, %c2 : index
      %src = memref.subview %stage[%prevSlot, 0, 0] [1, 64, 136] [1, 1, 1]
          : memref<2x64x136xf32, #wg> to memref<64x136xf32, strided<[136, 1], offset: ?>, #wg>
      // expected-note @below {{the bulk reduction}}
      fmha.bulk_add %src[%tid, %c0] to %dq[%tid, %c0] {count = 128 : i64}
          : memref<64x136xf32, strided<[136, 1], offset: ?>, #wg>, memref<?x128xf32, #global>
      fmha.bulk_commit
      fmha.bulk_wait pending 2
      %slot = arith.remui %i, %c2 : index
      %dst = memref.subview %stage[%slot, 0, 0] [1, 64, 136] [1, 1, 1]
          : memref<2x64x136xf32, #wg> to memref<64x136xf32, strided<[136, 1], offset: ?>, #wg>
      // expected-error @below {{writes workgroup memory that an fmha.bulk_add may still be reading}}
      memref.store %v, %dst[%tid, %c0] : memref<64x136xf32, strided<[136, 1], offset: ?>, #wg>
    }
    fmha.bulk_wait
    gpu.return
  }
}

// -----

// Both slot indices the same (i + 1 - 1): the write's slot is the one the
// newest group, which the wait leaves pending, reads.
#wg = #gpu.address_space<workgroup>
#global = #gpu.address_space<global>
gpu.module @m {
  gpu.func @double_buffer_same_slot(%dq: memref<?x128xf32, #global>, %n: index, %v: f32)
      workgroup(%stage : memref<2x64x136xf32, #wg>) kernel {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    scf.for %i = %c1 to %n step %c1 {
      %next = arith.addi %i, %c1 : index
      %prev = arith.subi %next, %c1 : index
      %prevSlot = arith.remui %prev, %c2 : index
      %src = memref.subview %stage[%prevSlot, 0, 0] [1, 64, 136] [1, 1, 1]
          : memref<2x64x136xf32, #wg> to memref<64x136xf32, strided<[136, 1], offset: ?>, #wg>
      // expected-note @below {{the bulk reduction}}
      fmha.bulk_add %src[%tid, %c0] to %dq[%tid, %c0] {count = 128 : i64}
          : memref<64x136xf32, strided<[136, 1], offset: ?>, #wg>, memref<?x128xf32, #global>
      fmha.bulk_commit
      fmha.bulk_wait pending 1
      %slot = arith.remui %i, %c2 : index
      %dst = memref.subview %stage[%slot, 0, 0] [1, 64, 136] [1, 1, 1]
          : memref<2x64x136xf32, #wg> to memref<64x136xf32, strided<[136, 1], offset: ?>, #wg>
      // expected-error @below {{writes workgroup memory that an fmha.bulk_add may still be reading}}
      memref.store %v, %dst[%tid, %c0] : memref<64x136xf32, strided<[136, 1], offset: ?>, #wg>
    }
    fmha.bulk_wait
    gpu.return
  }
}

// -----

// A bulk reduction whose group is never committed: no wait covers it.
#wg = #gpu.address_space<workgroup>
#global = #gpu.address_space<global>
gpu.module @m {
  // expected-error @below {{ends while an fmha.bulk_add may still be reading workgroup memory: its group is never committed (fmha.bulk_commit), so no fmha.bulk_wait covers it}}
  gpu.func @bulk_never_committed(%dq: memref<?x128xf32, #global>)
      workgroup(%stage : memref<64x136xf32, #wg>) kernel {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    // expected-note @below {{the bulk reduction}}
    fmha.bulk_add %stage[%tid, %c0] to %dq[%tid, %c0] {count = 128 : i64}
        : memref<64x136xf32, #wg>, memref<?x128xf32, #global>
    fmha.bulk_wait
    gpu.return
  }
}

// -----

// The kernel ends with the newest group pending: its read would outlive
// the workgroup's memory.
#wg = #gpu.address_space<workgroup>
#global = #gpu.address_space<global>
gpu.module @m {
  // expected-error @below {{an fmha.bulk_wait must cover its group before the end}}
  gpu.func @bulk_not_waited_for(%dq: memref<?x128xf32, #global>)
      workgroup(%stage : memref<64x136xf32, #wg>) kernel {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    // expected-note @below {{the bulk reduction}}
    fmha.bulk_add %stage[%tid, %c0] to %dq[%tid, %c0] {count = 128 : i64}
        : memref<64x136xf32, #wg>, memref<?x128xf32, #global>
    fmha.bulk_commit
    fmha.bulk_wait pending 1
    gpu.return
  }
}
