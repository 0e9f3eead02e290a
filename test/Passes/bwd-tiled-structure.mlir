// Structural budget of the tiled main kernel's query-block iteration, per
// target: a speed regression (another barrier, P staged through workgroup
// memory, more products) fails here.
// RUN: rocke-opt %s -pass-pipeline='builtin.module(fmha-bwd-to-kernels{strategy=tiled chip=sm_90},fmha-pipeline-tile-fetches,fmha-lower-tile-copies,fmha-split-workgroup-tiles,fmha-distribute-tiles,gpu.module(gpu.func(fmha-place-workgroup-barriers)))' -o %t.nv
// RUN: FileCheck %s --check-prefixes=BAR,NV-BAR < %t.nv
// RUN: FileCheck %s --check-prefixes=MMA,NV-MMA < %t.nv
// RUN: FileCheck %s --check-prefixes=WG,NV-WG < %t.nv
// RUN: FileCheck %s --check-prefixes=DQ,NV-DQ < %t.nv
// RUN: FileCheck %s --check-prefix=NO-ASYNC < %t.nv
// RUN: rocke-opt %s -pass-pipeline='builtin.module(fmha-bwd-to-kernels{strategy=tiled chip=sm_90 query-pipelining=async-copies},fmha-pipeline-tile-fetches,fmha-lower-tile-copies,fmha-split-workgroup-tiles,fmha-distribute-tiles,gpu.module(gpu.func(fmha-place-workgroup-barriers)))' -o %t.nvasync
// RUN: FileCheck %s --check-prefixes=BAR,NV-BAR < %t.nvasync
// RUN: FileCheck %s --check-prefix=NV-ASYNC < %t.nvasync
// RUN: rocke-opt %s -pass-pipeline='builtin.module(fmha-bwd-to-kernels{strategy=tiled chip=gfx942},fmha-pipeline-tile-fetches,fmha-lower-tile-copies,fmha-split-workgroup-tiles,fmha-distribute-tiles,gpu.module(gpu.func(fmha-place-workgroup-barriers)))' -o %t.amd
// RUN: FileCheck %s --check-prefixes=BAR,AMD-BAR < %t.amd
// RUN: FileCheck %s --check-prefixes=MMA,AMD-MMA < %t.amd
// RUN: FileCheck %s --check-prefixes=WG,AMD-WG < %t.amd
// RUN: FileCheck %s --check-prefixes=DQ,AMD-DQ < %t.amd
// RUN: FileCheck %s --check-prefix=NO-ASYNC < %t.amd
// RUN: rocke-opt %s -fmha-bwd-to-kernels='strategy=tiled chip=gfx942' | FileCheck %s --check-prefix=SPLIT
// RUN: rocke-opt %s -fmha-bwd-to-kernels='strategy=tiled chip=sm_90 mask-blocks=whole-block-loops' | FileCheck %s --check-prefix=SPLIT
// RUN: rocke-opt %s -fmha-bwd-to-kernels='strategy=tiled chip=gfx942 mask-blocks=per-block-branch' | FileCheck %s --check-prefix=BRANCH
// RUN: not rocke-opt %s -fmha-bwd-to-kernels='strategy=tiled mask-blocks=sometimes' 2>&1 | FileCheck %s --check-prefix=BADMODE
// RUN: rocke-opt %s -fmha-bwd-to-kernels='strategy=tiled target=host' -fmha-lower-tile-copies -fmha-split-workgroup-tiles -fmha-distribute-tiles -o %t.host
// RUN: FileCheck %s --check-prefix=HOST < %t.host
// RUN: FileCheck %s --check-prefix=NO-ASYNC < %t.host

// bf16, D=128, causal. sm_90 (128 KV rows, 8 warps, 32 query rows): per warp
// and query block 32 + 32 atoms for S^T and dP^T, 32 each for dV, dK and dQ.
// gfx942 (128 KV rows, 4 waves, 32 query rows), scores held as S: 32 atoms
// for each of the five products.
// On gfx942 and the host the query blocks run in two loops of the same
// body: the blocks the causal band (or Sk) cuts, with the mask, then the
// whole ones, without (SPLIT); their counts below are twice one
// iteration's. sm_90 runs one loop, a branch per block around the mask.
// SPLIT-LABEL: gpu.func @fmha_bwd_tiled_main
// SPLIT: scf.for
// SPLIT: fmha.tile_mask
// SPLIT: scf.yield
// SPLIT: scf.for
// SPLIT-NOT: fmha.tile_mask
// SPLIT: gpu.return
// mask-blocks overrides the chip's choice: one loop whose mask is
// cut_only, applied only where the band cuts a subgroup's block (the branch
// fmha-distribute-tiles makes).
// BRANCH-LABEL: gpu.func @fmha_bwd_tiled_main
// BRANCH: scf.for
// BRANCH: fmha.tile_mask {{.*}} {cut_only, mask = #fmha.mask<causal>} : <32x128xf32, c, "mfma_f32_16x16x16_bf16", subgroups 1x4>
// BRANCH-NOT: scf.for {{.*}}iter_args
// BRANCH: gpu.return
// BADMODE: Cannot find option named 'sometimes'!
// Two barriers per query block and none elsewhere, placed by
// fmha-place-workgroup-barriers from the kernel's workgroup-memory accesses
// (fmha-bwd-to-kernels emits none).
// BAR-LABEL: gpu.func @fmha_bwd_tiled_main
// NV-BAR-COUNT-2: gpu.barrier
// AMD-BAR-COUNT-4: gpu.barrier
// BAR-NOT: gpu.barrier
// BAR: gpu.return

// The five products, nothing more.
// MMA-LABEL: gpu.func @fmha_bwd_tiled_main
// NV-MMA-COUNT-160: fmha.mma {{.*}} {atom = "mma_sync_m16n8k16_bf16"}
// AMD-MMA-COUNT-320: fmha.mma {{.*}} {atom = "mfma_f32_16x16x16_bf16"}
// MMA-NOT: fmha.mma
// MMA: gpu.return

// Workgroup memory written in the loop: the Q and dO rows, and dS, one
// element per accumulator register (16 per lane on sm_90: a 16 x 32 tile
// over 32 lanes; 16 on gfx942: 32 x 32 over 64 lanes). P never goes through
// workgroup memory. sm_90 fetches Q and dO rows by async copies; gfx942
// stages each as 4 x 4 chunks (32 x 128 over 256 lanes), stored as 4 rows of
// the tile and 4 rows of its transpose, and keeps K in registers.
// WG-LABEL: gpu.func @fmha_bwd_tiled_main
// NV-WG-COUNT-16: vector.store {{.*}} : memref<32x136xbf16, #gpu.address_space<workgroup>>, vector<1xbf16>
// AMD-WG-COUNT-4: vector.store {{.*}} : memref<32x136xbf16, #gpu.address_space<workgroup>>, vector<4xbf16>
// AMD-WG-COUNT-4: vector.store {{.*}} : memref<128x40xbf16, #gpu.address_space<workgroup>>, vector<4xbf16>
// AMD-WG-COUNT-4: vector.store {{.*}} : memref<32x136xbf16, #gpu.address_space<workgroup>>, vector<4xbf16>
// AMD-WG-COUNT-4: vector.store {{.*}} : memref<128x40xbf16, #gpu.address_space<workgroup>>, vector<4xbf16>
// AMD-WG-COUNT-16: vector.store {{.*}} : memref<32x136xbf16, #gpu.address_space<workgroup>>, vector<1xbf16>
// AMD-WG-COUNT-4: vector.store {{.*}} : memref<32x136xbf16, #gpu.address_space<workgroup>>, vector<4xbf16>
// AMD-WG-COUNT-4: vector.store {{.*}} : memref<128x40xbf16, #gpu.address_space<workgroup>>, vector<4xbf16>
// AMD-WG-COUNT-4: vector.store {{.*}} : memref<32x136xbf16, #gpu.address_space<workgroup>>, vector<4xbf16>
// AMD-WG-COUNT-4: vector.store {{.*}} : memref<128x40xbf16, #gpu.address_space<workgroup>>, vector<4xbf16>
// AMD-WG-COUNT-16: vector.store {{.*}} : memref<32x136xbf16, #gpu.address_space<workgroup>>, vector<1xbf16>
// WG-NOT: vector.store {{.*}}#gpu.address_space<workgroup>>, vector<{{[124]}}xbf16>
// NV-WG-NOT: vector.store {{.*}}#gpu.address_space<workgroup>>, vector<8xbf16>
// WG: gpu.return

// sm_90 fetches each query block's Q and dO rows (32 x 128 each, in 16-byte
// chunks over 256 work-items: 2 + 2 each) into the other slot of their
// double buffers while the current block is worked on: fmha-pipeline-tile-
// fetches issues them at the top of an iteration, right after the wait for
// the current block's copies and before the barrier that orders the reads
// after them, and carries the next block's row record and their group. The
// block's row statistics are stored before the wait, so that barrier
// publishes them too (one barrier a block fewer; the previous block's
// barrier after its dS writes orders them after its reads).
// After the loop, a wait for the last (zero-filled) block. gfx942 and the
// host keep register staging.
// NV-ASYNC-LABEL: gpu.func @fmha_bwd_tiled_main
// NV-ASYNC-COUNT-4: nvgpu.device_async_copy {{.*}} {bypassL1}
// NV-ASYNC-NEXT: nvgpu.device_async_create_group
// NV-ASYNC: scf.for {{.*}}vector<1x2xf32>, !nvgpu.device.async.token) {
// NV-ASYNC-NOT: gpu.barrier
// NV-ASYNC: memref.store {{.*}}memref<32xf32, #gpu.address_space<workgroup>>
// NV-ASYNC-NOT: gpu.barrier
// NV-ASYNC: memref.store {{.*}}memref<32xf32, #gpu.address_space<workgroup>>
// NV-ASYNC-NOT: gpu.barrier
// NV-ASYNC: nvgpu.device_async_wait
// NV-ASYNC-NOT: gpu.barrier
// NV-ASYNC-COUNT-4: nvgpu.device_async_copy {{.*}} {bypassL1}
// NV-ASYNC-NEXT: gpu.barrier
// NV-ASYNC-NEXT: nvgpu.device_async_create_group
// NV-ASYNC-NOT: {{nvgpu.device_async|gpu.barrier}}
// NV-ASYNC: gpu.barrier
// NV-ASYNC-NOT: {{nvgpu.device_async|gpu.barrier}}
// NV-ASYNC: scf.yield {{.*}}vector<1x2xf32>, !nvgpu.device.async.token
// NV-ASYNC-NEXT: }
// NV-ASYNC-NEXT: nvgpu.device_async_wait
// NV-ASYNC-NOT: nvgpu.device_async
// NV-ASYNC: gpu.return
// NO-ASYNC-NOT: nvgpu.device_async

// dQ atomics, one per run of a lane's registers along a dQ row: on sm_90 16
// elements per lane (32 x 128 over 256 lanes) as 8 register pairs, whose
// two atoms' pairs leave together in the accumulator's paired columns: 4
// runs of 4, each one red.global.add.v4.f32 later; on gfx942 16 as 4 runs
// of 4 columns, since
// MFMA computes dQ^T = K^T dS^T, whose registers run along a dQ row (each
// run 4 scalar atomics from one address later: no vector f32 atomic on AMD).
// DQ-LABEL: gpu.func @fmha_bwd_tiled_main
// NV-DQ-COUNT-4: fmha.atomic_add {{.*}} {alignment = 16 : i64} : vector<4xf32>
// AMD-DQ-COUNT-8: fmha.atomic_add {{.*}} {alignment = 16 : i64} : vector<4xf32>
// DQ-NOT: {{fmha.atomic_add|memref.atomic_rmw}}
// DQ: gpu.return

// The host atom runs the same schedule (16 x 16 tiles, one lane): 8 atoms
// along D=128 for each of the five products.
// HOST-LABEL: func.func private @fmha_bwd_tiled_main
// HOST-COUNT-80: fmha.mma {{.*}} {atom = "host_16x16x16"}
// HOST-NOT: fmha.mma
// HOST: return
func.func @bf16_d128_causal(%q: memref<?x?x8x128xbf16>, %k: memref<?x?x8x128xbf16>,
    %v: memref<?x?x8x128xbf16>, %o: memref<?x?x8x128xbf16>, %do: memref<?x?x8x128xbf16>,
    %lse: memref<?x8x?xf32>, %dq: memref<?x?x8x128xbf16>, %dk: memref<?x?x8x128xbf16>,
    %dv: memref<?x?x8x128xbf16>) {
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv
      {mask = #fmha.mask<causal>}
      : memref<?x?x8x128xbf16>, memref<?x?x8x128xbf16>, memref<?x?x8x128xbf16>,
        memref<?x?x8x128xbf16>, memref<?x?x8x128xbf16>, stats(memref<?x8x?xf32>)
        -> memref<?x?x8x128xbf16>, memref<?x?x8x128xbf16>, memref<?x?x8x128xbf16>
  return
}
