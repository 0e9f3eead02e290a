// RUN: rocke-run --split-input-file %s | FileCheck %s
// RUN: rocke-run --split-input-file --lowering='%tiled_host' %s | FileCheck %s
//
// score_mod on packed batches (issue 33): the region's batch argument is
// the sequence and its positions are within the sequence. ALiBi with
// slopes per (sequence, head), so a wrong sequence index reads another
// sequence's slopes. f32, D = 32.

// CHECK-LABEL: case 0: fwd+bwd f32 varlen Sq=[5, 0, 40, 17] Sk=[9, 3, 33, 17] Hq=2 Hkv=1 Dqk=32 Dv=32 mask=#fmha.mask<causal, alignment = bottom_right> stats=lse score_mod
// CHECK-NEXT: {{^}}O {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}lse {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK: case 0: PASS
func.func @alibi_per_sequence(%q: memref<?x2x32xf32>, %k: memref<?x1x32xf32>, %v: memref<?x1x32xf32>, %o: memref<?x2x32xf32>, %do: memref<?x2x32xf32>, %s0: memref<2x?xf32>, %cuq: memref<?xi32>, %cuk: memref<?xi32>, %dq: memref<?x2x32xf32>, %dk: memref<?x1x32xf32>, %dv: memref<?x1x32xf32>, %slopes: memref<4x2xf32>) attributes {rocke.seqlens_q = array<i64: 5, 0, 40, 17>, rocke.seqlens_k = array<i64: 9, 3, 33, 17>} {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%s0) varlen(%cuq, %cuk) {mask = #fmha.mask<causal, alignment = bottom_right>, max_seqlen_q = 40, max_seqlen_k = 33}
    : memref<?x2x32xf32>, memref<?x1x32xf32>, memref<?x1x32xf32> -> memref<?x2x32xf32>, stats(memref<2x?xf32>) varlen(memref<?xi32>, memref<?xi32>)
    score_mod alibi(%slopes : memref<4x2xf32>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%s0) varlen(%cuq, %cuk) -> %dq, %dk, %dv {mask = #fmha.mask<causal, alignment = bottom_right>, max_seqlen_q = 40, max_seqlen_k = 33}
    : memref<?x2x32xf32>, memref<?x1x32xf32>, memref<?x1x32xf32>, memref<?x2x32xf32>, memref<?x2x32xf32>, stats(memref<2x?xf32>) varlen(memref<?xi32>, memref<?xi32>)
      -> memref<?x2x32xf32>, memref<?x1x32xf32>, memref<?x1x32xf32>
    score_mod alibi(%slopes : memref<4x2xf32>)
  return
}

