// RUN: rocke-opt %s -split-input-file -verify-diagnostics -pass-pipeline='builtin.module(gpu.module(gpu.func(fmha-place-workgroup-barriers)))' | FileCheck %s
// A load marked rocke.workgroup_uniform (memory no work-item writes, at
// indices every work-item shares: a packed batch's sequence offsets) gives
// every work-item the same value, so an scf.if on it is uniform and takes
// barriers inside; an unmarked load's value may differ between work-items.

// CHECK-LABEL: gpu.func @uniform_offsets
// CHECK: scf.if
// CHECK: memref.store
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: memref.load
gpu.module @m {
  gpu.func @uniform_offsets(%cu: memref<?xi32>, %out: memref<64xf32>)
      workgroup(%buf : memref<64xf32, #gpu.address_space<workgroup>>) kernel {
    %tid = gpu.thread_id x
    %seq = gpu.block_id z
    %c0 = arith.constant 0 : index
    %x = arith.constant 1.0 : f32
    %first = memref.load %cu[%seq] {rocke.workgroup_uniform} : memref<?xi32>
    %nonEmpty = arith.cmpi sgt, %first, %first : i32
    scf.if %nonEmpty {
      memref.store %x, %buf[%tid] : memref<64xf32, #gpu.address_space<workgroup>>
      %y = memref.load %buf[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
      memref.store %y, %out[%tid] : memref<64xf32>
    }
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @unmarked(%cu: memref<?xi32>, %out: memref<64xf32>)
      workgroup(%buf : memref<64xf32, #gpu.address_space<workgroup>>) kernel {
    %tid = gpu.thread_id x
    %seq = gpu.block_id z
    %c0 = arith.constant 0 : index
    %x = arith.constant 1.0 : f32
    %first = memref.load %cu[%seq] : memref<?xi32>
    %nonEmpty = arith.cmpi sgt, %first, %first : i32
    // expected-note @+1 {{control flow depending on the work-item}}
    scf.if %nonEmpty {
      // expected-note @+1 {{the conflicting write}}
      memref.store %x, %buf[%tid] : memref<64xf32, #gpu.address_space<workgroup>>
      // expected-error @+1 {{needs a gpu.barrier}}
      %y = memref.load %buf[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
      memref.store %y, %out[%tid] : memref<64xf32>
    }
    gpu.return
  }
}
