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
