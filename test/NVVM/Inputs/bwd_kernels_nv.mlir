// Hand-written stand-ins for attention-backward kernels on NVIDIA (subgroup
// size 32): a warp-strategy step (thread id, exp2, xor-shuffle butterfly,
// f32 atomic gradient accumulation), one f16 and one bf16 mma.sync
// m16n8k16 block step of the tiled strategy and its fmha.atomic_add runs,
// with kernel arguments cast to the global address space as the fmha
// lowering emits them.
module attributes {gpu.container_module} {
  gpu.module @bwd_kernels {
    gpu.func @dq_accum(%p0: memref<256xf32>, %dq0: memref<256xf32>) kernel
        attributes {known_block_size = array<i32: 32, 1, 1>} {
      %p = memref.memory_space_cast %p0 : memref<256xf32> to memref<256xf32, #gpu.address_space<global>>
      %dq = memref.memory_space_cast %dq0 : memref<256xf32> to memref<256xf32, #gpu.address_space<global>>
      %tid = gpu.thread_id x
      %c32 = arith.constant 32 : i32
      %x = memref.load %p[%tid] : memref<256xf32, #gpu.address_space<global>>
      %e = math.exp2 %x : f32
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      %s1, %v1 = gpu.shuffle xor %e, %c1, %c32 : f32
      %a1 = arith.addf %e, %s1 : f32
      %s2, %v2 = gpu.shuffle xor %a1, %c2, %c32 : f32
      %a2 = arith.addf %a1, %s2 : f32
      %r = memref.atomic_rmw addf %a2, %dq[%tid] : (f32, memref<256xf32, #gpu.address_space<global>>) -> f32
      gpu.return
    }

    gpu.func @mma_f16(%a0: memref<32x8xf16>, %b0: memref<32x4xf16>, %c0m: memref<32x4xf32>) kernel
        attributes {known_block_size = array<i32: 32, 1, 1>} {
      %a = memref.memory_space_cast %a0 : memref<32x8xf16> to memref<32x8xf16, #gpu.address_space<global>>
      %b = memref.memory_space_cast %b0 : memref<32x4xf16> to memref<32x4xf16, #gpu.address_space<global>>
      %c = memref.memory_space_cast %c0m : memref<32x4xf32> to memref<32x4xf32, #gpu.address_space<global>>
      %tid = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %va = vector.load %a[%tid, %c0] : memref<32x8xf16, #gpu.address_space<global>>, vector<8xf16>
      %vb = vector.load %b[%tid, %c0] : memref<32x4xf16, #gpu.address_space<global>>, vector<4xf16>
      %vc = vector.load %c[%tid, %c0] : memref<32x4xf32, #gpu.address_space<global>>, vector<4xf32>
      %a2 = vector.shape_cast %va : vector<8xf16> to vector<4x2xf16>
      %b2 = vector.shape_cast %vb : vector<4xf16> to vector<2x2xf16>
      %c2 = vector.shape_cast %vc : vector<4xf32> to vector<2x2xf32>
      %d = nvgpu.mma.sync (%a2, %b2, %c2) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
      %d1 = vector.shape_cast %d : vector<2x2xf32> to vector<4xf32>
      vector.store %d1, %c[%tid, %c0] : memref<32x4xf32, #gpu.address_space<global>>, vector<4xf32>
      gpu.return
    }

    gpu.func @mma_bf16(%a0: memref<32x8xbf16>, %b0: memref<32x4xbf16>, %c0m: memref<32x4xf32>) kernel
        attributes {known_block_size = array<i32: 32, 1, 1>} {
      %a = memref.memory_space_cast %a0 : memref<32x8xbf16> to memref<32x8xbf16, #gpu.address_space<global>>
      %b = memref.memory_space_cast %b0 : memref<32x4xbf16> to memref<32x4xbf16, #gpu.address_space<global>>
      %c = memref.memory_space_cast %c0m : memref<32x4xf32> to memref<32x4xf32, #gpu.address_space<global>>
      %tid = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %vc = vector.load %c[%tid, %c0] : memref<32x4xf32, #gpu.address_space<global>>, vector<4xf32>
      %c2 = vector.shape_cast %vc : vector<4xf32> to vector<2x2xf32>
      %acc = scf.for %i = %c0 to %c4 step %c1 iter_args(%x = %c2) -> vector<2x2xf32> {
        %va = vector.load %a[%tid, %c0] : memref<32x8xbf16, #gpu.address_space<global>>, vector<8xbf16>
        %vb = vector.load %b[%tid, %c0] : memref<32x4xbf16, #gpu.address_space<global>>, vector<4xbf16>
        %a2 = vector.shape_cast %va : vector<8xbf16> to vector<4x2xbf16>
        %b2 = vector.shape_cast %vb : vector<4xbf16> to vector<2x2xbf16>
        %r = nvgpu.mma.sync (%a2, %b2, %x) {mmaShape = [16, 8, 16]} : (vector<4x2xbf16>, vector<2x2xbf16>, vector<2x2xf32>) -> vector<2x2xf32>
        scf.yield %r : vector<2x2xf32>
      }
      %d1 = vector.shape_cast %acc : vector<2x2xf32> to vector<4xf32>
      vector.store %d1, %c[%tid, %c0] : memref<32x4xf32, #gpu.address_space<global>>, vector<4xf32>
      gpu.return
    }

    gpu.func @dq_runs(%p0: memref<32x64xf32>, %dq0: memref<32x64xf32>) kernel
        attributes {known_block_size = array<i32: 32, 1, 1>} {
      %p = memref.memory_space_cast %p0 : memref<32x64xf32> to memref<32x64xf32, #gpu.address_space<global>>
      %dq = memref.memory_space_cast %dq0 : memref<32x64xf32> to memref<32x64xf32, #gpu.address_space<global>>
      %tid = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %c4 = arith.constant 4 : index
      %c6 = arith.constant 6 : index
      %quad = vector.load %p[%tid, %c0] : memref<32x64xf32, #gpu.address_space<global>>, vector<4xf32>
      fmha.atomic_add %quad, %dq[%tid, %c0] {alignment = 16} : vector<4xf32>, memref<32x64xf32, #gpu.address_space<global>>
      %pair = vector.load %p[%tid, %c4] : memref<32x64xf32, #gpu.address_space<global>>, vector<2xf32>
      fmha.atomic_add %pair, %dq[%tid, %c4] {alignment = 8} : vector<2xf32>, memref<32x64xf32, #gpu.address_space<global>>
      // No alignment promised: element by element.
      fmha.atomic_add %pair, %dq[%tid, %c6] : vector<2xf32>, memref<32x64xf32, #gpu.address_space<global>>
      gpu.return
    }
  }
}
