// RUN: rocke-opt %s -split-input-file -fmha-bwd-to-kernels='strategy=tiled chip=gfx942' | FileCheck %s --check-prefix=AMD
// RUN: rocke-opt %s -split-input-file -fmha-bwd-to-kernels='strategy=tiled chip=gfx942' -fmha-lower-tile-copies | FileCheck %s --check-prefix=AMDCOPY
// RUN: rocke-opt %s -split-input-file -fmha-bwd-to-kernels='strategy=tiled chip=sm_90' | FileCheck %s --check-prefix=NV
// RUN: rocke-opt %s -split-input-file -fmha-bwd-to-kernels='strategy=tiled chip=sm_90 query-pipelining=async-copies' | FileCheck %s --check-prefix=NVASYNC
// RUN: rocke-opt %s -split-input-file -fmha-bwd-to-kernels='strategy=tiled chip=sm_90 query-pipelining=async-copies' -fmha-lower-tile-copies | FileCheck %s --check-prefix=NVASYNCCOPY
// RUN: rocke-opt %s -split-input-file -fmha-bwd-to-kernels='strategy=tiled target=host block-q=16 block-kv=32' | FileCheck %s --check-prefix=HOST
// RUN: rocke-opt %s -split-input-file -fmha-bwd-to-kernels='strategy=tiled target=host' | FileCheck %s --check-prefix=HOSTAUTO

// Launch order: zero dQ accumulator, preprocess (each query row's softmax
// normalizer and delta in one record), KV-block main kernel,
// dQ conversion. The main kernel runs one workgroup per (KV block, kv head,
// batch), loops over the query heads of its group and the query blocks the
// mask lets through, and accumulates dQ with f32 atomics
// (fmha.tile_accumulate atomic_add; dQ^T on MFMA, whose registers run along
// a dQ row). The chip picks the atoms, tiles
// and operand staging: gfx942 128 KV rows over 4 waves, K in registers and
// Q / dO staged as rows and transposed (Q, dO, Q^T, dO^T, dS in 64 KiB of
// LDS); sm_90 128 KV rows over 8 warps, K, Q and dO in dynamic shared memory
// (recorded for the runner, which opts in past 48 KiB).
// AMD-LABEL: func.func @causal_gqa
// AMD-NOT: @fmha_bwd_zero_dq
// AMD: gpu.launch_func @fmha_kernels::@fmha_bwd_preprocess
// AMD: gpu.launch_func @fmha_kernels::@fmha_bwd_tiled_main
// AMD: gpu.launch_func @fmha_kernels::@fmha_bwd_convert_dq
// AMD: gpu.func @fmha_bwd_tiled_main
// AMD-SAME: workgroup(%{{.*}} : memref<64x72xf16, #gpu.address_space<workgroup>> {{.*}}, %{{.*}} : memref<64x72xf16, #gpu.address_space<workgroup>> {{.*}}, %{{.*}} : memref<64x72xf16, #gpu.address_space<workgroup>> {{.*}}, %{{.*}} : memref<64x72xf16, #gpu.address_space<workgroup>> {{.*}}, %{{.*}} : memref<64x136xf16, #gpu.address_space<workgroup>>
// AMD-SAME: known_block_size = array<i32: 256, 1, 1>
// AMD-SAME: rocke.launch = {args = ["q", "k", "v", "do", "row_stats:f32:none:[B,Hq,Sq,2]", "dq_accum:f32:zero:[B,ceildiv(Sq,BQ)*BQ,Hq,Dqk]", "dk", "dv"], block = [256, 1, 1], grid = ["ceildiv(Sk,128)", "Hkv", "B"], ops = [0], order = 1 : i64, symbols = {BKV = 128 : i64, BQ = 64 : i64}}
// The products are the workgroup's tiles, split over its subgroups as their
// types say (fmha-split-workgroup-tiles gives each subgroup its block,
// fmha-distribute-tiles each lane its fragments): dK and dV [128 KV rows x
// D] accumulate across query blocks, 32 rows per wave; the scores S [64 q x
// 128 kv] 32 keys per wave, whose P^T is the A operand of dV in registers;
// dQ^T [64 x 64] over a 2 x 2 grid of waves, column-major.
// AMD: scf.for {{.*}} iter_args({{.*}}) -> (!fmha.tile<128x64xf32, c, "mfma_f32_16x16x16_f16", subgroups 4x1>, !fmha.tile<128x64xf32, c, "mfma_f32_16x16x16_f16", subgroups 4x1>)
// AMD: fmha.tile_mma {{.*}} : <64x64xf16, a, "mfma_f32_16x16x16_f16", subgroups 1x1>, <64x128xf16, b, "mfma_f32_16x16x16_f16", subgroups 1x4> -> <64x128xf32, c, "mfma_f32_16x16x16_f16", subgroups 1x4>
// AMD: math.exp2
// AMD: fmha.tile_convert {{.*}} {transposed} : <64x128xf32, c, "mfma_f32_16x16x16_f16", subgroups 1x4> -> <128x64xf16, a, "mfma_f32_16x16x16_f16", subgroups 4x1>
// AMD: fmha.tile_mma {{.*}} : <64x128xf16, a, "mfma_f32_16x16x16_f16", subgroups 2x1>, <128x64xf16, b, "mfma_f32_16x16x16_f16", subgroups 1x2 strides 1x2> -> <64x64xf32, c, "mfma_f32_16x16x16_f16", subgroups 2x2 strides 1x2>
// AMD: %[[DQ_ROWS:.*]] = amdgpu.fat_raw_buffer_cast %{{.*}} validBytes(%{{.*}}) resetOffset
// AMD: fmha.tile_accumulate atomic_add {{.*}}, %[[DQ_ROWS]][%c0, %c0, %c0, %c0] {{.*}} {transposed} : <64x64xf32, c, "mfma_f32_16x16x16_f16", subgroups 2x2 strides 1x2>, memref<1x64x1x64xf32, strided<[65536, 512, 64, 1]>, #amdgpu.address_space<fat_raw_buffer>>
// AMD-NOT: memref.atomic_rmw
// AMD-NOT: fmha.attention_bwd

// NV-LABEL: func.func @causal_gqa
// NV: gpu.launch_func @fmha_kernels::@fmha_bwd_tiled_main {{.*}} threads in (%{{.*}}, %{{.*}}, %{{.*}}) dynamic_shared_memory_size %c54784_i32
// The preprocess takes 16-byte runs along a row: eight f16 of O and dO a
// lane (a row over 8 lanes, four rows a subgroup, 32 a workgroup), and
// zero-fills the row of the dQ accumulator four f32 a lane.
// NV-NOT: gpu.func @fmha_bwd_zero_dq
// NV: gpu.func @fmha_bwd_preprocess({{.*}}: memref<2x128x8x64xf32>) kernel
// NV-SAME: args = ["o", "do", "row_stats:f32:none:[B,Hq,Sq,2]", "lse", "dq_accum:f32:zero:[B,ceildiv(Sq,BQ)*BQ,Hq,Dqk]"], block = [256, 1, 1], grid = ["ceildiv(Sq,32)", "Hq", "B"]
// NV: vector.load {{.*}} {alignment = 16 : i64} : memref<2x128x8x64xf16, #gpu.address_space<global>>, vector<8xf16>
// NV: vector.store {{.*}} {alignment = 16 : i64} : memref<2x128x8x64xf32, #gpu.address_space<global>>, vector<4xf32>
// NV: vector.reduction <add>, {{.*}} : vector<8xf32> into f32
// NV: gpu.subgroup_reduce add {{.*}} uniform cluster(size = 8)
// NV: gpu.func @fmha_bwd_tiled_main
// NV-NOT: workgroup(
// NV-SAME: known_block_size = array<i32: 256, 1, 1>
// NV-SAME: dynamic_shared_bytes = 54784 : i64, grid = ["ceildiv(Sk,128)*Hkv*B", "1", "1"]
// NV: gpu.dynamic_shared_memory
// NV: memref.view {{.*}} to memref<128x72xf16, #gpu.address_space<workgroup>>
// A causal mask's KV blocks launch heaviest first: the one-dimensional id
// decodes into groups of four (head, batch) pairs, KV block 0 of each pair
// of the group first; the last group may hold fewer.
// NV: %[[GROUP:.*]] = arith.divui %block_id_x, %[[SPAN:.*]] : index
// NV-NEXT: %[[IN:.*]] = arith.remui %block_id_x, %[[SPAN]]
// NV-NEXT: %[[FIRST:.*]] = arith.muli %[[GROUP]], %c4
// NV-NEXT: %[[LEFT:.*]] = arith.subi %{{.*}}, %[[FIRST]]
// NV-NEXT: %[[SIZE:.*]] = arith.minui %c4{{.*}}, %[[LEFT]]
// NV-NEXT: arith.divui %[[IN]], %[[SIZE]]
// NV-NOT: nvgpu.device_async_copy
// NV: fmha.tile_read {{.*}} {transposed} : memref<64x72xf16, #gpu.address_space<workgroup>> -> <64x64xf16, b, "mma_sync_m16n8k16_f16", subgroups 1x1>
// With query-pipelining=async-copies Q and dO are double-buffered (two
// slots of 64 x 72) and fetched by 16-byte async copies, 2 + 2 per
// work-item and block (64 x 64 f16 over 256 work-items), each block's into
// slot qb rem 2 and waited for in its iteration (fmha-pipeline-tile-fetches
// moves them an iteration ahead).
// NVASYNC-LABEL: func.func @causal_gqa
// NVASYNC: gpu.launch_func @fmha_kernels::@fmha_bwd_tiled_main {{.*}} dynamic_shared_memory_size %c73216_i32
// NVASYNC: memref.view {{.*}} to memref<128x72xf16, #gpu.address_space<workgroup>>
// NVASYNC-COUNT-2: memref.view {{.*}} to memref<2x64x72xf16, #gpu.address_space<workgroup>>
// NVASYNC-NOT: fmha.tile_copy_async
// NVASYNC: scf.for {{.*}} -> ({{.*}}) {
// NVASYNC: %[[SLOT:.*]] = arith.remui
// NVASYNC-NEXT: fmha.tile_copy_async {{.*}} into %{{.*}}[%[[SLOT]]] {rows = 64 : i64, threads = 256 : i64} : memref<2x128x8x64xf16, #gpu.address_space<global>>, memref<2x64x72xf16, #gpu.address_space<workgroup>>
// NVASYNC-NEXT: %[[GROUP:.*]] = fmha.tile_copy_async {{.*}} into %{{.*}}[%[[SLOT]]] {rows = 64 : i64, threads = 256 : i64} : memref<2x128x8x64xf16, #gpu.address_space<global>>, memref<2x64x72xf16, #gpu.address_space<workgroup>>
// NVASYNC-NEXT: nvgpu.device_async_wait %[[GROUP]]
// NVASYNC-NOT: fmha.tile_copy_async
// The copies' threads: 2 + 2 16-byte copies, a group per tile.
// NVASYNCCOPY-LABEL: func.func @causal_gqa
// NVASYNCCOPY: scf.for
// NVASYNCCOPY-COUNT-2: nvgpu.device_async_copy {{.*}}, 8, %{{.*}} {bypassL1} : memref<2x128x8x64xf16, #gpu.address_space<global>> to memref<2x64x72xf16, #gpu.address_space<workgroup>>
// NVASYNCCOPY-NEXT: nvgpu.device_async_create_group
// NVASYNCCOPY-COUNT-2: nvgpu.device_async_copy {{.*}}, 8, %{{.*}} {bypassL1} : memref<2x128x8x64xf16, #gpu.address_space<global>> to memref<2x64x72xf16, #gpu.address_space<workgroup>>
// NVASYNCCOPY-NEXT: %[[GROUP:.*]] = nvgpu.device_async_create_group
// NVASYNCCOPY-NEXT: nvgpu.device_async_wait %[[GROUP]]
// NVASYNCCOPY-NOT: nvgpu.device_async_copy
// NVASYNCCOPY: fmha.tile_read
// NVASYNC: fmha.tile_read {{.*}} {transposed} : memref<64x72xf16, strided<[72, 1], offset: ?>, #gpu.address_space<workgroup>> -> <64x64xf16, b, "mma_sync_m16n8k16_f16", subgroups 1x1>
// NV: fmha.tile_mma {{.*}} -> <128x64xf32, c, "mma_sync_m16n8k16_f16", subgroups 8x1>
// NV: fmha.tile_convert {{.*}} : <128x64xf32, c, "mma_sync_m16n8k16_f16", subgroups 8x1> -> <128x64xf16, a, "mma_sync_m16n8k16_f16", subgroups 8x1>
// NV: fmha.tile_accumulate atomic_add {{.*}} {paired_columns} : <64x64xf32, c, "mma_sync_m16n8k16_f16", subgroups 2x4>, memref<2x128x8x64xf32, #gpu.address_space<global>>
// NV-NOT: memref.atomic_rmw
// dQ leaves mma.sync accumulators into paired columns (column d of each 16
// at 4 (d % 8 / 2) + 2 (d / 8) + d % 2), which the conversion reads back a
// group of 16 a lane: one aligned vector read, permuted in registers, one
// write of 16 f16.
// NV-LABEL: gpu.func @fmha_bwd_convert_dq
// NV-SAME: grid = ["ceildiv(B*Sq*Hq*64,4096)", "1", "1"]
// NV: %[[GROUP16:.*]] = vector.load {{.*}} {alignment = 16 : i64} : memref<2x128x8x64xf32, #gpu.address_space<global>>, vector<16xf32>
// NV-NEXT: vector.shuffle %[[GROUP16]], %[[GROUP16]] [0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15]
// NV: vector.store {{.*}} {alignment = 16 : i64} : memref<2x128x8x64xf16, #gpu.address_space<global>>, vector<16xf16>

// The host runs the same body with one lane: a private function per kernel
// looping over the grid, and the host matrix atom.
// HOST-LABEL: func.func @causal_gqa
// HOST: call @fmha_bwd_tiled_main
// HOST: func.func private @fmha_bwd_tiled_main
// HOST: fmha.tile_mma {{.*}} -> <32x16xf32, c, "host_16x16x16", subgroups 1x1>
// HOST: fmha.tile_accumulate atomic_add {{.*}} : <16x64xf32, c, "host_16x16x16", subgroups 1x1>, memref<2x128x8x64xf32>
// block-q=0 on the host takes 16-row query tiles (the largest tile that fits
// is unbounded there, and 64-row tiles took minutes to JIT at D=256).
// HOSTAUTO-LABEL: func.func private @fmha_bwd_tiled_main
// HOSTAUTO: memref.alloca() : memref<16x64xf16>
// HOSTAUTO-NEXT: memref.alloca() : memref<16x64xf16>
func.func @causal_gqa(%q: memref<2x128x8x64xf16>, %k: memref<2x128x4x64xf16>,
    %v: memref<2x128x4x64xf16>, %o: memref<2x128x8x64xf16>, %do: memref<2x128x8x64xf16>,
    %lse: memref<2x8x128xf32>, %dq: memref<2x128x8x64xf16>, %dk: memref<2x128x4x64xf16>,
    %dv: memref<2x128x4x64xf16>) {
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv
      {mask = #fmha.mask<causal>}
      : memref<2x128x8x64xf16>, memref<2x128x4x64xf16>, memref<2x128x4x64xf16>,
        memref<2x128x8x64xf16>, memref<2x128x8x64xf16>, stats(memref<2x8x128xf32>)
        -> memref<2x128x8x64xf16>, memref<2x128x4x64xf16>, memref<2x128x4x64xf16>
  return
}

// -----

// Deterministic: per-KV-block dQ partials (plain stores, no atomics) summed
// in a fixed order by a last kernel; mma.sync stores its register pairs as
// one vector each, unguarded: the partials' rows run to a whole query block.
// Dynamic sizes: an empty problem launches nothing.
// AMD-LABEL: func.func @deterministic_bf16
// AMD: arith.cmpi ugt
// AMD: arith.andi
// AMD: scf.if %{{.*}} {
// AMD: gpu.launch_func @fmha_kernels::@fmha_bwd_zero_dq
// AMD: gpu.launch_func @fmha_kernels::@fmha_bwd_preprocess
// AMD: gpu.launch_func @fmha_kernels::@fmha_bwd_tiled_main
// AMD: gpu.launch_func @fmha_kernels::@fmha_bwd_reduce_dq
// AMD: gpu.func @fmha_bwd_tiled_main
// AMD-SAME: "dq_partial:f32:zero:[ceildiv(Sk,BKV),B,ceildiv(Sq,BQ)*BQ,Hq,Dqk]"
// AMD-NOT: {{memref.atomic_rmw|fmha.atomic_add|tile_accumulate atomic_add}}
// AMD: fmha.tile_mma {{.*}} "mfma_f32_16x16x16_bf16", subgroups
// AMD: fmha.tile_accumulate store {{.*}} {transposed} : <128x32xf32, c, "mfma_f32_16x16x16_bf16", subgroups 4x1>, memref<?x?x?x4x128xf32, #gpu.address_space<global>>
// AMD-NOT: {{memref.atomic_rmw|fmha.atomic_add|tile_accumulate atomic_add}}
// AMD: gpu.func @fmha_bwd_reduce_dq

// NV-LABEL: func.func @deterministic_bf16
// NV: fmha.tile_mma {{.*}} "mma_sync_m16n8k16_bf16", subgroups
// NV-NOT: {{fmha.atomic_add|tile_accumulate atomic_add}}
// NV: fmha.tile_accumulate store {{.*}} : <32x128xf32, c, "mma_sync_m16n8k16_bf16", subgroups 1x8>, memref<?x?x?x4x128xf32, #gpu.address_space<global>>
// NV-NOT: {{fmha.atomic_add|tile_accumulate atomic_add}}
// NV: gpu.func @fmha_bwd_reduce_dq

// HOST-LABEL: func.func @deterministic_bf16
// HOST: call @fmha_bwd_reduce_dq
func.func @deterministic_bf16(%q: memref<?x?x4x128xbf16>, %k: memref<?x?x4x128xbf16>,
    %v: memref<?x?x4x128xbf16>, %o: memref<?x?x4x128xbf16>, %do: memref<?x?x4x128xbf16>,
    %lse: memref<?x4x?xf32>, %dq: memref<?x?x4x128xbf16>, %dk: memref<?x?x4x128xbf16>,
    %dv: memref<?x?x4x128xbf16>) {
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv
      {deterministic}
      : memref<?x?x4x128xbf16>, memref<?x?x4x128xbf16>, memref<?x?x4x128xbf16>,
        memref<?x?x4x128xbf16>, memref<?x?x4x128xbf16>, stats(memref<?x4x?xf32>)
        -> memref<?x?x4x128xbf16>, memref<?x?x4x128xbf16>, memref<?x?x4x128xbf16>
  return
}

// -----

// Dqk != Dv: every thread stores all the Q and dO rows it fetched, dO's
// (64 x 96) as six 2 x 2 chunks (each 2 rows of the tile and 2 of its
// transpose) and Q's (64 x 64 over 256 lanes) as one 4 x 4 chunk, the
// last-loaded first (fmha-lower-tile-copies). The store used to
// split the fetched values in two equal halves (a crash found by
// rocke-fuzz; silently missing dO rows before the transposed copies).
// AMD-LABEL: func.func @v_head_dim
// AMD: gpu.func @fmha_bwd_tiled_main
// AMD: scf.for
// AMD: fmha.tile_fetch {{.*}} -> <64x64xf16, chunk 4x4, threads 256>
// AMD: fmha.tile_fetch {{.*}} -> <64x96xf16, chunk 2x2, threads 256>
// AMD: fmha.tile_place %{{.*}} into %{{.*}} : memref<64x104xf16, #gpu.address_space<workgroup>> transposed into %{{.*}} : memref<96x72xf16, #gpu.address_space<workgroup>> : <64x96xf16, chunk 2x2, threads 256>
// AMD: fmha.tile_place %{{.*}} into %{{.*}} : memref<64x72xf16, #gpu.address_space<workgroup>> transposed into %{{.*}} : memref<64x72xf16, #gpu.address_space<workgroup>> : <64x64xf16, chunk 4x4, threads 256>
// AMDCOPY-LABEL: func.func @v_head_dim
// AMDCOPY: gpu.func @fmha_bwd_tiled_main
// AMDCOPY-COUNT-12: vector.store {{.*}} : memref<64x104xf16, #gpu.address_space<workgroup>>, vector<2xf16>
// AMDCOPY-COUNT-8: vector.store {{.*}} : memref<64x72xf16, #gpu.address_space<workgroup>>, vector<4xf16>
// AMDCOPY-NOT: memref<64x104xf16, #gpu.address_space<workgroup>>, vector<2xf16>
// AMDCOPY: fmha.tile_write
// AMD: fmha.tile_write {{.*}} : <64x128xf32, c, "mfma_f32_16x16x16_f16", subgroups 1x4>, memref<64x136xf16, #gpu.address_space<workgroup>>
func.func @v_head_dim(%q: memref<1x16x2x64xf16>, %v: memref<1x16x2x96xf16>, %lse: memref<1x2x16xf32>,
    %dq: memref<1x16x2x64xf16>, %dk: memref<1x16x2x64xf16>, %dv: memref<1x16x2x96xf16>) {
  fmha.attention_bwd %q, %q, %v, %v, %v, stats(%lse) -> %dq, %dk, %dv
      : memref<1x16x2x64xf16>, memref<1x16x2x64xf16>, memref<1x16x2x96xf16>,
        memref<1x16x2x96xf16>, memref<1x16x2x96xf16>, stats(memref<1x2x16xf32>)
        -> memref<1x16x2x64xf16>, memref<1x16x2x64xf16>, memref<1x16x2x96xf16>
  return
}
