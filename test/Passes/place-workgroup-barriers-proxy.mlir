// RUN: rocke-opt %s -split-input-file -pass-pipeline='builtin.module(gpu.module(gpu.func(fmha-place-workgroup-barriers)))' | FileCheck %s
// RUN: rocke-opt %s -split-input-file -pass-pipeline='builtin.module(gpu.module(gpu.func(fmha-place-workgroup-barriers,fmha-place-workgroup-barriers)))' | FileCheck %s --check-prefix=TWICE

// Warpgroup products (fmha.warpgroup_mma) read their buffers through the
// async proxy: a barrier placed while ordinary writes to bytes some product
// of the kernel reads are pending is preceded by fence.proxy.async (shared
// memory of the CTA), executed by the writers before the barrier.

// A write, then a product reading it: fence, barrier, product.
// CHECK-LABEL: gpu.func @write_then_product
// CHECK: memref.store
// CHECK-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: fmha.warpgroup_mma
// CHECK-NOT: nvvm.fence.proxy
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
#wg = #gpu.address_space<workgroup>
gpu.module @m {
  gpu.func @write_then_product(%out: memref<64xf32>, %a: vector<8xbf16>, %d: i64, %v: bf16)
      workgroup(%b : memref<2x2x8x8xbf16, #wg>) kernel {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %acc = arith.constant dense<0.0> : vector<8xf32>
    memref.store %v, %b[%c0, %c0, %c0, %tid] : memref<2x2x8x8xbf16, #wg>
    %p = fmha.warpgroup_mma %acc, a[%a : vector<8xbf16>], a_desc[], b_desc[%d] reads %b : memref<2x2x8x8xbf16, #wg> -> vector<8xf32>
    %w = fmha.warpgroup_wait %p reads %b : vector<8xf32>, memref<2x2x8x8xbf16, #wg>
    vector.store %w, %out[%c0] : memref<64xf32>, vector<8xf32>
    gpu.return
  }
}

// -----

// Writes no product reads: a plain barrier. %c is a buffer of its own, %lo
// other bytes of the allocation the product reads a view of (%hi); the
// product itself needs no barrier (nothing wrote %hi).
// CHECK-LABEL: gpu.func @ordinary_buffers
// CHECK-NOT: nvvm.fence.proxy
// CHECK: memref.store %{{.*}}, %[[C:[a-z0-9_]+]][
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: memref.load %[[C]][
// CHECK-NEXT: memref.store %{{.*}}, %[[LO:[a-z0-9_]+]][
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: memref.load %[[LO]][
// CHECK-NEXT: fmha.warpgroup_mma
// CHECK-NOT: nvvm.fence.proxy
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
#wg = #gpu.address_space<workgroup>
gpu.module @m {
  gpu.func @ordinary_buffers(%out: memref<64xf32>, %a: vector<8xbf16>, %d: i64, %v: bf16, %f: f32)
      workgroup(%c : memref<64xf32, #wg>, %raw : memref<1024xi8, #wg>) kernel {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c512 = arith.constant 512 : index
    %acc = arith.constant dense<0.0> : vector<8xf32>
    %lo = memref.view %raw[%c0][] : memref<1024xi8, #wg> to memref<256xbf16, #wg>
    %hi = memref.view %raw[%c512][] : memref<1024xi8, #wg> to memref<2x2x8x8xbf16, #wg>
    memref.store %f, %c[%tid] : memref<64xf32, #wg>
    %x = memref.load %c[%c0] : memref<64xf32, #wg>
    memref.store %v, %lo[%tid] : memref<256xbf16, #wg>
    %y = memref.load %lo[%c0] : memref<256xbf16, #wg>
    %p = fmha.warpgroup_mma %acc, a[%a : vector<8xbf16>], a_desc[], b_desc[%d] reads %hi : memref<2x2x8x8xbf16, #wg> -> vector<8xf32>
    %w = fmha.warpgroup_wait %p reads %hi : vector<8xf32>, memref<2x2x8x8xbf16, #wg>
    vector.store %w, %out[%c0] : memref<64xf32>, vector<8xf32>
    memref.store %x, %out[%tid] : memref<64xf32>
    %ye = arith.extf %y : bf16 to f32
    memref.store %ye, %out[%c0] : memref<64xf32>
    gpu.return
  }
}

// -----

// A write after the product (and its wait) read the buffer: the barrier
// orders the write after the reads; only reads are pending, nothing for the
// async proxy to see: no fence.
// CHECK-LABEL: gpu.func @write_after_product
// CHECK-NOT: nvvm.fence.proxy
// CHECK: fmha.warpgroup_wait
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: memref.store
// CHECK-NOT: nvvm.fence.proxy
// CHECK: gpu.return
#wg = #gpu.address_space<workgroup>
gpu.module @m {
  gpu.func @write_after_product(%out: memref<64xf32>, %a: vector<8xbf16>, %d: i64, %v: bf16)
      workgroup(%b : memref<2x2x8x8xbf16, #wg>) kernel {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %acc = arith.constant dense<0.0> : vector<8xf32>
    %p = fmha.warpgroup_mma %acc, a[%a : vector<8xbf16>], a_desc[], b_desc[%d] reads %b : memref<2x2x8x8xbf16, #wg> -> vector<8xf32>
    %w = fmha.warpgroup_wait %p reads %b : vector<8xf32>, memref<2x2x8x8xbf16, #wg>
    memref.store %v, %b[%c0, %c0, %c0, %tid] : memref<2x2x8x8xbf16, #wg>
    vector.store %w, %out[%c0] : memref<64xf32>, vector<8xf32>
    gpu.return
  }
}

// -----

// A barrier placed for an ordinary read still fences when writes of a
// product's buffer are pending (it clears them too): the later product
// then needs no barrier of its own.
// CHECK-LABEL: gpu.func @fence_with_other_barrier
// CHECK: memref.store %{{.*}}, %[[B:[a-z0-9_]+]][
// CHECK-NEXT: memref.store %{{.*}}, %[[C:[a-z0-9_]+]][
// CHECK-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: memref.load %[[C]][
// CHECK-NEXT: fmha.warpgroup_mma {{.*}} reads %[[B]]
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
#wg = #gpu.address_space<workgroup>
gpu.module @m {
  gpu.func @fence_with_other_barrier(%out: memref<64xf32>, %a: vector<8xbf16>, %d: i64, %v: bf16, %f: f32)
      workgroup(%b : memref<2x2x8x8xbf16, #wg>, %c : memref<64xf32, #wg>) kernel {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %acc = arith.constant dense<0.0> : vector<8xf32>
    memref.store %v, %b[%c0, %c0, %c0, %tid] : memref<2x2x8x8xbf16, #wg>
    memref.store %f, %c[%tid] : memref<64xf32, #wg>
    %x = memref.load %c[%c0] : memref<64xf32, #wg>
    %p = fmha.warpgroup_mma %acc, a[%a : vector<8xbf16>], a_desc[], b_desc[%d] reads %b : memref<2x2x8x8xbf16, #wg> -> vector<8xf32>
    %w = fmha.warpgroup_wait %p reads %b : vector<8xf32>, memref<2x2x8x8xbf16, #wg>
    vector.store %w, %out[%c0] : memref<64xf32>, vector<8xf32>
    memref.store %x, %out[%tid] : memref<64xf32>
    gpu.return
  }
}

// -----

// As the tiled backward fetches Q and dO: asynchronous copies into the
// other slot of a double buffer whose current slot a product reads. The
// copies waited for are pending writes of the product's buffer: the
// barrier after the wait is fenced; the one ordering the next iteration's
// copy after this one's reads is not needed (one barrier per iteration).
// CHECK-LABEL: gpu.func @async_copies_then_product
// CHECK: scf.for
// CHECK-NEXT: nvgpu.device_async_wait
// CHECK-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: nvgpu.device_async_copy
// CHECK-NOT: gpu.barrier
// CHECK: fmha.warpgroup_mma
// CHECK-NOT: gpu.barrier
// CHECK: scf.yield
#wg = #gpu.address_space<workgroup>
gpu.module @m {
  gpu.func @async_copies_then_product(%src: memref<?x512xbf16>, %out: memref<64xf32>, %a: vector<8xbf16>, %d: i64, %n: index)
      workgroup(%buf : memref<2x2x2x8x8xbf16, #wg>) kernel {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %acc = arith.constant dense<0.0> : vector<8xf32>
    %t0 = nvgpu.device_async_copy %src[%c0, %tid], %buf[%c0, %c0, %c0, %c0, %tid], 8 : memref<?x512xbf16> to memref<2x2x2x8x8xbf16, #wg>
    %g0 = nvgpu.device_async_create_group %t0
    %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%g = %g0, %sum = %acc) -> (!nvgpu.device.async.token, vector<8xf32>) {
      nvgpu.device_async_wait %g
      %next = arith.addi %i, %c1 : index
      %ns = arith.remui %next, %c2 : index
      %t = nvgpu.device_async_copy %src[%next, %tid], %buf[%ns, %c0, %c0, %c0, %tid], 8 : memref<?x512xbf16> to memref<2x2x2x8x8xbf16, #wg>
      %gn = nvgpu.device_async_create_group %t
      %s = arith.remui %i, %c2 : index
      %slot = memref.subview %buf[%s, 0, 0, 0, 0] [1, 2, 2, 8, 8] [1, 1, 1, 1, 1] : memref<2x2x2x8x8xbf16, #wg> to memref<2x2x8x8xbf16, strided<[128, 64, 8, 1], offset: ?>, #wg>
      %p = fmha.warpgroup_mma %sum, a[%a : vector<8xbf16>], a_desc[], b_desc[%d] reads %slot : memref<2x2x8x8xbf16, strided<[128, 64, 8, 1], offset: ?>, #wg> -> vector<8xf32>
      %w = fmha.warpgroup_wait %p reads %slot : vector<8xf32>, memref<2x2x8x8xbf16, strided<[128, 64, 8, 1], offset: ?>, #wg>
      scf.yield %gn, %w : !nvgpu.device.async.token, vector<8xf32>
    }
    nvgpu.device_async_wait %r#0
    vector.store %r#1, %out[%c0] : memref<64xf32>, vector<8xf32>
    gpu.return
  }
}

// -----

// A barrier already there after writes a product reads gets the fence before
// it too (once: running the pass again adds none).
// CHECK-LABEL: gpu.func @existing_barrier
// CHECK: memref.store
// CHECK-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: fmha.warpgroup_mma
// CHECK-NOT: nvvm.fence.proxy
// CHECK: gpu.return
// TWICE-LABEL: gpu.func @existing_barrier
// TWICE: nvvm.fence.proxy
// TWICE-NOT: nvvm.fence.proxy
// TWICE: gpu.return
#wg = #gpu.address_space<workgroup>
gpu.module @m {
  gpu.func @existing_barrier(%out: memref<64xf32>, %a: vector<8xbf16>, %d: i64, %v: bf16)
      workgroup(%b : memref<2x2x8x8xbf16, #wg>) kernel {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %acc = arith.constant dense<0.0> : vector<8xf32>
    memref.store %v, %b[%c0, %c0, %c0, %tid] : memref<2x2x8x8xbf16, #wg>
    gpu.barrier
    %p = fmha.warpgroup_mma %acc, a[%a : vector<8xbf16>], a_desc[], b_desc[%d] reads %b : memref<2x2x8x8xbf16, #wg> -> vector<8xf32>
    %w = fmha.warpgroup_wait %p reads %b : vector<8xf32>, memref<2x2x8x8xbf16, #wg>
    vector.store %w, %out[%c0] : memref<64xf32>, vector<8xf32>
    gpu.return
  }
}
