// RUN: rocke-run --split-input-file %s | FileCheck %s
// RUN: rocke-run --split-input-file --lowering='%tiled_host' %s | FileCheck %s
//
// Dropout (issue 33) through the tiled kernels on the host: one tile_map
// per score tile regenerates Z from each element's (query, key) position,
// and the outputs match the float64 reference, whose Z comes from its own
// C++ Philox4x32-10 (with p >= 0.2, one element of Z wrong would be far
// outside the tolerance). Other tilings: dropout-tilings.mlir. D = 32.

// bf16, log2-domain statistics, Sq != Sk (keys past Sk in the last
// block), a softcap's slope and sinks' gradient, p = 0.2.
// CHECK-LABEL: case 0: fwd+bwd bf16 B=1 Sq=20 Sk=45 Hq=2 Hkv=1 Dqk=32 Dv=32 mask=#fmha.mask<none> stats=log2_max_sum score_mod sinks dropout(p=0.2)
// CHECK-NEXT: {{^}}O {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}M {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}L {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dSinks {{ *}}max_abs={{.*}} PASS
// CHECK: {{^}}dropout dropped {{[0-9]+}} of 1800 ({{.*}}, p = 0.2) PASS
// CHECK: case 0: PASS
func.func @log2_sinks_softcap(%q: memref<1x20x2x32xbf16>, %k: memref<1x45x1x32xbf16>, %v: memref<1x45x1x32xbf16>, %o: memref<1x20x2x32xbf16>, %do: memref<1x20x2x32xbf16>, %m: memref<1x2x20xf32>, %l: memref<1x2x20xf32>, %dq: memref<1x20x2x32xbf16>, %dk: memref<1x45x1x32xbf16>, %dv: memref<1x45x1x32xbf16>, %sinks: memref<2xf32>, %dsinks: memref<2xf32>, %so: memref<2xi64>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%m, %l) sinks(%sinks) dropout(%so, p = 0.2) {scale = 1.0 : f32, stats_encoding = #fmha.stats<log2_max_sum>}
    : memref<1x20x2x32xbf16>, memref<1x45x1x32xbf16>, memref<1x45x1x32xbf16> -> memref<1x20x2x32xbf16>, stats(memref<1x2x20xf32>, memref<1x2x20xf32>) sinks(memref<2xf32>) dropout(memref<2xi64>)
    score_mod softcap(4.0)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%m, %l) sinks(%sinks) dropout(%so, p = 0.2) -> %dq, %dk, %dv grad_sinks(%dsinks) {scale = 1.0 : f32, stats_encoding = #fmha.stats<log2_max_sum>}
    : memref<1x20x2x32xbf16>, memref<1x45x1x32xbf16>, memref<1x45x1x32xbf16>, memref<1x20x2x32xbf16>, memref<1x20x2x32xbf16>, stats(memref<1x2x20xf32>, memref<1x2x20xf32>) sinks(memref<2xf32>) dropout(memref<2xi64>)
      -> memref<1x20x2x32xbf16>, memref<1x45x1x32xbf16>, memref<1x45x1x32xbf16> grad_sinks(memref<2xf32>)
    score_mod softcap(4.0)
  return
}

// -----

// A packed batch: b is the sequence, q and k positions within it (an empty
// query sequence, bottom-right causal), GQA, p = 0.3.
// CHECK-LABEL: case 1: fwd+bwd f32 varlen Sq=[5, 0, 40, 17] Sk=[9, 3, 33, 17] Hq=4 Hkv=2 Dqk=32 Dv=32 mask=#fmha.mask<causal, alignment = bottom_right> stats=lse dropout(p=0.3)
// CHECK-NEXT: {{^}}O {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}lse {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK: {{^}}dropout dropped {{[0-9]+}} of {{[0-9]+}} ({{.*}}, p = 0.3) PASS
// CHECK: case 1: PASS
func.func @varlen(%q: memref<?x4x32xf32>, %k: memref<?x2x32xf32>, %v: memref<?x2x32xf32>, %o: memref<?x4x32xf32>, %do: memref<?x4x32xf32>, %s0: memref<4x?xf32>, %cuq: memref<?xi32>, %cuk: memref<?xi32>, %dq: memref<?x4x32xf32>, %dk: memref<?x2x32xf32>, %dv: memref<?x2x32xf32>, %so: memref<2xi64>) attributes {rocke.seqlens_q = array<i64: 5, 0, 40, 17>, rocke.seqlens_k = array<i64: 9, 3, 33, 17>} {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%s0) varlen(%cuq, %cuk) dropout(%so, p = 0.3) {mask = #fmha.mask<causal, alignment = bottom_right>, max_seqlen_q = 40, max_seqlen_k = 33}
    : memref<?x4x32xf32>, memref<?x2x32xf32>, memref<?x2x32xf32> -> memref<?x4x32xf32>, stats(memref<4x?xf32>) varlen(memref<?xi32>, memref<?xi32>) dropout(memref<2xi64>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%s0) varlen(%cuq, %cuk) dropout(%so, p = 0.3) -> %dq, %dk, %dv {mask = #fmha.mask<causal, alignment = bottom_right>, max_seqlen_q = 40, max_seqlen_k = 33}
    : memref<?x4x32xf32>, memref<?x2x32xf32>, memref<?x2x32xf32>, memref<?x4x32xf32>, memref<?x4x32xf32>, stats(memref<4x?xf32>) varlen(memref<?xi32>, memref<?xi32>) dropout(memref<2xi64>)
      -> memref<?x4x32xf32>, memref<?x2x32xf32>, memref<?x2x32xf32>
  return
}
