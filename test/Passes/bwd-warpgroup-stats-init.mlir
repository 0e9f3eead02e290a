// With warpgroup products (sm_90a) the backward starts S^T from -N / c (N
// the block's normalizers log2(e) * lse, c = scale * log2(e)) and dP^T from
// -delta instead of zeros, so the per-query statistics live in the
// accumulators rather than in registers beside them (ptxas: bf16 D = 128
// none 44 -> 0 bytes spilled, D = 64 causal 164 -> 0): P = exp2(c * acc), dS
// = P * acc. A score_mod or a bias sits between S and P, so S^T starts from
// zero there; dropout scales dP before delta, so dP^T does; mma.sync
// (sm_90) keeps both from zero.
// RUN: rocke-opt %s -split-input-file -fmha-bwd-to-kernels='chip=sm_90a' | FileCheck %s --check-prefix=WG
// RUN: rocke-opt %s -split-input-file -fmha-bwd-to-kernels='chip=sm_90' | FileCheck %s --check-prefix=SYNC

// WG-LABEL: gpu.func @fmha_bwd_tiled_main
// WG: %[[N:.*]] = fmha.tile_broadcast
// WG: %[[S0:.*]] = fmha.tile_map(%[[N]])
// WG-NEXT: ^bb0(%[[X:.*]]: f32):
// WG-NEXT: %[[F:.*]] = arith.constant -7.84206
// WG-NEXT: arith.mulf %[[X]], %[[F]] : f32
// WG: %[[S:.*]] = fmha.tile_mma_warpgroup {{.*}} acc %[[S0]]
// WG: %[[D:.*]] = fmha.tile_broadcast
// WG: %[[DP0:.*]] = fmha.tile_map(%[[D]])
// WG-NEXT: ^bb0(%[[Y:.*]]: f32):
// WG-NEXT: %[[M1:.*]] = arith.constant -1.0
// WG-NEXT: arith.mulf %[[Y]], %[[M1]] : f32
// WG: %[[DP:.*]] = fmha.tile_mma_warpgroup {{.*}} acc %[[DP0]]
// WG: fmha.tile_map(%[[S]])
// WG-NEXT: ^bb0(%[[Z:.*]]: f32):
// WG-NEXT: %[[C:.*]] = arith.constant 0.12751
// WG-NEXT: %[[ZC:.*]] = arith.mulf %[[Z]], %[[C]] : f32
// WG-NEXT: math.exp2 %[[ZC]] : f32
// WG: %[[P:.*]] = fmha.tile_mask
// WG: fmha.tile_map(%[[P]], %[[DP]])
// WG-NEXT: ^bb0(%[[PA:.*]]: f32, %[[PB:.*]]: f32):
// WG-NEXT: arith.mulf %[[PA]], %[[PB]] : f32
// WG-NEXT: fmha.yield
// SYNC-LABEL: gpu.func @fmha_bwd_tiled_main
// SYNC: ^bb0(%[[SS:.*]]: f32, %[[NN:.*]]: f32):
// SYNC-NEXT: %[[C:.*]] = arith.constant 0.12751
// SYNC-NEXT: %[[SC:.*]] = arith.mulf %[[SS]], %[[C]] : f32
// SYNC-NEXT: %[[SN:.*]] = arith.subf %[[SC]], %[[NN]] : f32
// SYNC-NEXT: math.exp2 %[[SN]] : f32
func.func @plain(%q: memref<?x?x16x128xbf16>, %k: memref<?x?x16x128xbf16>, %v: memref<?x?x16x128xbf16>,
    %o: memref<?x?x16x128xbf16>, %do: memref<?x?x16x128xbf16>, %lse: memref<?x16x?xf32>,
    %dq: memref<?x?x16x128xbf16>, %dk: memref<?x?x16x128xbf16>, %dv: memref<?x?x16x128xbf16>) {
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv {mask = #fmha.mask<causal>}
      : memref<?x?x16x128xbf16>, memref<?x?x16x128xbf16>, memref<?x?x16x128xbf16>, memref<?x?x16x128xbf16>,
        memref<?x?x16x128xbf16>, stats(memref<?x16x?xf32>)
        -> memref<?x?x16x128xbf16>, memref<?x?x16x128xbf16>, memref<?x?x16x128xbf16>
  return
}

// -----

// A score_mod: S^T from zero (the mod takes the raw scores), dP^T from
// -delta.
// WG-LABEL: gpu.func @fmha_bwd_tiled_main
// WG: %[[Z0:.*]] = fmha.tile_zero : <128x64xf32
// WG-NEXT: fmha.tile_mma_warpgroup {{.*}} acc %[[Z0]]
// WG-NEXT: %[[D:.*]] = fmha.tile_broadcast
// WG-NEXT: %[[DP0:.*]] = fmha.tile_map(%[[D]])
// WG: fmha.tile_mma_warpgroup {{.*}} acc %[[DP0]]
func.func @softcap(%q: memref<?x?x16x128xbf16>, %k: memref<?x?x16x128xbf16>, %v: memref<?x?x16x128xbf16>,
    %o: memref<?x?x16x128xbf16>, %do: memref<?x?x16x128xbf16>, %lse: memref<?x16x?xf32>,
    %dq: memref<?x?x16x128xbf16>, %dk: memref<?x?x16x128xbf16>, %dv: memref<?x?x16x128xbf16>) {
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv {mask = #fmha.mask<causal>}
      : memref<?x?x16x128xbf16>, memref<?x?x16x128xbf16>, memref<?x?x16x128xbf16>, memref<?x?x16x128xbf16>,
        memref<?x?x16x128xbf16>, stats(memref<?x16x?xf32>)
        -> memref<?x?x16x128xbf16>, memref<?x?x16x128xbf16>, memref<?x?x16x128xbf16>
      score_mod softcap(30.0)
  return
}

// -----

// Dropout: S^T from -N / c, dP^T from zero (dP is scaled by the kept
// factors before delta comes off).
// WG-LABEL: gpu.func @fmha_bwd_tiled_main
// WG: %[[N:.*]] = fmha.tile_broadcast
// WG-NEXT: %[[S0:.*]] = fmha.tile_map(%[[N]])
// WG: fmha.tile_mma_warpgroup {{.*}} acc %[[S0]]
// WG-NEXT: %[[Z0:.*]] = fmha.tile_zero : <128x64xf32
// WG-NEXT: fmha.tile_mma_warpgroup {{.*}} acc %[[Z0]]
func.func @dropout(%q: memref<?x?x16x128xbf16>, %k: memref<?x?x16x128xbf16>, %v: memref<?x?x16x128xbf16>,
    %o: memref<?x?x16x128xbf16>, %do: memref<?x?x16x128xbf16>, %lse: memref<?x16x?xf32>,
    %dq: memref<?x?x16x128xbf16>, %dk: memref<?x?x16x128xbf16>, %dv: memref<?x?x16x128xbf16>, %seed: memref<2xi64>) {
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) dropout(%seed, p = 0.1) -> %dq, %dk, %dv {mask = #fmha.mask<causal>}
      : memref<?x?x16x128xbf16>, memref<?x?x16x128xbf16>, memref<?x?x16x128xbf16>, memref<?x?x16x128xbf16>,
        memref<?x?x16x128xbf16>, stats(memref<?x16x?xf32>) dropout(memref<2xi64>)
        -> memref<?x?x16x128xbf16>, memref<?x?x16x128xbf16>, memref<?x?x16x128xbf16>
  return
}
