// fmha-bwd-to-kernels with an additive bias (issue 33): the bias tile is
// added after the score_mod, before P and the mask, by a tile_map with the
// elements' positions whose body loads bias[b, h, min(q, Sq-1),
// min(k, Sk-1)]; the backward stores dS' = P (dP - delta) (before the
// slope) into grad_bias with fmha.tile_store_scores: atomic adds into a
// zero-filled buffer where the bias broadcasts, plain stores where not.
// Kernel argument roles "bias" and "dbias".
// RUN: rocke-opt %s -split-input-file -fmha-bwd-to-kernels='chip=gfx942' | FileCheck %s --check-prefix=BCAST
// RUN: rocke-opt %s -split-input-file -fmha-bwd-to-kernels='chip=sm_90 forward=true' | FileCheck %s --check-prefix=FULL

// A softcap and an f32 bias broadcast over the batch (S [q x kv] on
// gfx942): the zero-fill of [Hq, Sq, Sk], then atomic adds of dS' (its
// own map: dS has the slope).
// BCAST-LABEL: gpu.func @fmha_bwd_zero_dbias(
// BCAST-SAME: args = ["dbias"], block = [256, 1, 1], grid = ["ceildiv(Hq*Sq*Sk,256)", "1", "1"]
// BCAST-LABEL: gpu.func @fmha_bwd_tiled_main(
// BCAST-SAME: args = ["q", "k", "v", "do", "row_stats:f32:none:[B,Hq,Sq,2]", "dq_accum:f32:zero:[B,ceildiv(Sq,BQ)*BQ,Hq,Dqk]", "dk", "dv", "bias", "dbias"]
// BCAST: %[[MOD:.*]]:2 = fmha.tile_map(
// BCAST: fmha.yield
// BCAST: %[[B0:.*]] = arith.constant 0 : index
// BCAST: %[[LASTQ:.*]] = arith.subi %[[SQ:.*]], %{{.*}} : index
// BCAST-NEXT: %[[LASTK:.*]] = arith.subi %[[SK:.*]], %{{.*}} : index
// BCAST-NEXT: %[[BIASED:.*]] = fmha.tile_map(%[[MOD]]#0) at(%[[Q0:.*]], %[[K0:.*]]) lane %{{.*}} :
// BCAST-NEXT: ^bb0(%[[X:.*]]: f32, %[[Q:.*]]: index, %[[K:.*]]: index):
// BCAST-NEXT: %[[QC:.*]] = arith.minui %[[Q]], %[[LASTQ]] : index
// BCAST-NEXT: %[[KC:.*]] = arith.minui %[[K]], %[[LASTK]] : index
// BCAST-NEXT: %[[BIAS:.*]] = memref.load %{{.*}}[%[[B0]], %[[H:.*]], %[[QC]], %[[KC]]] : memref<1x4x?x?xf32, #gpu.address_space<global>>
// BCAST-NEXT: %[[SUM:.*]] = arith.addf %[[X]], %[[BIAS]] : f32
// BCAST-NEXT: fmha.yield %[[SUM]] : f32
// BCAST: %[[P:.*]] = fmha.tile_map(%[[BIASED]], %{{.*}})
// BCAST: arith.constant 1.44269502 : f32
// BCAST: %[[PM:.*]] = fmha.tile_mask %[[P]] at
// BCAST: fmha.tile_map(%[[PM]], %{{.*}}, %{{.*}}, %[[SLOPE:.*]]) :
// BCAST: %[[DSB:.*]] = fmha.tile_map(%[[PM]], %{{.*}}, %{{.*}}) :
// BCAST-NEXT: ^bb0(%[[P1:.*]]: f32, %[[DP1:.*]]: f32, %[[D1:.*]]: f32):
// BCAST-NEXT: %[[DIFF:.*]] = arith.subf %[[DP1]], %[[D1]] : f32
// BCAST-NEXT: %[[DSP:.*]] = arith.mulf %[[P1]], %[[DIFF]] : f32
// BCAST-NEXT: fmha.yield %[[DSP]] : f32
// BCAST: fmha.tile_store_scores atomic_add %[[DSB]], %{{.*}}[%{{.*}}, %[[H]]] at(%[[Q0]], %[[K0]]) lane %{{.*}} seq(%[[SQ]], %[[SK]]) : <64x128xf32, c, "mfma_f32_16x16x16_bf16", subgroups 1x4>, memref<1x4x?x?xf32, #gpu.address_space<global>>
func.func @broadcast_softcap(%q: memref<?x?x4x64xbf16>, %k: memref<?x?x2x64xbf16>, %v: memref<?x?x2x64xbf16>,
    %o: memref<?x?x4x64xbf16>, %do: memref<?x?x4x64xbf16>, %lse: memref<?x4x?xf32>,
    %dq: memref<?x?x4x64xbf16>, %dk: memref<?x?x2x64xbf16>, %dv: memref<?x?x2x64xbf16>,
    %bias: memref<1x4x?x?xf32>, %dbias: memref<1x4x?x?xf32>) {
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) bias(%bias) -> %dq, %dk, %dv grad_bias(%dbias)
      : memref<?x?x4x64xbf16>, memref<?x?x2x64xbf16>, memref<?x?x2x64xbf16>, memref<?x?x4x64xbf16>,
        memref<?x?x4x64xbf16>, stats(memref<?x4x?xf32>) bias(memref<1x4x?x?xf32>)
        -> memref<?x?x4x64xbf16>, memref<?x?x2x64xbf16>, memref<?x?x2x64xbf16> grad_bias(memref<1x4x?x?xf32>)
    score_mod softcap(30.0)
  return
}

// -----

// A bf16 bias per batch and head without a score_mod or mask (S^T [kv x q]
// on sm_90): the forward scales the scores in the bias's map (P is then
// exp2(s' log2 e - m)); no zero-fill (each pair is stored once), dS' is
// dS, stored with the keys along the tile's rows.
// BCAST-LABEL: func.func @full(
// BCAST-NOT: fmha_bwd_zero_dbias
// BCAST-LABEL: gpu.func @fmha_bwd_preprocess(
// FULL-LABEL: gpu.func @fmha_fwd_tiled_main(
// FULL-SAME: args = ["q", "k", "v", "o", "lse", "bias"]
// FULL: fmha.tile_map(%{{.*}}) at(%{{.*}}, %{{.*}}) lane %{{.*}} :
// FULL-NEXT: ^bb0(%[[X:.*]]: f32, %{{.*}}: index, %{{.*}}: index):
// FULL: %[[BIAS:.*]] = memref.load %{{.*}} : memref<?x4x?x?xbf16, #gpu.address_space<global>>
// FULL-NEXT: %[[EXT:.*]] = arith.extf %[[BIAS]] : bf16 to f32
// FULL-NEXT: %[[SCALE:.*]] = arith.constant 1.250000e-01 : f32
// FULL-NEXT: %[[SCALED:.*]] = arith.mulf %[[X]], %[[SCALE]] : f32
// FULL-NEXT: %[[SUM:.*]] = arith.addf %[[SCALED]], %[[EXT]] : f32
// FULL-NEXT: fmha.yield %[[SUM]] : f32
// FULL-NOT: gpu.func @fmha_bwd_zero_dbias(
// FULL-LABEL: gpu.func @fmha_bwd_tiled_main(
// FULL-SAME: "dk", "dv", "bias", "dbias"]
// FULL: %[[DS:.*]] = fmha.tile_map(%[[PM:.*]], %{{.*}}, %{{.*}}) :
// FULL: fmha.tile_store_scores store %[[DS]], %{{.*}}[%{{.*}}, %{{.*}}] at(%{{.*}}, %{{.*}}) lane %{{.*}} seq(%{{.*}}, %{{.*}}) {keys_along_rows} : <128x64xf32, c, "mma_sync_m16n8k16_bf16", subgroups 8x1>, memref<?x4x?x?xf32, #gpu.address_space<global>>
func.func @full(%q: memref<?x?x4x64xbf16>, %k: memref<?x?x4x64xbf16>, %v: memref<?x?x4x64xbf16>,
    %o: memref<?x?x4x64xbf16>, %do: memref<?x?x4x64xbf16>, %lse: memref<?x4x?xf32>,
    %dq: memref<?x?x4x64xbf16>, %dk: memref<?x?x4x64xbf16>, %dv: memref<?x?x4x64xbf16>,
    %bias: memref<?x4x?x?xbf16>, %dbias: memref<?x4x?x?xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) bias(%bias)
      : memref<?x?x4x64xbf16>, memref<?x?x4x64xbf16>, memref<?x?x4x64xbf16>
        -> memref<?x?x4x64xbf16>, stats(memref<?x4x?xf32>) bias(memref<?x4x?x?xbf16>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) bias(%bias) -> %dq, %dk, %dv grad_bias(%dbias)
      : memref<?x?x4x64xbf16>, memref<?x?x4x64xbf16>, memref<?x?x4x64xbf16>, memref<?x?x4x64xbf16>,
        memref<?x?x4x64xbf16>, stats(memref<?x4x?xf32>) bias(memref<?x4x?x?xbf16>)
        -> memref<?x?x4x64xbf16>, memref<?x?x4x64xbf16>, memref<?x?x4x64xbf16> grad_bias(memref<?x4x?x?xf32>)
  return
}
