// fmha-bwd-to-kernels with a score_mod (issue 33): the region inlined into
// one tile_map per score tile, before the mask; the backward's also yields
// the derived slope d(s')/d(s), which multiplies dS.
// RUN: rocke-opt %s -split-input-file -fmha-bwd-to-kernels='chip=gfx942' | FileCheck %s --check-prefix=SOFTCAP
// RUN: rocke-opt %s -split-input-file -fmha-bwd-to-kernels='chip=sm_90 forward=true' | FileCheck %s --check-prefix=ALIBI

// Softcap, gfx942 (S [q x kv]): s' = 30 tanh(0.125 s / 30) as exp2
// arithmetic and the slope (1 - t^2) (1 / 30) 30 in one tile_map; P =
// exp2(s' log2 e - normalizer) (not s scale log2 e); in the query blocks
// the mask cuts, the slope is masked like P; dS = P (dP - delta) slope.
// SOFTCAP-LABEL: gpu.func @fmha_bwd_tiled_main(
// SOFTCAP-SAME: args = ["q", "k", "v", "do", "row_stats:f32:none:[B,Hq,Sq,2]", "dq_accum:f32:zero:[B,ceildiv(Sq,BQ)*BQ,Hq,Dqk]", "dk", "dv"]
// SOFTCAP: %[[S:.*]] = fmha.tile_mma
// SOFTCAP: fmha.tile_mma
// SOFTCAP: %[[MOD:.*]]:2 = fmha.tile_map(%[[S]]) : !fmha.tile<64x128xf32, c, "mfma_f32_16x16x16_bf16", subgroups 1x4> -> !fmha.tile<64x128xf32, c, "mfma_f32_16x16x16_bf16", subgroups 1x4>, !fmha.tile<64x128xf32, c, "mfma_f32_16x16x16_bf16", subgroups 1x4> {
// SOFTCAP-NEXT: ^bb0(%[[X:.*]]: f32):
// SOFTCAP-NEXT: %[[SCALE:.*]] = arith.constant 1.250000e-01 : f32
// SOFTCAP-NEXT: %[[SCALED:.*]] = arith.mulf %[[X]], %[[SCALE]] : f32
// SOFTCAP-NEXT: %[[DIV:.*]] = arith.mulf %[[SCALED]], %{{.*}} : f32
// SOFTCAP: math.exp2
// SOFTCAP: %[[QUOT:.*]] = arith.divf
// SOFTCAP-NEXT: %[[T:.*]] = arith.subf %{{.*}}, %[[QUOT]] : f32
// SOFTCAP: %[[T2:.*]] = arith.mulf %[[T]], %[[T]] : f32
// SOFTCAP: %[[D:.*]] = arith.subf %{{.*}}, %[[T2]] : f32
// SOFTCAP: %[[CAPPED:.*]] = arith.mulf %[[T]], %[[CAP:.*]] : f32
// SOFTCAP-NEXT: %[[SLOPE:.*]] = arith.mulf %{{.*}}, %[[CAP]] : f32
// SOFTCAP-NEXT: fmha.yield %[[CAPPED]], %[[SLOPE]] : f32, f32
// SOFTCAP: %[[P:.*]] = fmha.tile_map(%[[MOD]]#0, %{{.*}})
// SOFTCAP: arith.constant 1.44269502 : f32
// SOFTCAP: %[[PM:.*]] = fmha.tile_mask %[[P]] at
// SOFTCAP: %[[SLOPEM:.*]] = fmha.tile_mask %[[MOD]]#1 at
// SOFTCAP: fmha.tile_map(%[[PM]], %{{.*}}, %{{.*}}, %[[SLOPEM]])
// SOFTCAP-NEXT: ^bb0(%[[PE:.*]]: f32, %[[DPE:.*]]: f32, %[[DELTA:.*]]: f32, %[[SL:.*]]: f32):
// SOFTCAP-NEXT: %[[DIFF:.*]] = arith.subf %[[DPE]], %[[DELTA]] : f32
// SOFTCAP-NEXT: %[[DS:.*]] = arith.mulf %[[PE]], %[[DIFF]] : f32
// SOFTCAP-NEXT: %[[DSS:.*]] = arith.mulf %[[DS]], %[[SL]] : f32
// SOFTCAP-NEXT: fmha.yield %[[DSS]] : f32
// The whole blocks' loop: the slope unmasked.
// SOFTCAP: %[[MOD2:.*]]:2 = fmha.tile_map
// SOFTCAP-NOT: fmha.tile_mask
// SOFTCAP: fmha.tile_map(%{{.*}}, %{{.*}}, %{{.*}}, %[[MOD2]]#1)
func.func @softcap(%q: memref<?x?x16x64xbf16>, %k: memref<?x?x4x64xbf16>, %v: memref<?x?x4x64xbf16>,
    %o: memref<?x?x16x64xbf16>, %do: memref<?x?x16x64xbf16>, %lse: memref<?x16x?xf32>,
    %dq: memref<?x?x16x64xbf16>, %dk: memref<?x?x4x64xbf16>, %dv: memref<?x?x4x64xbf16>) {
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv {mask = #fmha.mask<causal>}
      : memref<?x?x16x64xbf16>, memref<?x?x4x64xbf16>, memref<?x?x4x64xbf16>, memref<?x?x16x64xbf16>,
        memref<?x?x16x64xbf16>, stats(memref<?x16x?xf32>)
        -> memref<?x?x16x64xbf16>, memref<?x?x4x64xbf16>, memref<?x?x4x64xbf16>
      score_mod softcap(30.0)
  return
}

// -----

// ALiBi forward -> backward, sm_90: the slopes are each kernel's argument
// "capture0", read once per block before the map (the region's
// element-independent part), the map takes its elements' positions
// (forward S [q x kv]: rows are queries; backward S^T: rows are keys). The
// slope of s - slope |q - k| is 1: the backward's map yields s' alone and
// dS is not multiplied.
// ALIBI: gpu.launch_func @fmha_kernels::@fmha_fwd_tiled_main {{.*}}, %arg9 : memref<16xf32>)
// ALIBI: gpu.launch_func @fmha_kernels::@fmha_bwd_tiled_main {{.*}}, %arg9 : memref<16xf32>)
// ALIBI-LABEL: gpu.func @fmha_fwd_tiled_main(
// ALIBI-SAME: args = ["q", "k", "v", "o", "lse", "capture0"]
// ALIBI: %[[SLOPES:.*]] = memref.memory_space_cast %arg5
// The causal forward runs heaviest first: its (query block, head, batch)
// decoded from the one-dimensional id (KernelBuilder's heavyFirstIds).
// ALIBI: %[[PAIR:.*]] = arith.addi
// ALIBI-NEXT: %[[HEAD:.*]] = arith.remui %[[PAIR]], %c16 : index
// ALIBI: %[[QBLOCK:.*]] = arith.subi
// ALIBI: %[[Q0:.*]] = arith.muli %[[QBLOCK]],
// ALIBI: scf.for
// ALIBI: %[[K0:.*]] = arith.muli
// ALIBI: %[[S:.*]] = fmha.tile_mma
// ALIBI-NEXT: %[[SLOPE:.*]] = memref.load %[[SLOPES]][%[[HEAD]]] : memref<16xf32, #gpu.address_space<global>>
// ALIBI-NEXT: %[[MOD:.*]] = fmha.tile_map(%[[S]]) at(%[[Q0]], %[[K0]]) lane %thread_id_x : !fmha.tile<128x64xf32, c, "mma_sync_m16n8k16_bf16", subgroups 4x1> -> !fmha.tile<128x64xf32, c, "mma_sync_m16n8k16_bf16", subgroups 4x1> {
// ALIBI-NEXT: ^bb0(%[[X:.*]]: f32, %[[QI:.*]]: index, %[[KI:.*]]: index):
// ALIBI-NEXT: %[[SCALE:.*]] = arith.constant 0.0883883461 : f32
// ALIBI-NEXT: %[[SCALED:.*]] = arith.mulf %[[X]], %[[SCALE]] : f32
// ALIBI-NEXT: %[[D:.*]] = arith.subi %[[QI]], %[[KI]] : index
// ALIBI-NEXT: %[[D32:.*]] = arith.index_cast %[[D]] : index to i32
// ALIBI-NEXT: %[[DF:.*]] = arith.sitofp %[[D32]] : i32 to f32
// ALIBI-NEXT: %[[DIST:.*]] = math.absf %[[DF]] : f32
// ALIBI-NEXT: %[[BIAS:.*]] = arith.mulf %[[SLOPE]], %[[DIST]] : f32
// ALIBI-NEXT: %[[R:.*]] = arith.subf %[[SCALED]], %[[BIAS]] : f32
// ALIBI-NEXT: fmha.yield %[[R]] : f32
// ALIBI: fmha.tile_mask %[[MOD]] at(%[[Q0]], %[[K0]]) lane %thread_id_x seq({{.*}}) {cut_only, fill = 0xFF800000 : f32, mask = #fmha.mask<causal>}
// ALIBI-LABEL: gpu.func @fmha_bwd_tiled_main(
// ALIBI-SAME: args = ["q", "k", "v", "do", "row_stats:f32:none:[B,Hq,Sq,2]", "dq_accum:f32:zero:[B,ceildiv(Sq,BQ)*BQ,Hq,Dqk]", "dk", "dv", "capture0"]
// ALIBI: %[[S:.*]] = fmha.tile_mma
// ALIBI: fmha.tile_mma
// ALIBI-NEXT: memref.load
// ALIBI-NEXT: %[[MOD:.*]] = fmha.tile_map(%[[S]]) at(%[[KV0:.*]], %[[Q0:.*]]) lane %thread_id_x : !fmha.tile<128x32xf32, c, "mma_sync_m16n8k16_bf16", subgroups 8x1> -> !fmha.tile<128x32xf32, c, "mma_sync_m16n8k16_bf16", subgroups 8x1> {
// ALIBI-NEXT: ^bb0(%{{.*}}: f32, %[[KI:.*]]: index, %[[QI:.*]]: index):
// ALIBI: arith.subi %[[QI]], %[[KI]] : index
// ALIBI: fmha.yield %{{.*}} : f32
// ALIBI: fmha.tile_map(%[[MOD]], %{{.*}})
// ALIBI: arith.constant 1.44269502 : f32
// ALIBI: fmha.tile_mask %{{.*}} at(%[[Q0]], %[[KV0]]) lane %thread_id_x seq({{.*}}) {cut_only, keys_along_rows, mask = #fmha.mask<causal>}
// ALIBI: fmha.tile_map(%{{.*}}, %{{.*}}, %{{.*}}) :
// ALIBI-NEXT: ^bb0(%{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32):
func.func @alibi(%q: memref<?x?x16x128xbf16>, %k: memref<?x?x4x128xbf16>, %v: memref<?x?x4x128xbf16>,
    %o: memref<?x?x16x128xbf16>, %do: memref<?x?x16x128xbf16>, %lse: memref<?x16x?xf32>,
    %dq: memref<?x?x16x128xbf16>, %dk: memref<?x?x4x128xbf16>, %dv: memref<?x?x4x128xbf16>, %slopes: memref<16xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) {mask = #fmha.mask<causal>}
      : memref<?x?x16x128xbf16>, memref<?x?x4x128xbf16>, memref<?x?x4x128xbf16> -> memref<?x?x16x128xbf16>, stats(memref<?x16x?xf32>)
      score_mod alibi(%slopes : memref<16xf32>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv {mask = #fmha.mask<causal>}
      : memref<?x?x16x128xbf16>, memref<?x?x4x128xbf16>, memref<?x?x4x128xbf16>, memref<?x?x16x128xbf16>,
        memref<?x?x16x128xbf16>, stats(memref<?x16x?xf32>)
        -> memref<?x?x16x128xbf16>, memref<?x?x4x128xbf16>, memref<?x?x4x128xbf16>
      score_mod alibi(%slopes : memref<16xf32>)
  return
}
