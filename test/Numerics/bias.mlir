// RUN: rocke-run --split-input-file --fd-check --fd-samples=12 %s | FileCheck %s --check-prefixes=CHECK,FD
// RUN: rocke-run --split-input-file --lowering='%tiled_host' %s | FileCheck %s
// RUN: rocke-run --split-input-file --lowering='%tiled_mfma_host' %s | FileCheck %s
//
// Additive bias (issue 33): s' = f(scale q.k) + bias[b, h, q, k] before the
// mask, [B or 1, Hq or 1, Sq, Sk], and dBias = dS' (the gradient with
// respect to the biased score, before the score_mod's slope) summed over
// the dims the bias broadcasts. The reference lowering (fmha-lower-to-loops)
// against the float64 reference, whose --fd-check also differentiates
// sampled bias elements, and the tiled kernels on the host (both score
// layouts: S^T and S): the bias loaded in the score tile's layout, dBias
// stored (no broadcast) or added atomically (broadcast). D = 32.

// A bias per batch and head, GQA, bottom-right causal with Sq < Sk;
// deterministic (no broadcast: each dBias element stored once).
// CHECK-LABEL: case 0: fwd+bwd f32 B=2 Sq=17 Sk=24 Hq=4 Hkv=2 Dqk=32 Dv=32 mask=#fmha.mask<causal, alignment = bottom_right> stats=lse bias
// CHECK-NEXT: {{^}}O {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}lse {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dBias {{ *}}max_abs={{.*}} PASS
// FD: {{^}}dBias(fd) {{ *}}max_abs={{.*}} PASS
// CHECK: case 0: PASS
func.func @full_bias(%q: memref<2x17x4x32xf32>, %k: memref<2x24x2x32xf32>, %v: memref<2x24x2x32xf32>, %o: memref<2x17x4x32xf32>, %do: memref<2x17x4x32xf32>, %lse: memref<2x4x17xf32>, %dq: memref<2x17x4x32xf32>, %dk: memref<2x24x2x32xf32>, %dv: memref<2x24x2x32xf32>, %bias: memref<2x4x17x24xf32>, %dbias: memref<2x4x17x24xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) bias(%bias) {mask = #fmha.mask<causal, alignment = bottom_right>}
    : memref<2x17x4x32xf32>, memref<2x24x2x32xf32>, memref<2x24x2x32xf32> -> memref<2x17x4x32xf32>, stats(memref<2x4x17xf32>) bias(memref<2x4x17x24xf32>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) bias(%bias) -> %dq, %dk, %dv grad_bias(%dbias) {mask = #fmha.mask<causal, alignment = bottom_right>, deterministic}
    : memref<2x17x4x32xf32>, memref<2x24x2x32xf32>, memref<2x24x2x32xf32>, memref<2x17x4x32xf32>, memref<2x17x4x32xf32>, stats(memref<2x4x17xf32>) bias(memref<2x4x17x24xf32>)
      -> memref<2x17x4x32xf32>, memref<2x24x2x32xf32>, memref<2x24x2x32xf32> grad_bias(memref<2x4x17x24xf32>)
  return
}

// -----

// A bf16 bias broadcast over batch and heads after a softcap (the cap
// bends the scores, not the bias), log2-domain statistics: dBias sums
// over B = 2 and Hq = 2.
// CHECK-LABEL: case 1: fwd+bwd bf16 B=2 Sq=20 Sk=20 Hq=2 Hkv=1 Dqk=32 Dv=32 mask=#fmha.mask<none> stats=log2_max_sum score_mod bias
// CHECK-NEXT: {{^}}O {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}M {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}L {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dBias {{ *}}max_abs={{.*}} PASS
// FD: {{^}}dBias(fd) {{ *}}max_abs={{.*}} PASS
// CHECK: case 1: PASS
func.func @broadcast_softcap(%q: memref<2x20x2x32xbf16>, %k: memref<2x20x1x32xbf16>, %v: memref<2x20x1x32xbf16>, %o: memref<2x20x2x32xbf16>, %do: memref<2x20x2x32xbf16>, %m: memref<2x2x20xf32>, %l: memref<2x2x20xf32>, %dq: memref<2x20x2x32xbf16>, %dk: memref<2x20x1x32xbf16>, %dv: memref<2x20x1x32xbf16>, %bias: memref<1x1x20x20xbf16>, %dbias: memref<1x1x20x20xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%m, %l) bias(%bias) {scale = 1.0 : f32, stats_encoding = #fmha.stats<log2_max_sum>}
    : memref<2x20x2x32xbf16>, memref<2x20x1x32xbf16>, memref<2x20x1x32xbf16> -> memref<2x20x2x32xbf16>, stats(memref<2x2x20xf32>, memref<2x2x20xf32>) bias(memref<1x1x20x20xbf16>)
    score_mod softcap(4.0)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%m, %l) bias(%bias) -> %dq, %dk, %dv grad_bias(%dbias) {scale = 1.0 : f32, stats_encoding = #fmha.stats<log2_max_sum>}
    : memref<2x20x2x32xbf16>, memref<2x20x1x32xbf16>, memref<2x20x1x32xbf16>, memref<2x20x2x32xbf16>, memref<2x20x2x32xbf16>, stats(memref<2x2x20xf32>, memref<2x2x20xf32>) bias(memref<1x1x20x20xbf16>)
      -> memref<2x20x2x32xbf16>, memref<2x20x1x32xbf16>, memref<2x20x1x32xbf16> grad_bias(memref<1x1x20x20xf32>)
    score_mod softcap(4.0)
  return
}

// -----

// A lone backward with a bias per batch (broadcast over heads) and sinks:
// both gradients.
// CHECK-LABEL: case 2: bwd f16 B=2 Sq=12 Sk=16 Hq=2 Hkv=2 Dqk=32 Dv=32 mask=#fmha.mask<causal> stats=lse sinks bias
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dSinks {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dBias {{ *}}max_abs={{.*}} PASS
// FD: {{^}}dBias(fd) {{ *}}max_abs={{.*}} PASS
// FD: {{^}}dSinks(fd) {{ *}}max_abs={{.*}} PASS
// CHECK: case 2: PASS
func.func @bias_and_sinks(%q: memref<2x12x2x32xf16>, %k: memref<2x16x2x32xf16>, %v: memref<2x16x2x32xf16>, %o: memref<2x12x2x32xf16>, %do: memref<2x12x2x32xf16>, %lse: memref<2x2x12xf32>, %dq: memref<2x12x2x32xf16>, %dk: memref<2x16x2x32xf16>, %dv: memref<2x16x2x32xf16>, %sinks: memref<2xf32>, %dsinks: memref<2xf32>, %bias: memref<2x1x12x16xf32>, %dbias: memref<2x1x12x16xf32>) {
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) sinks(%sinks) bias(%bias) -> %dq, %dk, %dv grad_sinks(%dsinks) grad_bias(%dbias) {mask = #fmha.mask<causal>}
    : memref<2x12x2x32xf16>, memref<2x16x2x32xf16>, memref<2x16x2x32xf16>, memref<2x12x2x32xf16>, memref<2x12x2x32xf16>, stats(memref<2x2x12xf32>) sinks(memref<2xf32>) bias(memref<2x1x12x16xf32>)
      -> memref<2x12x2x32xf16>, memref<2x16x2x32xf16>, memref<2x16x2x32xf16> grad_sinks(memref<2xf32>) grad_bias(memref<2x1x12x16xf32>)
  return
}

// -----

// An f16 bias broadcast over the batch (per head), GQA with one KV head,
// causal, Sq = Sk = 40: two KV blocks, the last partial, and query blocks
// the mask skips (dBias zero-filled, then added atomically over B = 2).
// CHECK-LABEL: case 3: fwd+bwd f16 B=2 Sq=40 Sk=40 Hq=4 Hkv=1 Dqk=32 Dv=32 mask=#fmha.mask<causal> stats=lse bias
// CHECK-NEXT: {{^}}O {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}lse {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dBias {{ *}}max_abs={{.*}} PASS
// FD: {{^}}dBias(fd) {{ *}}max_abs={{.*}} PASS
// CHECK: case 3: PASS
func.func @over_batch(%q: memref<2x40x4x32xf16>, %k: memref<2x40x1x32xf16>, %v: memref<2x40x1x32xf16>, %o: memref<2x40x4x32xf16>, %do: memref<2x40x4x32xf16>, %lse: memref<2x4x40xf32>, %dq: memref<2x40x4x32xf16>, %dk: memref<2x40x1x32xf16>, %dv: memref<2x40x1x32xf16>, %bias: memref<1x4x40x40xf16>, %dbias: memref<1x4x40x40xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) bias(%bias) {mask = #fmha.mask<causal>}
    : memref<2x40x4x32xf16>, memref<2x40x1x32xf16>, memref<2x40x1x32xf16> -> memref<2x40x4x32xf16>, stats(memref<2x4x40xf32>) bias(memref<1x4x40x40xf16>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) bias(%bias) -> %dq, %dk, %dv grad_bias(%dbias) {mask = #fmha.mask<causal>}
    : memref<2x40x4x32xf16>, memref<2x40x1x32xf16>, memref<2x40x1x32xf16>, memref<2x40x4x32xf16>, memref<2x40x4x32xf16>, stats(memref<2x4x40xf32>) bias(memref<1x4x40x40xf16>)
      -> memref<2x40x4x32xf16>, memref<2x40x1x32xf16>, memref<2x40x1x32xf16> grad_bias(memref<1x4x40x40xf32>)
  return
}

// -----

// A bias per batch and head without a mask: dBias is neither zero-filled
// nor added atomically, so every element must be stored once (rocke-run
// fills the gradient with NaN first; the PyTorch op allocates it unfilled).
// CHECK-LABEL: case 4: fwd+bwd f32 B=2 Sq=17 Sk=24 Hq=4 Hkv=2 Dqk=32 Dv=32 mask=#fmha.mask<none> stats=lse bias
// CHECK-NEXT: {{^}}O {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}lse {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dBias {{ *}}max_abs={{.*}} PASS
// FD: {{^}}dBias(fd) {{ *}}max_abs={{.*}} PASS
// CHECK: case 4: PASS
func.func @full_bias_unmasked(%q: memref<2x17x4x32xf32>, %k: memref<2x24x2x32xf32>, %v: memref<2x24x2x32xf32>, %o: memref<2x17x4x32xf32>, %do: memref<2x17x4x32xf32>, %lse: memref<2x4x17xf32>, %dq: memref<2x17x4x32xf32>, %dk: memref<2x24x2x32xf32>, %dv: memref<2x24x2x32xf32>, %bias: memref<2x4x17x24xf32>, %dbias: memref<2x4x17x24xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) bias(%bias)
    : memref<2x17x4x32xf32>, memref<2x24x2x32xf32>, memref<2x24x2x32xf32> -> memref<2x17x4x32xf32>, stats(memref<2x4x17xf32>) bias(memref<2x4x17x24xf32>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) bias(%bias) -> %dq, %dk, %dv grad_bias(%dbias) {deterministic}
    : memref<2x17x4x32xf32>, memref<2x24x2x32xf32>, memref<2x24x2x32xf32>, memref<2x17x4x32xf32>, memref<2x17x4x32xf32>, stats(memref<2x4x17xf32>) bias(memref<2x4x17x24xf32>)
      -> memref<2x17x4x32xf32>, memref<2x24x2x32xf32>, memref<2x24x2x32xf32> grad_bias(memref<2x4x17x24xf32>)
  return
}
