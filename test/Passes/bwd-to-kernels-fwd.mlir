// fmha-bwd-to-kernels{forward=true}: the FlashAttention-2 forward on tiles.
// RUN: rocke-opt %s -split-input-file -fmha-bwd-to-kernels='chip=gfx942 forward=true' | FileCheck %s --check-prefixes=CHECK,AMD,SPLIT
// RUN: rocke-opt %s -split-input-file -fmha-bwd-to-kernels='chip=sm_90 forward=true' | FileCheck %s --check-prefixes=CHECK,NV
// RUN: rocke-opt %s -split-input-file -fmha-bwd-to-kernels='chip=sm_90 forward=true fwd-kv-pipelining=synchronous' | FileCheck %s --check-prefixes=CHECK,NVSYNC
// RUN: rocke-opt %s -split-input-file -fmha-bwd-to-kernels='target=host forward=true' | FileCheck %s --check-prefixes=CHECK,HOST,SPLIT
// RUN: rocke-opt %s -split-input-file -fmha-bwd-to-kernels='chip=gfx942' | FileCheck %s --check-prefix=KEPT

// bf16, D=128, causal. Q stays in registers on gfx942 (32x32x8 atoms:
// ChipInfo::fwdAtomByWork); sm_90 (32 query
// rows per warp) and the host read it from the block's copy. gfx942 holds the scores as S^T [kv x q] (an MFMA C
// fragment is the B fragment of P^T in O^T = V^T P^T) and the row
// statistics as per-column vectors; sm_90 and the host hold S [q x kv] (two
// m16n8 accumulators are an A fragment of P in O = P V) and per-row
// vectors. On gfx942 and the host the KV blocks run in two loops of the
// same body: the ones every query of the block sees whole, without the
// mask, then the ones the band or Sk cuts, with it; sm_90 runs one loop
// whose mask is cut_only (a branch per subgroup's block, made by
// fmha-distribute-tiles), and copies each block's K and V
// asynchronously into slot kb rem 2 of double-buffered tiles, waiting for
// them in the same iteration (fmha-pipeline-tile-fetches issues them a block
// ahead).
// CHECK-LABEL: func{{.*}} @fmha_fwd_tiled_main(
// AMD: fmha.tile_load {{.*}} {transposed} : {{.*}} -> <128x128xbf16, b, "mfma_f32_32x32x8_bf16", subgroups 1x4>
// AMD: %[[INIT:.*]] = fmha.tile_map({{.*}}) : !fmha.tile<1x128xf32, cols, "mfma_f32_32x32x8_bf16", subgroups 1x4> -> !fmha.tile<1x128xf32, cols, "mfma_f32_32x32x8_bf16", subgroups 1x4>
// AMD-NEXT: ^bb0(%{{.*}}: f32):
// AMD-NEXT: fmha.yield %{{.*}} : f32
// NV-NOT: fmha.tile_copy_async
// CHECK: scf.for
// NV: %[[SLOT:.*]] = arith.remui
// NV: fmha.tile_copy_async {{.*}} into %{{.*}}[%[[SLOT]]] {rows = 64 : i64, threads = 128 : i64}
// NV-NEXT: %[[GROUP:.*]] = fmha.tile_copy_async {{.*}} into %{{.*}}[%[[SLOT]]]
// NV-NEXT: nvgpu.device_async_wait %[[GROUP]]
// NV: memref.subview %{{.*}}[%[[SLOT]], 0, 0]
// NVSYNC-NOT: nvgpu
// HOST: fmha.tile_read {{.*}} -> <16x128xbf16, a, "host_16x16x16", subgroups 1x1>
// NV: fmha.tile_read {{.*}} -> <128x128xbf16, a, "mma_sync_m16n8k16_bf16", subgroups 4x1>
// AMD: fmha.tile_mma {{.*}} : <64x128xbf16, a, "mfma_f32_32x32x8_bf16", subgroups 1x1>, <128x128xbf16, b, "mfma_f32_32x32x8_bf16", subgroups 1x4> -> <64x128xf32, c, "mfma_f32_32x32x8_bf16", subgroups 1x4>
// NV: fmha.tile_mma {{.*}} : <128x128xbf16, a, "mma_sync_m16n8k16_bf16", subgroups 4x1>, <128x64xbf16, b, "mma_sync_m16n8k16_bf16", subgroups 1x1> -> <128x64xf32, c, "mma_sync_m16n8k16_bf16", subgroups 4x1>
// NV: fmha.tile_mask {{.*}} {cut_only, fill = 0xFF800000 : f32, mask = #fmha.mask<causal>}
// SPLIT-NOT: fmha.tile_mask
// AMD: fmha.tile_reduce max %{{.*}} dim 0 : <64x128xf32, c, "mfma_f32_32x32x8_bf16", subgroups 1x4> -> <1x128xf32, cols, "mfma_f32_32x32x8_bf16", subgroups 1x4>
// NV: fmha.tile_reduce max %{{.*}} dim 1 : <128x64xf32, c, "mma_sync_m16n8k16_bf16", subgroups 4x1> -> <128x1xf32, rows, "mma_sync_m16n8k16_bf16", subgroups 4x1>
// CHECK: math.exp2
// CHECK: fmha.tile_reduce add
// AMD: fmha.tile_convert %{{.*}} : <64x128xf32, c, "mfma_f32_32x32x8_bf16", subgroups 1x4> -> <64x128xbf16, b, "mfma_f32_32x32x8_bf16", subgroups 1x4>
// NV: fmha.tile_convert %{{.*}} : <128x64xf32, c, "mma_sync_m16n8k16_bf16", subgroups 4x1> -> <128x64xbf16, a, "mma_sync_m16n8k16_bf16", subgroups 4x1>
// AMD: fmha.tile_mma {{.*}} -> <128x128xf32, c, "mfma_f32_32x32x8_bf16", subgroups 1x4>
// NV: fmha.tile_mma {{.*}} -> <128x128xf32, c, "mma_sync_m16n8k16_bf16", subgroups 4x1>
// SPLIT-NOT: fmha.tile_mask
// CHECK: scf.yield
// SPLIT-NEXT: }
// SPLIT-NEXT: scf.for
// AMD: fmha.tile_mask {{.*}} {fill = 0xFF800000 : f32, keys_along_rows, mask = #fmha.mask<causal>}
// HOST: fmha.tile_mask
// SPLIT: fmha.tile_reduce max
// SPLIT: scf.yield
// NV-NOT: nvgpu.device_async_wait
// AMD: fmha.tile_store {{.*}} {aligned_rows, transposed} : <128x128xf32, c, "mfma_f32_32x32x8_bf16", subgroups 1x4>
// NV: fmha.tile_store {{.*}} {aligned_rows} : <128x128xf32, c, "mma_sync_m16n8k16_bf16", subgroups 4x1>
// CHECK: math.log2
// CHECK: fmha.tile_store_lines
// CHECK-NOT: fmha.attention_fwd
// KEPT: fmha.attention_fwd
func.func @causal(%q: memref<?x?x16x128xbf16>, %k: memref<?x?x16x128xbf16>, %v: memref<?x?x16x128xbf16>, %o: memref<?x?x16x128xbf16>, %lse: memref<?x16x?xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) {mask = #fmha.mask<causal>}
    : memref<?x?x16x128xbf16>, memref<?x?x16x128xbf16>, memref<?x?x16x128xbf16> -> memref<?x?x16x128xbf16>, stats(memref<?x16x?xf32>)
  return
}

// -----

// The log2-domain statistics leave as they are (M and L), no log2.
// CHECK-LABEL: func{{.*}} @fmha_fwd_tiled_main(
// CHECK-NOT: math.log2
// CHECK-COUNT-2: fmha.tile_store_lines
// CHECK-NOT: math.log2
func.func @log2_max_sum(%q: memref<1x64x4x64xf16>, %k: memref<1x64x2x64xf16>, %v: memref<1x64x2x64xf16>, %o: memref<1x64x4x64xf16>, %m: memref<1x4x64xf32>, %l: memref<1x4x64xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%m, %l) {stats_encoding = #fmha.stats<log2_max_sum>}
    : memref<1x64x4x64xf16>, memref<1x64x2x64xf16>, memref<1x64x2x64xf16> -> memref<1x64x4x64xf16>, stats(memref<1x4x64xf32>, memref<1x4x64xf32>)
  return
}

// -----

// Forward and backward in one module: kernels record the ops that launch
// them in module order (the forward's kernel op 0, the backward's op 1), so
// runners launch the chain in order.
// CHECK-LABEL: func{{.*}} @fmha_fwd_tiled_main(
// CHECK-SAME: ops = [0]
// CHECK-LABEL: func{{.*}} @fmha_bwd_preprocess(
// CHECK-SAME: ops = [1]
func.func @chain(%q: memref<1x64x2x64xf16>, %k: memref<1x64x2x64xf16>, %v: memref<1x64x2x64xf16>, %o: memref<1x64x2x64xf16>, %do: memref<1x64x2x64xf16>, %lse: memref<1x2x64xf32>, %dq: memref<1x64x2x64xf16>, %dk: memref<1x64x2x64xf16>, %dv: memref<1x64x2x64xf16>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
    : memref<1x64x2x64xf16>, memref<1x64x2x64xf16>, memref<1x64x2x64xf16> -> memref<1x64x2x64xf16>, stats(memref<1x2x64xf32>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv
    : memref<1x64x2x64xf16>, memref<1x64x2x64xf16>, memref<1x64x2x64xf16>, memref<1x64x2x64xf16>, memref<1x64x2x64xf16>, stats(memref<1x2x64xf32>)
      -> memref<1x64x2x64xf16>, memref<1x64x2x64xf16>, memref<1x64x2x64xf16>
  return
}
