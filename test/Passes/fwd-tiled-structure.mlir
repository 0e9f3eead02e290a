// Structural budget of the forward's KV-block iteration, per target: a speed
// regression (another barrier, P staged through workgroup memory, more
// products, masks on every block) fails here.
// RUN: rocke-opt %s -pass-pipeline='builtin.module(fmha-bwd-to-kernels{chip=sm_90 forward=true},fmha-pipeline-tile-fetches,fmha-lower-tile-copies,fmha-split-workgroup-tiles,fmha-distribute-tiles,gpu.module(gpu.func(fmha-place-workgroup-barriers)))' -o %t.nv
// RUN: FileCheck %s --check-prefix=NV < %t.nv
// RUN: rocke-opt %s -pass-pipeline='builtin.module(fmha-bwd-to-kernels{chip=gfx942 forward=true},fmha-pipeline-tile-fetches,fmha-lower-tile-copies,fmha-split-workgroup-tiles,fmha-distribute-tiles,gpu.module(gpu.func(fmha-place-workgroup-barriers)))' -o %t.amd
// RUN: FileCheck %s --check-prefix=AMD < %t.amd
// RUN: rocke-opt %s -pass-pipeline='builtin.module(fmha-bwd-to-kernels{chip=sm_90a forward=true fwd-kv-pipelining=async-copies},fmha-pipeline-tile-fetches,fmha-lower-tile-copies,fmha-split-workgroup-tiles,fmha-distribute-tiles,fmha-defer-warpgroup-waits,gpu.module(gpu.func(fmha-place-workgroup-barriers)))' -o %t.wg
// RUN: FileCheck %s --check-prefix=WG < %t.wg

// bf16, D=128, causal. sm_90 (128 query rows over 4 warps, 64 KV rows, Q
// read from its copy): per warp and block 128 atoms for S and 128 for O +=
// P V. One barrier per block:
// after this block's copies are waited for and before the next block's are
// issued into the slot the previous block was read from. gfx942 (128 query
// rows over 4 waves, 64 KV rows): 32 + 32 MFMAs of 32x32x8; K and V^T placed
// at the top of the block, between two barriers, from registers fetched
// during the previous block. Row maxima and sums: one cross-lane reduction
// per row a lane holds (sm_90: 4 rows of two atoms; gfx942: 1 column of one
// atom). P stays in registers: nothing else is written to
// workgroup memory. sm_90: one loop, the mask behind a branch per block
// (only the blocks the diagonal or Sk cuts take it); gfx942: the blocks
// every query sees whole in a loop without the mask, then the cut ones in
// a loop with it (one mask per score atom).
// NV-LABEL: gpu.func @fmha_fwd_tiled_main
// NV-COUNT-16: nvgpu.device_async_copy
// NV: scf.for
// NV: nvgpu.device_async_wait
// NV-NEXT: gpu.barrier
// NV-NOT: gpu.barrier
// NV-COUNT-16: nvgpu.device_async_copy
// NV-NOT: gpu.barrier
// NV-COUNT-128: fmha.mma {{.*}} {atom = "mma_sync_m16n8k16_bf16"}
// Masks only in the blocks the diagonal or Sk cuts (one per score atom).
// NV: scf.if
// NV-NEXT: scf.yield
// NV-NEXT: } else {
// NV-COUNT-16: fmha.mask_fragment
// NV: }
// Row maxima and sums: one cross-lane reduction per row a lane holds
// (sm_90: 4 rows of two atoms).
// NV-COUNT-4: gpu.subgroup_reduce maxnumf {{.*}} cluster(size = 4)
// NV-NOT: gpu.subgroup_reduce maxnumf
// NV-COUNT-4: gpu.subgroup_reduce add {{.*}} cluster(size = 4)
// P stays in registers: nothing else is written to workgroup memory.
// NV-NOT: vector.store {{.*}}#gpu.address_space<workgroup>>
// NV-COUNT-128: fmha.mma {{.*}} {atom = "mma_sync_m16n8k16_bf16"}
// NV-NOT: fmha.mma
// NV-NOT: gpu.barrier
// NV: scf.yield
// NV-NOT: fmha.mma
// NV: gpu.return

// sm_90a (warpgroup products: 128 query rows over 8 warps, two warpgroups
// of 64; 128 KV rows in two slices of 64, fwd-kv-slices; every work-item
// copying K and V, fwd-kv-pipelining=async-copies, where the default has a
// producer warpgroup: test/NVVM/fwd-producer-warpgroup-ptx.mlir): Q copied
// once into 128-byte swizzled rows (fwd-warpgroup-layout),
// then per block the same single barrier and no per-subgroup atom: both
// slices' S = Q K^T first (A and B by descriptor, 8 k steps over D = 128),
// then per slice its softmax and O += P V (P's fragments in registers, V by
// descriptor, 4 k steps over the slice's 64 keys). Each wait sits at its
// product's first use: the first slice's S lets the second run on
// (pending 1), the second slice's S lets the first P V run on (pending 1)
// while its mask and row maxima run, the first P V is waited for where the
// second slice rescales O, the second P V last (pending 0, not printed).
// The row sums run while a P V does. One cross-lane reduction per row a
// lane holds (2 of 16 rows). The copies the products read (Q's stores, K
// and V's cp.async) are fenced for the async proxy before the barrier.
// WG-LABEL: gpu.func @fmha_fwd_tiled_main
// WG: vector.store {{.*}} : memref<16x2x8x64xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
// WG-COUNT-16: nvgpu.device_async_copy
// WG: scf.for
// WG: nvgpu.device_async_wait
// WG-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>
// WG-NEXT: gpu.barrier
// WG-NOT: gpu.barrier
// WG-COUNT-16: nvgpu.device_async_copy
// WG-NOT: {{gpu.barrier|fmha.mma|fmha.warpgroup}}
// WG: %[[S0:.*]] = fmha.warpgroup_mma %{{.*}}, a[], a_desc[{{(%[0-9]+, ){7}%[0-9]+}}], b_desc[{{(%[0-9]+, ){7}%[0-9]+}}] reads
// WG-NOT: {{gpu.barrier|fmha.mma|fmha.warpgroup}}
// WG: %[[S1:.*]] = fmha.warpgroup_mma %{{.*}}, a[], a_desc[{{(%[0-9]+, ){7}%[0-9]+}}], b_desc[{{(%[0-9]+, ){7}%[0-9]+}}] reads
// WG-NOT: {{gpu.barrier|fmha.mma|fmha.warpgroup}}
// WG: fmha.warpgroup_wait %[[S0]] reads {{[^{]*}} {pending = 1 : i64} : vector<32xf32>
// WG-NOT: {{gpu.barrier|fmha.mma|fmha.warpgroup}}
// WG: scf.if
// WG-NEXT: scf.yield
// WG-NEXT: } else {
// WG-COUNT-8: fmha.mask_fragment
// WG: }
// WG-COUNT-2: gpu.subgroup_reduce maxnumf {{.*}} cluster(size = 4)
// WG-NOT: {{gpu.barrier|fmha.mma|fmha.warpgroup|vector.store|gpu.subgroup_reduce}}
// WG: %[[O0:.*]] = fmha.warpgroup_mma %{{.*}}, a[{{(%[0-9]+, ){3}%[0-9]+}} : {{.*}}], a_desc[], b_desc[{{(%[0-9]+, ){3}%[0-9]+}}] reads {{.*}} {mn_major_b}
// WG-NOT: {{gpu.barrier|fmha.mma|fmha.warpgroup}}
// WG-COUNT-2: gpu.subgroup_reduce add {{.*}} cluster(size = 4)
// WG-NOT: {{gpu.barrier|fmha.mma|fmha.warpgroup}}
// WG: fmha.warpgroup_wait %[[S1]] reads {{[^{]*}} {pending = 1 : i64} : vector<32xf32>
// WG-NOT: {{gpu.barrier|fmha.mma|fmha.warpgroup}}
// WG: scf.if
// WG-NEXT: scf.yield
// WG-NEXT: } else {
// WG-COUNT-8: fmha.mask_fragment
// WG: }
// WG-COUNT-2: gpu.subgroup_reduce maxnumf {{.*}} cluster(size = 4)
// WG-NOT: {{gpu.barrier|fmha.mma|fmha.warpgroup|vector.store|gpu.subgroup_reduce}}
// WG: fmha.warpgroup_wait %[[O0]] reads {{[^{]*}}: vector<64xf32>
// WG-NOT: {{gpu.barrier|fmha.mma|fmha.warpgroup}}
// WG: %[[O1:.*]] = fmha.warpgroup_mma %{{.*}}, a[{{(%[0-9]+, ){3}%[0-9]+}} : {{.*}}], a_desc[], b_desc[{{(%[0-9]+, ){3}%[0-9]+}}] reads {{.*}} {mn_major_b}
// WG-NOT: {{gpu.barrier|fmha.mma|fmha.warpgroup}}
// WG-COUNT-2: gpu.subgroup_reduce add {{.*}} cluster(size = 4)
// WG-NOT: {{gpu.barrier|fmha.mma|fmha.warpgroup}}
// WG: fmha.warpgroup_wait %[[O1]] reads {{[^{]*}}: vector<64xf32>
// WG-NOT: {{gpu.barrier|fmha.mma|fmha.warpgroup}}
// WG: scf.yield
// WG-NOT: {{fmha.mma|fmha.warpgroup}}
// WG: gpu.return

// AMD-LABEL: gpu.func @fmha_fwd_tiled_main
// The first block's K and V rows fetched into registers before the loops
// (ChipInfo::kvFetchAhead), through buffer descriptors:
// AMD-COUNT-4: vector.load {{.*}}#amdgpu.address_space<fat_raw_buffer>>, vector<8xbf16>
// AMD-COUNT-8: vector.load {{.*}}#amdgpu.address_space<fat_raw_buffer>>, vector<4xbf16>
// The blocks whose keys every query sees, without the mask: place this
// block's rows, fetch the next block's, then the products on 32x32x8 atoms
// (ChipInfo::fwdAtomByWork: 32 per product, half of 16x16x16's 64) with one
// lane exchange per row reduction.
// AMD: scf.for
// AMD: gpu.barrier
// AMD-COUNT-4: vector.store {{.*}} : memref<64x136xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
// AMD-COUNT-8: vector.store {{.*}} : memref<128x72xbf16, #gpu.address_space<workgroup>>, vector<4xbf16>
// AMD: gpu.barrier
// AMD-NOT: gpu.barrier
// AMD-COUNT-4: vector.load {{.*}}#amdgpu.address_space<fat_raw_buffer>>, vector<8xbf16>
// AMD-COUNT-8: vector.load {{.*}}#amdgpu.address_space<fat_raw_buffer>>, vector<4xbf16>
// AMD-COUNT-32: fmha.mma {{.*}} {atom = "mfma_f32_32x32x8_bf16"}
// AMD-NOT: fmha.mask_fragment
// AMD: gpu.subgroup_reduce maxnumf {{.*}} cluster(size = 2, stride = 32)
// AMD-NOT: gpu.subgroup_reduce maxnumf
// AMD: gpu.subgroup_reduce add {{.*}} cluster(size = 2, stride = 32)
// AMD-NOT: vector.store {{.*}}#gpu.address_space<workgroup>>
// AMD-COUNT-32: fmha.mma {{.*}} {atom = "mfma_f32_32x32x8_bf16"}
// AMD-NOT: fmha.mma
// AMD-NOT: gpu.barrier
// AMD-NOT: fmha.mask_fragment
// AMD: scf.yield
// Then the blocks the diagonal or Sk cuts: the same iteration with one mask
// per score atom.
// AMD: scf.for
// AMD: gpu.barrier
// AMD-COUNT-4: vector.store {{.*}} : memref<64x136xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
// AMD-COUNT-8: vector.store {{.*}} : memref<128x72xbf16, #gpu.address_space<workgroup>>, vector<4xbf16>
// AMD: gpu.barrier
// AMD-NOT: gpu.barrier
// AMD-COUNT-32: fmha.mma {{.*}} {atom = "mfma_f32_32x32x8_bf16"}
// AMD-COUNT-2: fmha.mask_fragment
// AMD: gpu.subgroup_reduce maxnumf {{.*}} cluster(size = 2, stride = 32)
// AMD-NOT: gpu.subgroup_reduce maxnumf
// AMD: gpu.subgroup_reduce add {{.*}} cluster(size = 2, stride = 32)
// AMD-NOT: vector.store {{.*}}#gpu.address_space<workgroup>>
// AMD-COUNT-32: fmha.mma {{.*}} {atom = "mfma_f32_32x32x8_bf16"}
// AMD-NOT: fmha.mma
// AMD-NOT: gpu.barrier
// AMD: scf.yield
// AMD-NOT: fmha.mma
// AMD: gpu.return
func.func @causal(%q: memref<?x?x16x128xbf16>, %k: memref<?x?x16x128xbf16>, %v: memref<?x?x16x128xbf16>, %o: memref<?x?x16x128xbf16>, %lse: memref<?x16x?xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) {mask = #fmha.mask<causal>}
    : memref<?x?x16x128xbf16>, memref<?x?x16x128xbf16>, memref<?x?x16x128xbf16> -> memref<?x?x16x128xbf16>, stats(memref<?x16x?xf32>)
  return
}
