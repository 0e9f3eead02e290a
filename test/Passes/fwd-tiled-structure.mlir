// Structural budget of the forward's KV-block iteration, per target: a speed
// regression (another barrier, P staged through workgroup memory, more
// products, masks on every block) fails here.
// RUN: rocke-opt %s -pass-pipeline='builtin.module(fmha-bwd-to-kernels{chip=sm_90 forward=true},fmha-lower-tile-copies,fmha-distribute-tiles,gpu.module(gpu.func(fmha-place-workgroup-barriers)))' -o %t.nv
// RUN: FileCheck %s --check-prefixes=CHECK,NV < %t.nv
// RUN: rocke-opt %s -pass-pipeline='builtin.module(fmha-bwd-to-kernels{chip=gfx942 forward=true},fmha-lower-tile-copies,fmha-distribute-tiles,gpu.module(gpu.func(fmha-place-workgroup-barriers)))' -o %t.amd
// RUN: FileCheck %s --check-prefixes=CHECK,AMD < %t.amd

// bf16, D=128, causal. sm_90 (128 query rows over 4 warps, 64 KV rows, Q
// read from its copy): per warp and block 128 atoms for S and 128 for O +=
// P V. One barrier per block:
// after this block's copies are waited for and before the next block's are
// issued into the slot the previous block was read from. gfx942 (128 query
// rows over 4 waves, 64 KV rows): 64 + 64 MFMAs; K and V^T copied at the top
// of the block, between two barriers.
// CHECK-LABEL: gpu.func @fmha_fwd_tiled_main
// NV-COUNT-16: nvgpu.device_async_copy
// CHECK: scf.for
// NV: nvgpu.device_async_wait
// NV-NEXT: gpu.barrier
// NV-NOT: gpu.barrier
// NV-COUNT-16: nvgpu.device_async_copy
// AMD: gpu.barrier
// AMD: vector.store {{.*}} : memref<64x136xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
// AMD-COUNT-4: vector.store {{.*}} : memref<128x72xbf16, #gpu.address_space<workgroup>>, vector<4xbf16>
// AMD: gpu.barrier
// CHECK-NOT: gpu.barrier
// NV-COUNT-128: fmha.mma {{.*}} {atom = "mma_sync_m16n8k16_bf16"}
// AMD-COUNT-64: fmha.mma {{.*}} {atom = "mfma_f32_16x16x16_bf16"}
// Masks only in the blocks the diagonal or Sk cuts (one per score atom).
// CHECK: scf.if
// CHECK-NEXT: scf.yield
// CHECK-NEXT: } else {
// NV-COUNT-16: fmha.mask_fragment
// AMD-COUNT-8: fmha.mask_fragment
// CHECK: }
// Row maxima and sums: one cross-lane reduction per row a lane holds
// (sm_90: 4 rows of two atoms; gfx942: 1 column of two atoms).
// NV-COUNT-4: gpu.subgroup_reduce maxnumf {{.*}} cluster(size = 4)
// AMD-COUNT-2: gpu.subgroup_reduce maxnumf {{.*}} cluster(size = 4, stride = 16)
// CHECK-NOT: gpu.subgroup_reduce maxnumf
// NV-COUNT-4: gpu.subgroup_reduce add {{.*}} cluster(size = 4)
// AMD-COUNT-2: gpu.subgroup_reduce add {{.*}} cluster(size = 4, stride = 16)
// P stays in registers: nothing else is written to workgroup memory.
// CHECK-NOT: vector.store {{.*}}#gpu.address_space<workgroup>>
// NV-COUNT-128: fmha.mma {{.*}} {atom = "mma_sync_m16n8k16_bf16"}
// AMD-COUNT-64: fmha.mma {{.*}} {atom = "mfma_f32_16x16x16_bf16"}
// CHECK-NOT: fmha.mma
// CHECK-NOT: gpu.barrier
// CHECK: scf.yield
// CHECK-NOT: fmha.mma
// CHECK: gpu.return
func.func @causal(%q: memref<?x?x16x128xbf16>, %k: memref<?x?x16x128xbf16>, %v: memref<?x?x16x128xbf16>, %o: memref<?x?x16x128xbf16>, %lse: memref<?x16x?xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) {mask = #fmha.mask<causal>}
    : memref<?x?x16x128xbf16>, memref<?x?x16x128xbf16>, memref<?x?x16x128xbf16> -> memref<?x?x16x128xbf16>, stats(memref<?x16x?xf32>)
  return
}
