// RUN: rocke-run --split-input-file --fd-check --fd-samples=12 %s | FileCheck %s
//
// Dropout on P (issue 33): O = (P Z / (1 - p)) V with the statistics of the
// undropped softmax; the backward regenerates Z: dV = (P Z / (1 - p))^T dO,
// dP = (dO V^T) Z / (1 - p), dS = P (dP - D). The reference lowering
// (fmha-lower-to-loops) against the float64 reference, whose Z comes from
// its own C++ Philox4x32-10 (test/lib/ReferenceAttention); --fd-check
// differentiates its forward with the mask fixed, and rocke-run checks
// that the mask drops about p of all scores. The tiled kernels:
// dropout-tiled.mlir. D = 32.

// GQA, causal, f32, p = 0.25 (h is the query head: its two query heads per
// kv head draw different masks).
// CHECK-LABEL: case 0: fwd+bwd f32 B=2 Sq=24 Sk=24 Hq=4 Hkv=2 Dqk=32 Dv=32 mask=#fmha.mask<causal> stats=lse dropout(p=0.25)
// CHECK-NEXT: {{^}}O {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}lse {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK: {{^}}dropout dropped {{[0-9]+}} of 4608 ({{.*}}, p = 0.25) PASS
// CHECK: {{^}}dQ(fd) {{ *}}max_abs={{.*}} PASS
// CHECK: {{^}}dK(fd) {{ *}}max_abs={{.*}} PASS
// CHECK: {{^}}dV(fd) {{ *}}max_abs={{.*}} PASS
// CHECK: case 0: PASS
func.func @gqa_causal(%q: memref<2x24x4x32xf32>, %k: memref<2x24x2x32xf32>, %v: memref<2x24x2x32xf32>, %o: memref<2x24x4x32xf32>, %do: memref<2x24x4x32xf32>, %lse: memref<2x4x24xf32>, %dq: memref<2x24x4x32xf32>, %dk: memref<2x24x2x32xf32>, %dv: memref<2x24x2x32xf32>, %so: memref<2xi64>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) dropout(%so, p = 0.25) {mask = #fmha.mask<causal>}
    : memref<2x24x4x32xf32>, memref<2x24x2x32xf32>, memref<2x24x2x32xf32> -> memref<2x24x4x32xf32>, stats(memref<2x4x24xf32>) dropout(memref<2xi64>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) dropout(%so, p = 0.25) -> %dq, %dk, %dv {mask = #fmha.mask<causal>}
    : memref<2x24x4x32xf32>, memref<2x24x2x32xf32>, memref<2x24x2x32xf32>, memref<2x24x4x32xf32>, memref<2x24x4x32xf32>, stats(memref<2x4x24xf32>) dropout(memref<2xi64>)
      -> memref<2x24x4x32xf32>, memref<2x24x2x32xf32>, memref<2x24x2x32xf32>
  return
}

// -----

// Log2-domain statistics, bf16, Sq != Sk, p = 0.5, with sinks and a
// softcap: dSink = -sum P_sink D holds with D = rowsum(dO O) of the dropped
// O.
// CHECK-LABEL: case 1: fwd+bwd bf16 B=1 Sq=20 Sk=33 Hq=2 Hkv=1 Dqk=32 Dv=32 mask=#fmha.mask<none> stats=log2_max_sum score_mod sinks dropout(p=0.5)
// CHECK-NEXT: {{^}}O {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}M {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}L {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dSinks {{ *}}max_abs={{.*}} PASS
// CHECK: {{^}}dropout dropped {{[0-9]+}} of 1320 ({{.*}}, p = 0.5) PASS
// CHECK: {{^}}dSinks(fd) {{ *}}max_abs={{.*}} PASS
// CHECK: case 1: PASS
func.func @log2_sinks_softcap(%q: memref<1x20x2x32xbf16>, %k: memref<1x33x1x32xbf16>, %v: memref<1x33x1x32xbf16>, %o: memref<1x20x2x32xbf16>, %do: memref<1x20x2x32xbf16>, %m: memref<1x2x20xf32>, %l: memref<1x2x20xf32>, %dq: memref<1x20x2x32xbf16>, %dk: memref<1x33x1x32xbf16>, %dv: memref<1x33x1x32xbf16>, %sinks: memref<2xf32>, %dsinks: memref<2xf32>, %so: memref<2xi64>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%m, %l) sinks(%sinks) dropout(%so, p = 0.5) {scale = 1.0 : f32, stats_encoding = #fmha.stats<log2_max_sum>}
    : memref<1x20x2x32xbf16>, memref<1x33x1x32xbf16>, memref<1x33x1x32xbf16> -> memref<1x20x2x32xbf16>, stats(memref<1x2x20xf32>, memref<1x2x20xf32>) sinks(memref<2xf32>) dropout(memref<2xi64>)
    score_mod softcap(4.0)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%m, %l) sinks(%sinks) dropout(%so, p = 0.5) -> %dq, %dk, %dv grad_sinks(%dsinks) {scale = 1.0 : f32, stats_encoding = #fmha.stats<log2_max_sum>}
    : memref<1x20x2x32xbf16>, memref<1x33x1x32xbf16>, memref<1x33x1x32xbf16>, memref<1x20x2x32xbf16>, memref<1x20x2x32xbf16>, stats(memref<1x2x20xf32>, memref<1x2x20xf32>) sinks(memref<2xf32>) dropout(memref<2xi64>)
      -> memref<1x20x2x32xbf16>, memref<1x33x1x32xbf16>, memref<1x33x1x32xbf16> grad_sinks(memref<2xf32>)
    score_mod softcap(4.0)
  return
}

// -----

// A lone backward (O and statistics from the float64 forward with the same
// mask), f16, p = 0.1, with a bias.
// CHECK-LABEL: case 2: bwd f16 B=2 Sq=16 Sk=16 Hq=2 Hkv=2 Dqk=32 Dv=32 mask=#fmha.mask<none> stats=lse bias dropout(p=0.1)
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dBias {{ *}}max_abs={{.*}} PASS
// CHECK: {{^}}dropout dropped {{[0-9]+}} of 1024 ({{.*}}, p = 0.1) PASS
// CHECK: {{^}}dBias(fd) {{ *}}max_abs={{.*}} PASS
// CHECK: case 2: PASS
func.func @bwd_bias(%q: memref<2x16x2x32xf16>, %k: memref<2x16x2x32xf16>, %v: memref<2x16x2x32xf16>, %o: memref<2x16x2x32xf16>, %do: memref<2x16x2x32xf16>, %lse: memref<2x2x16xf32>, %dq: memref<2x16x2x32xf16>, %dk: memref<2x16x2x32xf16>, %dv: memref<2x16x2x32xf16>, %bias: memref<1x2x16x16xf32>, %dbias: memref<1x2x16x16xf32>, %so: memref<2xi64>) {
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) bias(%bias) dropout(%so, p = 0.1) -> %dq, %dk, %dv grad_bias(%dbias)
    : memref<2x16x2x32xf16>, memref<2x16x2x32xf16>, memref<2x16x2x32xf16>, memref<2x16x2x32xf16>, memref<2x16x2x32xf16>, stats(memref<2x2x16xf32>) bias(memref<1x2x16x16xf32>) dropout(memref<2xi64>)
      -> memref<2x16x2x32xf16>, memref<2x16x2x32xf16>, memref<2x16x2x32xf16> grad_bias(memref<1x2x16x16xf32>)
  return
}
