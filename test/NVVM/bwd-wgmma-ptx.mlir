// Warpgroup products (wgmma, sm_90a) in the tiled backward, end to end:
// fmha-bwd-nvvm{chip=sm_90a} issues every product of the main kernel as
// wgmma.mma_async; sm_90 (no wgmma) and warpgroup-mma=off keep mma.sync.
// Input: bf16, D=64, Hq=16, Hkv=4, causal (block-q 128, block-kv 128, 8
// warps: two warpgroups of 64 KV rows each).
// RUN: rocke-opt %S/Inputs/attention_bwd_bf16.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-nvvm{chip=sm_90a},fmha-dump-binary{output=%t.wg.ptx})'
// RUN: FileCheck %s --check-prefix=WG --implicit-check-not=mma.sync --implicit-check-not=ldmatrix < %t.wg.ptx
// RUN: FileCheck %s --check-prefix=SCORES < %t.wg.ptx
// RUN: FileCheck %s --check-prefix=DQMMA < %t.wg.ptx
// RUN: FileCheck %s --check-prefix=RS < %t.wg.ptx
// RUN: FileCheck %s --check-prefix=FENCES < %t.wg.ptx
// RUN: FileCheck %s --check-prefix=COMMITS < %t.wg.ptx
// RUN: FileCheck %s --check-prefix=WAITS < %t.wg.ptx
// RUN: FileCheck %s --check-prefix=FROMZERO < %t.wg.ptx
// RUN: FileCheck %s --check-prefix=PROXY < %t.wg.ptx
// RUN: FileCheck %s --check-prefix=WGJSON < %t.wg.ptx.json
// RUN: FileCheck %s --check-prefix=EPILOGUE < %t.wg.ptx
// RUN: FileCheck %s --check-prefix=BULK < %t.wg.ptx
// RUN: rocke-opt %S/Inputs/attention_bwd_bf16.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-nvvm{chip=sm_90},fmha-dump-binary{output=%t.sm90.ptx})'
// RUN: FileCheck %s --check-prefixes=SYNC,SM90 --implicit-check-not=wgmma --implicit-check-not=fence.proxy < %t.sm90.ptx
// RUN: rocke-opt %S/Inputs/attention_bwd_bf16.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-nvvm{chip=sm_90a warpgroup-mma=off},fmha-dump-binary{output=%t.off.ptx})'
// RUN: FileCheck %s --check-prefixes=SYNC,OFF --implicit-check-not=wgmma --implicit-check-not=fence.proxy < %t.off.ptx
// The tile IR of the main kernel (see test/Passes/bwd-tiled-structure.mlir).
// RUN: rocke-opt %S/Inputs/attention_bwd_bf16.mlir -pass-pipeline='builtin.module(fmha-bwd-to-kernels{chip=sm_90a subgroup-size=32 strategy=tiled},fmha-split-workgroup-tiles)' -o %t.tiles
// RUN: FileCheck %s --check-prefix=TILES < %t.tiles
// RUN: FileCheck %s --check-prefix=NOREAD < %t.tiles
// RUN: rocke-opt %S/Inputs/attention_bwd_bf16.mlir -pass-pipeline='builtin.module(fmha-bwd-to-kernels{chip=sm_90a subgroup-size=32 strategy=tiled warpgroup-layout=core-matrices},fmha-split-workgroup-tiles)' | FileCheck %s --check-prefix=CORE

// WG: .version 8.1
// WG: .target sm_90a
// WG-LABEL: .entry fmha_bwd_tiled_main(
// WG: wgmma.fence.sync.aligned;
// WG: wgmma.mma_async.sync.aligned
// WG: wgmma.commit_group.sync.aligned;
// WG: wgmma.wait_group.sync.aligned {{[0-7]}};
// WG-LABEL: .entry fmha_bwd_convert_dq(

// Per query block (the PTX's blocks are not in program order; each
// product's k steps are): S^T = K Q^T and dP^T = V dO^T, [64 x 128] per
// warpgroup over D = 64: 2 x 4 steps of m64n128k16, A and B descriptors,
// both K-major (transpose immediates 0, 0).
// SCORES-LABEL: .entry fmha_bwd_tiled_main(
// SCORES-NOT: wgmma.mma_async.sync.aligned.m64n128k16
// SCORES-COUNT-8: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.*}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1, 0, 0;
// SCORES-NOT: wgmma.mma_async.sync.aligned.m64n128k16
// SCORES-LABEL: .entry fmha_bwd_convert_dq(

// dQ = dS K, [64 x 64] per warpgroup over the 128 KV rows: 8 steps, A
// (dS^T in workgroup memory) and B (K) both MN-major (1, 1).
// DQMMA-LABEL: .entry fmha_bwd_tiled_main(
// DQMMA-NOT: p, 1, 1, 1, 1;
// DQMMA-COUNT-8: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1, 1, 1;
// DQMMA-NOT: p, 1, 1, 1, 1;
// DQMMA-LABEL: .entry fmha_bwd_convert_dq(

// dV += P^T dO and dK += dS^T Q, A from registers (P^T, dS^T: 4 b32
// registers a step), over the 128 query rows: 2 x 8 steps, B MN-major.
// RS-LABEL: .entry fmha_bwd_tiled_main(
// RS-COUNT-16: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, p, 1, 1, 1;
// RS-NOT: wgmma.mma_async
// RS-LABEL: .entry fmha_bwd_convert_dq(

// Five products: five fences and groups; the waits: S^T's lets dP^T run
// (1), dP^T's none (0); dQ's lets dK run (1), then dV's (1) and dK's (0).
// FENCES-LABEL: .entry fmha_bwd_tiled_main(
// FENCES-COUNT-5: wgmma.fence.sync.aligned;
// FENCES-NOT: wgmma.fence
// FENCES-LABEL: .entry fmha_bwd_convert_dq(
// COMMITS-LABEL: .entry fmha_bwd_tiled_main(
// COMMITS-COUNT-5: wgmma.commit_group.sync.aligned;
// COMMITS-NOT: wgmma.commit_group
// COMMITS-LABEL: .entry fmha_bwd_convert_dq(
// WAITS-LABEL: .entry fmha_bwd_tiled_main(
// WAITS-DAG: wgmma.wait_group.sync.aligned 1;
// WAITS-DAG: wgmma.wait_group.sync.aligned 1;
// WAITS-DAG: wgmma.wait_group.sync.aligned 1;
// WAITS-DAG: wgmma.wait_group.sync.aligned 0;
// WAITS-DAG: wgmma.wait_group.sync.aligned 0;
// WAITS-NOT: wgmma.wait_group
// WAITS-LABEL: .entry fmha_bwd_convert_dq(

// dQ starts from a zero accumulator: its first step computes D = A * B
// (scale-d 0) with no zeroing moves; every other step adds. S^T and dP^T
// start from the block's statistics (S^T - N / c, dP^T - delta), which
// then need no registers of their own beside them.
// FROMZERO-LABEL: .entry fmha_bwd_tiled_main(
// FROMZERO-COUNT-1: setp.ne.b32 p, 0, 0;
// FROMZERO-NOT: setp.ne.b32 p, 0, 0;
// FROMZERO-LABEL: .entry fmha_bwd_convert_dq(

// Writes the products read through the async proxy are fenced before the
// barrier that orders them: K and V staged into swizzled rows, Q and dO
// copied (cp.async) into their slots, dS^T stored for dQ.
// PROXY-LABEL: .entry fmha_bwd_tiled_main(
// PROXY: cp.async.wait_group
// PROXY: fence.proxy.async.shared::cta;
// PROXY-NEXT: bar.sync 0;
// PROXY: fence.proxy.async.shared::cta;
// PROXY-NEXT: bar.sync 0;
// PROXY: fence.proxy.async.shared::cta;
// PROXY-NEXT: bar.sync 0;
// PROXY-NOT: fence.proxy
// PROXY-LABEL: .entry fmha_bwd_convert_dq(

// dK and dV leave four bytes (two bf16) a store: the tile stores know the
// rows are 16-byte aligned (aligned_rows); one element's alignment split
// each pair into two st.global.b16.
// EPILOGUE-LABEL: .entry fmha_bwd_tiled_main(
// EPILOGUE-NOT: st.global.b16
// EPILOGUE-COUNT-32: st.global.b32
// EPILOGUE-NOT: st.global
// EPILOGUE-LABEL: .entry fmha_bwd_convert_dq(

// A block's staged dQ leaves in one bulk reduction of the whole stage,
// 128 rows of 64 + 8 f32 (36864 bytes), from its start at 132096: in the
// query loop and after each head's last block.
// BULK-LABEL: .entry fmha_bwd_tiled_main(
// BULK-COUNT-2: mov.b32 [[SIZE:%r[0-9]+]], 36864;{{[[:space:]]+}}// begin inline asm{{[[:space:]]+}}cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%rd{{[0-9]+}}], [%r{{[0-9]+}}], [[SIZE]];
// BULK-NOT: cp.reduce.async.bulk
// BULK-LABEL: .entry fmha_bwd_convert_dq(

// 129 KiB of operands and the 36 KiB dQ stage (dq-accumulation's auto
// takes bulk reductions at block-q 128; test/Passes/bwd-dq-bulk-structure.mlir).
// WGJSON: "dynamic_shared_bytes": 168960,
// WGJSON: "name": "fmha_bwd_tiled_main"
// WGJSON: "target": "#nvvm.target<O = 3, chip = \"sm_90a\", features = \"+ptx81\">"

// Without warpgroup products: mma.sync atoms, fragments from ldmatrix.
// SM90: .target sm_90{{$}}
// OFF: .target sm_90a
// SYNC-LABEL: .entry fmha_bwd_tiled_main(
// SYNC: ldmatrix.sync.aligned.m8n8.x4
// SYNC: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32

// The tile IR of one query block (each subgroup's, after
// fmha-split-workgroup-tiles): five warpgroup products, K, V, Q, dO and
// dS^T read from workgroup memory in 128-byte swizzled rows (the default
// warpgroup-layout=auto; core matrices with warpgroup-layout=core-matrices:
// CORE), P^T and dS^T in
// registers as A operands of dV and dK (no plain tile_mma, no tile_read:
// P never goes through workgroup memory).
// TILES-LABEL: gpu.func @fmha_bwd_tiled_main
// TILES: scf.for {{.*}} -> (!fmha.tile<16x64xf32, c, "mma_sync_m16n8k16_bf16">, !fmha.tile<16x64xf32, c, "mma_sync_m16n8k16_bf16">) {
// TILES-NOT: fmha.tile_mma
// TILES: %[[S:.*]] = fmha.tile_mma_warpgroup lhs_buffer %[[K:[a-z0-9_]+]][{{.*}}] : memref<16x1x8x64xbf16, #gpu.address_space<workgroup>>, rhs %[[Q:[a-z0-9_]+]][{{.*}}] : memref<16x1x8x64xbf16, strided<[512, 512, 64, 1], offset: ?>, #gpu.address_space<workgroup>>, acc %{{.*}} {k = 64 : i64, transposed} : <16x128xf32, c, "mma_sync_m16n8k16_bf16">
// TILES-NOT: fmha.tile_mma
// TILES: %[[DP:.*]] = fmha.tile_mma_warpgroup lhs_buffer %[[V:[a-z0-9_]+]][{{.*}}] : memref<16x1x8x64xbf16, #gpu.address_space<workgroup>>, rhs %[[DO:[a-z0-9_]+]][{{.*}}] : memref<16x1x8x64xbf16, strided<[512, 512, 64, 1], offset: ?>, #gpu.address_space<workgroup>>, acc %{{.*}} {k = 64 : i64, transposed} : <16x128xf32, c, "mma_sync_m16n8k16_bf16">
// TILES-NOT: fmha.tile_mma
// TILES: %[[PT:.*]] = fmha.tile_convert %{{.*}} : <16x128xf32, c, "mma_sync_m16n8k16_bf16"> -> <16x128xbf16, a, "mma_sync_m16n8k16_bf16">
// TILES-NOT: fmha.tile_mma
// TILES: %[[DV:.*]] = fmha.tile_mma_warpgroup lhs %[[PT]] : !fmha.tile<16x128xbf16, a, "mma_sync_m16n8k16_bf16">, rhs %[[DO]][{{.*}}] : {{.*}}, acc %{{.*}} : <16x64xf32, c, "mma_sync_m16n8k16_bf16">
// TILES-NOT: fmha.tile_mma
// TILES: fmha.tile_write %[[DS:[0-9]+]], %[[DST:[a-z0-9_]+]][{{.*}}] lane %{{.*}} : <16x128xf32, c, "mma_sync_m16n8k16_bf16">, memref<16x2x8x64xbf16, #gpu.address_space<workgroup>>
// TILES-NOT: fmha.tile_mma
// TILES: %[[DQ:.*]] = fmha.tile_mma_warpgroup lhs_buffer %[[DST]][{{.*}}] : memref<16x2x8x64xbf16, #gpu.address_space<workgroup>>, rhs %[[K]][{{.*}}] : memref<16x1x8x64xbf16, #gpu.address_space<workgroup>>, acc %{{.*}} {k = 128 : i64, lhs_transposed} : <16x64xf32, c, "mma_sync_m16n8k16_bf16">
// TILES-NOT: fmha.tile_mma
// TILES: %[[DST2:.*]] = fmha.tile_convert %[[DS]] : <16x128xf32, c, "mma_sync_m16n8k16_bf16"> -> <16x128xbf16, a, "mma_sync_m16n8k16_bf16">
// TILES-NOT: fmha.tile_mma
// TILES: %[[DK:.*]] = fmha.tile_mma_warpgroup lhs %[[DST2]] : !fmha.tile<16x128xbf16, a, "mma_sync_m16n8k16_bf16">, rhs %[[Q]][{{.*}}] : {{.*}}, acc %{{.*}} : <16x64xf32, c, "mma_sync_m16n8k16_bf16">
// TILES-NOT: fmha.tile_mma
// The block's dQ staged for the bulk-copy unit (dq-accumulation's auto),
// into the stage's one slot.
// TILES: fmha.tile_write %[[DQ]], %{{.*}}[{{.*}}] lane %{{.*}} : <16x64xf32, c, "mma_sync_m16n8k16_bf16">, memref<128x72xf32, strided<[72, 1], offset: ?>, #gpu.address_space<workgroup>>
// CORE-LABEL: gpu.func @fmha_bwd_tiled_main
// CORE: fmha.tile_mma_warpgroup lhs_buffer %{{.*}} : memref<16x8x8x8xbf16, #gpu.address_space<workgroup>>
// CORE: fmha.tile_write %{{.*}} : <16x128xf32, c, "mma_sync_m16n8k16_bf16">, memref<16x16x8x8xbf16, #gpu.address_space<workgroup>>
// TILES-NOT: fmha.tile_mma
// TILES: scf.yield %[[DK]], %[[DV]] : !fmha.tile<16x64xf32, c, "mma_sync_m16n8k16_bf16">, !fmha.tile<16x64xf32, c, "mma_sync_m16n8k16_bf16">
// NOREAD-LABEL: gpu.func @fmha_bwd_tiled_main
// NOREAD-NOT: {{fmha.tile_read|fmha.tile_mma }}
// NOREAD: gpu.return
