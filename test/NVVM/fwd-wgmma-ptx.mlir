// Warpgroup products (wgmma, sm_90a) in the tiled forward, end to end:
// fmha-bwd-nvvm{chip=sm_90a} issues S = Q K^T and O += P V as
// wgmma.mma_async on operands in 128-byte swizzled rows (the defaults
// fwd-warpgroup-mma=auto, fwd-warpgroup-layout=auto); sm_90 (no wgmma) and
// fwd-warpgroup-mma=off keep mma.sync. bf16 D=128 causal and f16 D=64
// causal at the default tiles: at D = 128, 128 query rows over 8 warps (two
// warpgroups of 64) by 128 KV rows in two slices of 64 (fwd-kv-slices),
// every work-item copying K and V (fwd-kv-pipelining=async-copies; the
// default's producer warpgroup: fwd-producer-warpgroup-ptx.mlir); at D = 64
// one warpgroup by 128 KV rows, whole.
// RUN: rocke-opt %S/Inputs/fwd_bf16_d128_causal.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-nvvm{chip=sm_90a fwd-kv-pipelining=async-copies},fmha-dump-binary{output=%t.wg.ptx})'
// RUN: FileCheck %s --check-prefix=WG --implicit-check-not=mma.sync --implicit-check-not=ldmatrix --implicit-check-not=.local < %t.wg.ptx
// RUN: FileCheck %s --check-prefix=SCORES < %t.wg.ptx
// RUN: FileCheck %s --check-prefix=PV < %t.wg.ptx
// RUN: FileCheck %s --check-prefix=FENCES < %t.wg.ptx
// RUN: FileCheck %s --check-prefix=COMMITS < %t.wg.ptx
// RUN: grep -c "wgmma.wait_group.sync.aligned 0;" %t.wg.ptx | FileCheck %s --check-prefix=WAITS
// RUN: grep -c "wgmma.wait_group.sync.aligned 1;" %t.wg.ptx | FileCheck %s --check-prefix=WAITS
// RUN: FileCheck %s --check-prefix=FROMZERO < %t.wg.ptx
// RUN: FileCheck %s --check-prefix=PROXY < %t.wg.ptx
// RUN: FileCheck %s --check-prefix=WGJSON < %t.wg.ptx.json
// RUN: FileCheck %s --check-prefix=SWIZZLE < %t.wg.ptx
// RUN: grep -c "or.b64 .*, 4611686568183267328;" %t.wg.ptx | FileCheck %s --check-prefix=SWIZZLE-K
// RUN: grep -c "or.b64 .*, 4611686568187396096;" %t.wg.ptx | FileCheck %s --check-prefix=SWIZZLE-MN
// RUN: rocke-opt %S/Inputs/fwd_bf16_d128_causal.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-nvvm{chip=sm_90a fwd-kv-pipelining=async-copies fwd-warpgroup-layout=core-matrices},fmha-dump-binary{output=%t.core.ptx})'
// RUN: grep -c "or.b64 .*, 549756338176;" %t.core.ptx | FileCheck %s --check-prefix=CORE-K
// RUN: grep -c "or.b64 .*, 34368126976;" %t.core.ptx | FileCheck %s --check-prefix=CORE-MN
// RUN: not grep -q 4611686 %t.core.ptx
// RUN: rocke-opt %S/Inputs/fwd_f16_d64_causal.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-nvvm{chip=sm_90a},fmha-dump-binary{output=%t.d64.ptx})'
// RUN: FileCheck %s --check-prefix=D64S --implicit-check-not=mma.sync --implicit-check-not=ldmatrix < %t.d64.ptx
// RUN: FileCheck %s --check-prefix=D64PV < %t.d64.ptx
// RUN: FileCheck %s --check-prefix=D64JSON < %t.d64.ptx.json
// RUN: rocke-opt %S/Inputs/fwd_bf16_d128_causal.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-nvvm{chip=sm_90},fmha-dump-binary{output=%t.sm90.ptx})'
// RUN: FileCheck %s --check-prefixes=SYNC,SM90 --implicit-check-not=wgmma --implicit-check-not=fence.proxy < %t.sm90.ptx
// RUN: rocke-opt %S/Inputs/fwd_bf16_d128_causal.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-nvvm{chip=sm_90a fwd-warpgroup-mma=off},fmha-dump-binary{output=%t.off.ptx})'
// RUN: FileCheck %s --check-prefixes=SYNC,OFF --implicit-check-not=wgmma --implicit-check-not=fence.proxy < %t.off.ptx
// The tile IR of the KV loop (see test/Passes/fwd-tiled-structure.mlir).
// RUN: rocke-opt %S/Inputs/fwd_bf16_d128_causal.mlir -pass-pipeline='builtin.module(fmha-bwd-to-kernels{chip=sm_90a forward=true fwd-kv-pipelining=async-copies},fmha-split-workgroup-tiles)' -o %t.tiles
// RUN: FileCheck %s --check-prefix=TILES < %t.tiles
// RUN: FileCheck %s --check-prefix=NOREAD < %t.tiles

// WG: .version 8.1
// WG: .target sm_90a
// WG-LABEL: .entry fmha_fwd_tiled_main(
// WG: .maxntid 256, 1, 1
// WG: wgmma.fence.sync.aligned;
// WG: wgmma.mma_async.sync.aligned
// WG: wgmma.commit_group.sync.aligned;
// WG: wgmma.wait_group.sync.aligned 0;
// WG: ret;

// The kernel's one KV loop (the mask behind a branch): S = Q K^T of each
// slice, [64 x 64] per warpgroup over D = 128: 8 steps of m64n64k16 twice,
// A (Q) and B (K) by descriptor, both K-major (transpose immediates 0, 0).
// SCORES-LABEL: .entry fmha_fwd_tiled_main(
// SCORES-NOT: p, 1, 1, 0, 0;
// SCORES-COUNT-16: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1, 0, 0;
// SCORES-NOT: p, 1, 1, 0, 0;

// O += P V, [64 x 128] per warpgroup over each slice's 64 keys: 4 steps
// twice, A from registers (P: 4 b32 registers a step), B (V) MN-major.
// PV-LABEL: .entry fmha_fwd_tiled_main(
// PV-NOT: p, 1, 1, 1;
// PV-COUNT-8: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.*}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, p, 1, 1, 1;
// PV-NOT: p, 1, 1, 1;

// Four products per block (S and P V of two slices): four fences, four
// groups and four waits, two of which let the product issued after theirs
// run on (each slice's S beside the other's products; the row sums run
// while a P V does); only the S products start from a zero accumulator
// (scale-d 0 on their first step).
// FENCES-LABEL: .entry fmha_fwd_tiled_main(
// FENCES-COUNT-4: wgmma.fence.sync.aligned;
// FENCES-NOT: wgmma.fence
// COMMITS-LABEL: .entry fmha_fwd_tiled_main(
// COMMITS-COUNT-4: wgmma.commit_group.sync.aligned;
// COMMITS-NOT: wgmma.commit_group
// WAITS: {{^}}2{{$}}
// FROMZERO-LABEL: .entry fmha_fwd_tiled_main(
// FROMZERO-COUNT-2: setp.ne.b32 p, 0, 0;
// FROMZERO-NOT: setp.ne.b32 p, 0, 0;

// The block's K and V copies (cp.async) and Q's (stores, before the loop)
// are fenced for the async proxy before the barrier the products wait on:
// one barrier per block.
// PROXY-LABEL: .entry fmha_fwd_tiled_main(
// PROXY-NOT: fence.proxy
// PROXY: cp.async.wait_group 0;
// PROXY-NEXT: fence.proxy.async.shared::cta;
// PROXY-NEXT: bar.sync 0;
// PROXY-NOT: {{fence.proxy|bar.sync}}

// The descriptors: swizzle mode 1 (128-byte rows, bit 62); Q (A) and K
// (B) K-major, 8-row groups 2048 bytes apart (bits 32-45: 128), no leading
// offset (bits 16-29: 1); V (B of P V) MN-major, its two 64-column atoms
// 1024 bytes apart (leading offset 64), 8-row groups 2048 apart. 8 of Q's
// (shared by the slices), 8 of K's a slice; 4 of V's a slice. The copies
// swizzle each 16-byte chunk by its row (an xor in the address). Core
// matrices instead: no swizzle bit, 16-byte rows (Q and K: leading offset
// 128 B between k core matrices (8), stride 2048 B between row groups (128);
// V: leading 2048 B (128), stride 128 B (8)).
// SWIZZLE-LABEL: .entry fmha_fwd_tiled_main(
// SWIZZLE: xor.b64
// SWIZZLE: cp.async.cg.shared.global
// SWIZZLE-K: {{^}}24{{$}}
// SWIZZLE-MN: {{^}}8{{$}}
// CORE-K: {{^}}24{{$}}
// CORE-MN: {{^}}8{{$}}

// Q [128 x 128] once, K and V [128 x 128] two slots each: 160 KiB.
// WGJSON: "dynamic_shared_bytes": 163840,
// WGJSON: "grid": [
// WGJSON-NEXT: "ceildiv(Sq,128)*Hq*B",
// WGJSON: "maxntid": "256, 1, 1",
// WGJSON: "name": "fmha_fwd_tiled_main"
// WGJSON: "target": "#nvvm.target<O = 3, chip = \"sm_90a\", features = \"+ptx81\">"

// f16, D = 64, one warpgroup: S over 4 steps of m64n128k16 (SS), O over 8
// of m64n64k16 (RS); Q [64 x 64] and two slots of K and V [128 x 64]: 72
// KiB (several workgroups an SM).
// D64S-LABEL: .entry fmha_fwd_tiled_main(
// D64S-NOT: wgmma.mma_async.sync.aligned.m64n128k16
// D64S-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{.*}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1, 0, 0;
// D64S-NOT: wgmma.mma_async.sync.aligned.m64n128k16
// D64PV-LABEL: .entry fmha_fwd_tiled_main(
// D64PV-NOT: wgmma.mma_async.sync.aligned.m64n64k16
// D64PV-COUNT-8: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, p, 1, 1, 1;
// D64PV-NOT: wgmma.mma_async.sync.aligned.m64n64k16
// D64JSON: "dynamic_shared_bytes": 73728,
// D64JSON: "maxntid": "128, 1, 1",

// Without warpgroup products: mma.sync atoms, fragments from ldmatrix, 4
// warps.
// SM90: .target sm_90{{$}}
// OFF: .target sm_90a
// SYNC-LABEL: .entry fmha_fwd_tiled_main(
// SYNC: .maxntid 128, 1, 1
// SYNC: ldmatrix.sync.aligned.m8n8
// SYNC: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32

// Each subgroup's KV iteration after fmha-split-workgroup-tiles: four
// warpgroup products on its 16 query rows. S of each slice reads Q (A, at
// the warpgroup's 64 rows) and the slice's 64 rows of K (B, transposed)
// from swizzled rows, both issued first; each slice's P is converted in
// registers (never through workgroup memory) into the A operand of O += P
// V, whose B is the slice's rows of V as they lie.
// TILES-LABEL: gpu.func @fmha_fwd_tiled_main
// TILES: scf.for {{.*}} -> (!fmha.tile<16x128xf32, c, "mma_sync_m16n8k16_bf16">, !fmha.tile<16x1xf32, rows, "mma_sync_m16n8k16_bf16">, !fmha.tile<16x1xf32, rows, "mma_sync_m16n8k16_bf16">) {
// TILES-NOT: fmha.tile_mma
// TILES: %[[K0:.*]] = arith.constant 0 : index
// TILES-NOT: fmha.tile_mma
// TILES: %[[S0:.*]] = fmha.tile_mma_warpgroup lhs_buffer %[[Q:[a-z0-9_]+]][{{.*}}] : memref<16x2x8x64xbf16, #gpu.address_space<workgroup>>, rhs %[[K:[a-z0-9_]+]][%[[K0]], {{.*}}] : memref<16x2x8x64xbf16, strided<[1024, 512, 64, 1], offset: ?>, #gpu.address_space<workgroup>>, acc %{{.*}} {k = 128 : i64, transposed} : <16x64xf32, c, "mma_sync_m16n8k16_bf16">
// TILES-NOT: fmha.tile_mma
// TILES: %[[K64:.*]] = arith.constant 64 : index
// TILES-NOT: fmha.tile_mma
// TILES: %[[S1:.*]] = fmha.tile_mma_warpgroup lhs_buffer %[[Q]][{{.*}}] : memref<16x2x8x64xbf16, #gpu.address_space<workgroup>>, rhs %[[K]][%[[K64]], {{.*}}] : memref<16x2x8x64xbf16, strided<[1024, 512, 64, 1], offset: ?>, #gpu.address_space<workgroup>>, acc %{{.*}} {k = 128 : i64, transposed} : <16x64xf32, c, "mma_sync_m16n8k16_bf16">
// TILES-NOT: fmha.tile_mma
// TILES: %[[P0:.*]] = fmha.tile_convert %{{.*}} : <16x64xf32, c, "mma_sync_m16n8k16_bf16"> -> <16x64xbf16, a, "mma_sync_m16n8k16_bf16">
// TILES-NOT: fmha.tile_mma
// TILES: %[[V0:.*]] = arith.constant 0 : index
// TILES-NEXT: %[[O0:.*]] = fmha.tile_mma_warpgroup lhs %[[P0]] : !fmha.tile<16x64xbf16, a, "mma_sync_m16n8k16_bf16">, rhs %[[V:[a-z0-9_]+]][%[[V0]], {{.*}}] : memref<16x2x8x64xbf16, strided<[1024, 512, 64, 1], offset: ?>, #gpu.address_space<workgroup>>, acc %{{.*}} : <16x128xf32, c, "mma_sync_m16n8k16_bf16">
// TILES-NOT: fmha.tile_mma
// TILES: %[[P1:.*]] = fmha.tile_convert %{{.*}} : <16x64xf32, c, "mma_sync_m16n8k16_bf16"> -> <16x64xbf16, a, "mma_sync_m16n8k16_bf16">
// TILES-NOT: fmha.tile_mma
// TILES: %[[V64:.*]] = arith.constant 64 : index
// TILES-NEXT: %[[O1:.*]] = fmha.tile_mma_warpgroup lhs %[[P1]] : !fmha.tile<16x64xbf16, a, "mma_sync_m16n8k16_bf16">, rhs %[[V]][%[[V64]], {{.*}}] : memref<16x2x8x64xbf16, strided<[1024, 512, 64, 1], offset: ?>, #gpu.address_space<workgroup>>, acc %{{.*}} : <16x128xf32, c, "mma_sync_m16n8k16_bf16">
// TILES-NOT: fmha.tile_mma
// TILES: scf.yield %[[O1]],
// NOREAD-LABEL: gpu.func @fmha_fwd_tiled_main
// NOREAD-NOT: {{fmha.tile_read|fmha.tile_mma }}
// NOREAD: gpu.return
