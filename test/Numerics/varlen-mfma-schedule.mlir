// RUN: rocke-run --lowering='%tiled_mfma_host' %s | FileCheck %s
//
// varlen.mlir's first case under the schedule MFMA targets run (scores as
// S, transposed copies; see test/lit.cfg.py), kept to one case for time.

// Bottom-right causal with GQA (Hq = 2, Hkv = 1): an empty query sequence, one of
// length 1 with no keys, one with Sq = 40 > Sk = 33 whose first 7 rows see no
// key, and Sq = Sk = 17.
// CHECK-LABEL: case 0: fwd+bwd f32 varlen Sq=[3, 0, 1, 40, 17] Sk=[5, 4, 0, 33, 17] Hq=2 Hkv=1 Dqk=32 Dv=32 mask=#fmha.mask<causal, alignment = bottom_right> stats=lse
// CHECK-NEXT: {{^}}O {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}lse {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: masked  8 empty query rows, 4 unseen keys: 0 inexact elements PASS
// CHECK-NEXT: case 0: PASS
func.func @br_causal_gqa(%q: memref<?x2x32xf32>, %k: memref<?x1x32xf32>, %v: memref<?x1x32xf32>, %o: memref<?x2x32xf32>, %do: memref<?x2x32xf32>, %s0: memref<2x?xf32>, %cuq: memref<?xi32>, %cuk: memref<?xi32>, %dq: memref<?x2x32xf32>, %dk: memref<?x1x32xf32>, %dv: memref<?x1x32xf32>) attributes {rocke.seqlens_q = array<i64: 3, 0, 1, 40, 17>, rocke.seqlens_k = array<i64: 5, 4, 0, 33, 17>} {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%s0) varlen(%cuq, %cuk) {mask = #fmha.mask<causal, alignment = bottom_right>, max_seqlen_q = 40, max_seqlen_k = 33}
    : memref<?x2x32xf32>, memref<?x1x32xf32>, memref<?x1x32xf32> -> memref<?x2x32xf32>, stats(memref<2x?xf32>) varlen(memref<?xi32>, memref<?xi32>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%s0) varlen(%cuq, %cuk) -> %dq, %dk, %dv {mask = #fmha.mask<causal, alignment = bottom_right>, max_seqlen_q = 40, max_seqlen_k = 33}
    : memref<?x2x32xf32>, memref<?x1x32xf32>, memref<?x1x32xf32>, memref<?x2x32xf32>, memref<?x2x32xf32>, stats(memref<2x?xf32>) varlen(memref<?xi32>, memref<?xi32>)
      -> memref<?x2x32xf32>, memref<?x1x32xf32>, memref<?x1x32xf32>
  return
}
