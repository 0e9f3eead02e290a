// RUN: rocke-run --split-input-file %s | FileCheck %s
// RUN: rocke-run --split-input-file --lowering='%tiled_host' %s | FileCheck %s
//
// Attention sinks on a packed batch (issue 33): the sinks join every
// sequence's rows, and dSink sums over all of them (the tiled lowering's
// reduction reads the [Hq, T_q] row records). An empty query sequence, one
// with more queries than keys (bottom-right: rows that see only the sink),
// GQA. f32, D = 32.

// CHECK-LABEL: case 0: fwd+bwd f32 varlen Sq=[5, 0, 40, 17] Sk=[9, 3, 33, 17] Hq=4 Hkv=2 Dqk=32 Dv=32 mask=#fmha.mask<causal, alignment = bottom_right> stats=lse sinks
// CHECK-NEXT: {{^}}O {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}lse {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dSinks {{ *}}max_abs={{.*}} PASS
// CHECK: case 0: PASS
func.func @varlen_sinks(%q: memref<?x4x32xf32>, %k: memref<?x2x32xf32>, %v: memref<?x2x32xf32>, %o: memref<?x4x32xf32>, %do: memref<?x4x32xf32>, %s0: memref<4x?xf32>, %cuq: memref<?xi32>, %cuk: memref<?xi32>, %dq: memref<?x4x32xf32>, %dk: memref<?x2x32xf32>, %dv: memref<?x2x32xf32>, %sinks: memref<4xf32>, %dsinks: memref<4xf32>) attributes {rocke.seqlens_q = array<i64: 5, 0, 40, 17>, rocke.seqlens_k = array<i64: 9, 3, 33, 17>} {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%s0) varlen(%cuq, %cuk) sinks(%sinks) {mask = #fmha.mask<causal, alignment = bottom_right>, max_seqlen_q = 40, max_seqlen_k = 33}
    : memref<?x4x32xf32>, memref<?x2x32xf32>, memref<?x2x32xf32> -> memref<?x4x32xf32>, stats(memref<4x?xf32>) varlen(memref<?xi32>, memref<?xi32>) sinks(memref<4xf32>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%s0) varlen(%cuq, %cuk) sinks(%sinks) -> %dq, %dk, %dv grad_sinks(%dsinks) {mask = #fmha.mask<causal, alignment = bottom_right>, max_seqlen_q = 40, max_seqlen_k = 33}
    : memref<?x4x32xf32>, memref<?x2x32xf32>, memref<?x2x32xf32>, memref<?x4x32xf32>, memref<?x4x32xf32>, stats(memref<4x?xf32>) varlen(memref<?xi32>, memref<?xi32>) sinks(memref<4xf32>)
      -> memref<?x4x32xf32>, memref<?x2x32xf32>, memref<?x2x32xf32> grad_sinks(memref<4xf32>)
  return
}
