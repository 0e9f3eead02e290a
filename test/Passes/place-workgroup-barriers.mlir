// RUN: rocke-opt %s -split-input-file -pass-pipeline='builtin.module(gpu.module(gpu.func(fmha-place-workgroup-barriers)))' | FileCheck %s

// A read after another work-item's write: one barrier, right before the read.
// CHECK-LABEL: gpu.func @read_after_write
// CHECK: memref.store
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: memref.load
// CHECK-NOT: gpu.barrier
gpu.module @m {
  gpu.func @read_after_write(%out: memref<64xf32>)
      workgroup(%buf : memref<64xf32, #gpu.address_space<workgroup>>) kernel {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %x = arith.constant 1.0 : f32
    memref.store %x, %buf[%tid] : memref<64xf32, #gpu.address_space<workgroup>>
    %y = memref.load %buf[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %y, %out[%tid] : memref<64xf32>
    gpu.return
  }
}

// -----

// Writes of one phase are not ordered against each other; accesses to
// different buffers, and global memory, never conflict; an existing barrier
// clears the hazards and stays.
// CHECK-LABEL: gpu.func @no_conflict
// CHECK-COUNT-1: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
gpu.module @m {
  gpu.func @no_conflict(%out: memref<64xf32>)
      workgroup(%a : memref<64xf32, #gpu.address_space<workgroup>>,
                %b : memref<64xf32, #gpu.address_space<workgroup>>) kernel {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %x = arith.constant 1.0 : f32
    memref.store %x, %a[%tid] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %x, %a[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
    %y = memref.load %b[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %y, %out[%tid] : memref<64xf32>
    gpu.barrier
    %z = memref.load %a[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %z, %out[%c0] : memref<64xf32>
    gpu.return
  }
}

// -----

// A loop whose bounds every work-item shares: the write at the top of an
// iteration is ordered after the previous iteration's read (write after
// read), the read after this iteration's write. Two barriers, both inside.
// CHECK-LABEL: gpu.func @loop_carried
// CHECK: scf.for
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: memref.store
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: memref.load
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
gpu.module @m {
  gpu.func @loop_carried(%out: memref<64xf32>, %n: index)
      workgroup(%buf : memref<64xf32, #gpu.address_space<workgroup>>) kernel {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %x = arith.constant 1.0 : f32
    scf.for %i = %c0 to %n step %c1 {
      memref.store %x, %buf[%tid] : memref<64xf32, #gpu.address_space<workgroup>>
      %y = memref.load %buf[%i] : memref<64xf32, #gpu.address_space<workgroup>>
      memref.store %y, %out[%tid] : memref<64xf32>
    }
    gpu.return
  }
}

// -----

// Control flow that not every work-item takes (a condition or loop bounds
// from the work-item id) gets no barrier inside: its accesses are ordered as
// one, before (a read of a pending write) or after it. The barrier sits
// right after the last workgroup-memory access before the one that needs
// it: above the condition's arithmetic.
// CHECK-LABEL: gpu.func @divergent
// CHECK: scf.for %{{.*}} = %{{.*}} to
// CHECK-NOT: gpu.barrier
// CHECK: memref.store
// CHECK: }
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: arith.cmpi
// CHECK-NEXT: scf.if
// CHECK-NOT: gpu.barrier
// CHECK: memref.load
// CHECK: }
// CHECK-NEXT: gpu.return
gpu.module @m {
  gpu.func @divergent(%out: memref<64xf32>)
      workgroup(%buf : memref<64xf32, #gpu.address_space<workgroup>>) kernel {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %x = arith.constant 1.0 : f32
    scf.for %i = %tid to %c64 step %c32 {
      memref.store %x, %buf[%i] : memref<64xf32, #gpu.address_space<workgroup>>
    }
    %first = arith.cmpi ult, %tid, %c32 : index
    scf.if %first {
      %y = memref.load %buf[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
      memref.store %y, %out[%tid] : memref<64xf32>
    }
    gpu.return
  }
}

// -----

// Views of one dynamic shared memory block at constant offsets are distinct
// buffers when their bytes do not overlap; nvgpu.ldmatrix reads its source
// (an effect on no particular value).
// CHECK-LABEL: gpu.func @views
// CHECK: vector.store %{{.*}}, %[[A:.*]][
// CHECK-NEXT: vector.load %[[B:.*]][
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: nvgpu.ldmatrix %[[A]]
// CHECK-NOT: gpu.barrier
gpu.module @m {
  gpu.func @views(%out: memref<64x8xf16>) kernel {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c2048 = arith.constant 2048 : index
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %a = memref.view %smem[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x16xf16, #gpu.address_space<workgroup>>
    %b = memref.view %smem[%c2048][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x16xf16, #gpu.address_space<workgroup>>
    %v = arith.constant dense<1.0> : vector<8xf16>
    vector.store %v, %a[%tid, %c0] : memref<64x16xf16, #gpu.address_space<workgroup>>, vector<8xf16>
    %w = vector.load %b[%tid, %c0] : memref<64x16xf16, #gpu.address_space<workgroup>>, vector<8xf16>
    %f = nvgpu.ldmatrix %a[%tid, %c0] {numTiles = 4 : i32, transpose = false} : memref<64x16xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
    vector.store %w, %out[%tid, %c0] : memref<64x8xf16>, vector<8xf16>
    gpu.return
  }
}

// -----

// Work between the write and the read that touches no workgroup memory (a
// global load here, the next query block's rows in the tiled kernel) runs
// after the barrier, not before it.
// CHECK-LABEL: gpu.func @hoisted
// CHECK: memref.store %{{.*}} : memref<64xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: memref.load %{{.*}} : memref<64xf32>
// CHECK-NEXT: memref.load %{{.*}} : memref<64xf32, #gpu.address_space<workgroup>>
gpu.module @m {
  gpu.func @hoisted(%in: memref<64xf32>, %out: memref<64xf32>)
      workgroup(%buf : memref<64xf32, #gpu.address_space<workgroup>>) kernel {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %x = arith.constant 1.0 : f32
    memref.store %x, %buf[%tid] : memref<64xf32, #gpu.address_space<workgroup>>
    %g = memref.load %in[%tid] : memref<64xf32>
    %y = memref.load %buf[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
    %s = arith.addf %g, %y : f32
    memref.store %s, %out[%tid] : memref<64xf32>
    gpu.return
  }
}

// -----

// An asynchronous copy writes its destination at some point up to the wait:
// against the earlier read of it at the issue (a barrier before the copy),
// against the later read at the wait (a barrier after the wait, which the
// barrier is not hoisted above). Reads of other buffers while the copy is in
// flight need none.
// CHECK-LABEL: gpu.func @async_copy
// CHECK: memref.load %[[A:.*]][
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: nvgpu.device_async_copy
// CHECK-NEXT: nvgpu.device_async_create_group
// CHECK-NEXT: memref.load %[[B:.*]][
// CHECK-NEXT: nvgpu.device_async_wait
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: memref.load %[[A]][
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
gpu.module @m {
  gpu.func @async_copy(%src: memref<64xf32>, %out: memref<64xf32>)
      workgroup(%a : memref<64xf32, #gpu.address_space<workgroup>>,
                %b : memref<64xf32, #gpu.address_space<workgroup>>) kernel {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %x = memref.load %a[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
    %t = nvgpu.device_async_copy %src[%tid], %a[%tid], 4 : memref<64xf32> to memref<64xf32, #gpu.address_space<workgroup>>
    %g = nvgpu.device_async_create_group %t
    %y = memref.load %b[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
    nvgpu.device_async_wait %g
    %z = memref.load %a[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
    %s = arith.addf %x, %y : f32
    %w = arith.addf %s, %z : f32
    memref.store %w, %out[%tid] : memref<64xf32>
    gpu.return
  }
}

// -----

// Double buffering as the tiled backward kernel does it: block i + 1 is
// copied into slot (i + 1) % 2 while slot i % 2 is read. The slot index is
// dynamic, so the pass cannot tell the slots apart and orders the copy after
// the previous iteration's reads as if they were of its slot: conservative,
// and still one barrier per iteration, right after the wait (it also orders
// the reads after the copy waited for), none between the issue and the
// reads.
// CHECK-LABEL: gpu.func @async_double_buffer
// CHECK: scf.for
// CHECK-NEXT: nvgpu.device_async_wait
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: arith.addi
// CHECK-NEXT: arith.remui
// CHECK-NEXT: nvgpu.device_async_copy
// CHECK-NEXT: nvgpu.device_async_create_group
// CHECK-NEXT: arith.remui
// CHECK-NEXT: vector.load
// CHECK-NOT: gpu.barrier
// CHECK: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: nvgpu.device_async_wait
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
gpu.module @m {
  gpu.func @async_double_buffer(%src: memref<?x64xf32>, %out: memref<64xf32>,
                                %n: index)
      workgroup(%buf : memref<2x64xf32, #gpu.address_space<workgroup>>)
      kernel {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %zero = arith.constant dense<0.0> : vector<4xf32>
    %t0 = nvgpu.device_async_copy %src[%c0, %tid], %buf[%c0, %tid], 4 : memref<?x64xf32> to memref<2x64xf32, #gpu.address_space<workgroup>>
    %g0 = nvgpu.device_async_create_group %t0
    %r:2 = scf.for %i = %c0 to %n step %c1
        iter_args(%g = %g0, %acc = %zero) -> (!nvgpu.device.async.token, vector<4xf32>) {
      nvgpu.device_async_wait %g
      %next = arith.addi %i, %c1 : index
      %ns = arith.remui %next, %c2 : index
      %t = nvgpu.device_async_copy %src[%next, %tid], %buf[%ns, %tid], 4 : memref<?x64xf32> to memref<2x64xf32, #gpu.address_space<workgroup>>
      %gn = nvgpu.device_async_create_group %t
      %s = arith.remui %i, %c2 : index
      %v = vector.load %buf[%s, %c0] : memref<2x64xf32, #gpu.address_space<workgroup>>, vector<4xf32>
      %acc2 = arith.addf %acc, %v : vector<4xf32>
      scf.yield %gn, %acc2 : !nvgpu.device.async.token, vector<4xf32>
    }
    nvgpu.device_async_wait %r#0
    vector.store %r#1, %out[%c0] : memref<64xf32>, vector<4xf32>
    gpu.return
  }
}

// -----

// Two buffers the pass tells apart (views of dynamic shared memory at
// constant offsets), the loop unrolled by two: each half waits for its
// buffer, then copies the next block into the other one, whose reads of the
// half before must come first. One barrier per half, right after the wait:
// it orders both the reads after their copy and the copy after the reads.
// CHECK-LABEL: gpu.func @async_two_buffers
// CHECK: scf.for
// CHECK-NEXT: nvgpu.device_async_wait
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: arith.addi
// CHECK-NEXT: nvgpu.device_async_copy {{.*}}, %[[B:[a-z0-9_]+]][
// CHECK-NEXT: nvgpu.device_async_create_group
// CHECK-NEXT: vector.load %[[A:[a-z0-9_]+]][
// CHECK-NEXT: nvgpu.device_async_wait
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: arith.addi
// CHECK-NEXT: nvgpu.device_async_copy {{.*}}, %[[A]][
// CHECK-NEXT: nvgpu.device_async_create_group
// CHECK-NEXT: vector.load %[[B]][
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
gpu.module @m {
  gpu.func @async_two_buffers(%src: memref<?x64xf32>, %out: memref<64xf32>,
                              %n: index) kernel {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c256 = arith.constant 256 : index
    %zero = arith.constant dense<0.0> : vector<4xf32>
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %a = memref.view %smem[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64xf32, #gpu.address_space<workgroup>>
    %b = memref.view %smem[%c256][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64xf32, #gpu.address_space<workgroup>>
    %t0 = nvgpu.device_async_copy %src[%c0, %tid], %a[%tid], 4 : memref<?x64xf32> to memref<64xf32, #gpu.address_space<workgroup>>
    %g0 = nvgpu.device_async_create_group %t0
    %r:2 = scf.for %i = %c0 to %n step %c2
        iter_args(%g = %g0, %acc = %zero) -> (!nvgpu.device.async.token, vector<4xf32>) {
      nvgpu.device_async_wait %g
      %i1 = arith.addi %i, %c1 : index
      %t1 = nvgpu.device_async_copy %src[%i1, %tid], %b[%tid], 4 : memref<?x64xf32> to memref<64xf32, #gpu.address_space<workgroup>>
      %g1 = nvgpu.device_async_create_group %t1
      %va = vector.load %a[%c0] : memref<64xf32, #gpu.address_space<workgroup>>, vector<4xf32>
      nvgpu.device_async_wait %g1
      %i2 = arith.addi %i, %c2 : index
      %t2 = nvgpu.device_async_copy %src[%i2, %tid], %a[%tid], 4 : memref<?x64xf32> to memref<64xf32, #gpu.address_space<workgroup>>
      %g2 = nvgpu.device_async_create_group %t2
      %vb = vector.load %b[%c0] : memref<64xf32, #gpu.address_space<workgroup>>, vector<4xf32>
      %s = arith.addf %va, %vb : vector<4xf32>
      %acc2 = arith.addf %acc, %s : vector<4xf32>
      scf.yield %g2, %acc2 : !nvgpu.device.async.token, vector<4xf32>
    }
    nvgpu.device_async_wait %r#0
    vector.store %r#1, %out[%c0] : memref<64xf32>, vector<4xf32>
    gpu.return
  }
}

// -----

// A divergent scf.if (its condition from the work-item id) between two reads
// of what it writes: barriers before it (write after read) and after it
// (read after write), none inside.
// CHECK-LABEL: gpu.func @divergent_between
// CHECK: memref.load
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: arith.cmpi
// CHECK-NEXT: scf.if
// CHECK-NEXT: memref.store
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: memref.load
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
gpu.module @m {
  gpu.func @divergent_between(%out: memref<64xf32>)
      workgroup(%buf : memref<64xf32, #gpu.address_space<workgroup>>) kernel {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %x = arith.constant 1.0 : f32
    %y = memref.load %buf[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
    %first = arith.cmpi ult, %tid, %c32 : index
    scf.if %first {
      memref.store %x, %buf[%tid] : memref<64xf32, #gpu.address_space<workgroup>>
    }
    %z = memref.load %buf[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
    %s = arith.addf %y, %z : f32
    memref.store %s, %out[%tid] : memref<64xf32>
    gpu.return
  }
}

// -----

// An scf.if whose condition every work-item shares (a kernel argument): a
// barrier before it for the read before it and the writes inside, one inside
// its then branch between the write and the read of it; the else branch's
// write is still pending after the if, so the read after it gets one too.
// CHECK-LABEL: gpu.func @uniform_if
// CHECK: memref.load
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: scf.if
// CHECK-NEXT: memref.store
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: memref.load
// CHECK-NEXT: scf.yield
// CHECK-NEXT: } else {
// CHECK-NEXT: memref.store
// CHECK-NEXT: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: memref.load
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
gpu.module @m {
  gpu.func @uniform_if(%out: memref<64xf32>, %flag: i1)
      workgroup(%buf : memref<64xf32, #gpu.address_space<workgroup>>) kernel {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %x = arith.constant 1.0 : f32
    %y = memref.load %buf[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
    %r = scf.if %flag -> (f32) {
      memref.store %x, %buf[%tid] : memref<64xf32, #gpu.address_space<workgroup>>
      %a = memref.load %buf[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
      scf.yield %a : f32
    } else {
      memref.store %y, %buf[%tid] : memref<64xf32, #gpu.address_space<workgroup>>
      scf.yield %x : f32
    }
    %z = memref.load %buf[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
    %s = arith.addf %r, %z : f32
    memref.store %s, %out[%tid] : memref<64xf32>
    gpu.return
  }
}

// -----

// An scf.while whose condition every work-item shares: a counter from a
// constant, stepped by a constant, against a kernel argument (the sum
// carried beside it, from loads, may differ). Like a uniform scf.for,
// barriers inside: before the after region's write (this iteration's read)
// and before the before region's read (the previous iteration's write). The
// loop leaves the read pending: the write after it gets a barrier.
// CHECK-LABEL: gpu.func @uniform_while
// CHECK: scf.while
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: memref.load
// CHECK-NOT: gpu.barrier
// CHECK: scf.condition
// CHECK-NEXT: } do {
// CHECK-NEXT: ^bb0
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: memref.store
// CHECK-NOT: gpu.barrier
// CHECK: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: memref.store
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
gpu.module @m {
  gpu.func @uniform_while(%n: index)
      workgroup(%buf : memref<64xf32, #gpu.address_space<workgroup>>) kernel {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %x = arith.constant 1.0 : f32
    %r:2 = scf.while (%i = %c0, %sum = %x) : (index, f32) -> (index, f32) {
      %y = memref.load %buf[%i] : memref<64xf32, #gpu.address_space<workgroup>>
      %s = arith.addf %sum, %y : f32
      %go = arith.cmpi ult, %i, %n : index
      scf.condition(%go) %i, %s : index, f32
    } do {
    ^bb0(%j: index, %t: f32):
      memref.store %t, %buf[%tid] : memref<64xf32, #gpu.address_space<workgroup>>
      %next = arith.addi %j, %c1 : index
      scf.yield %next, %t : index, f32
    }
    memref.store %r#1, %buf[%tid] : memref<64xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}
