// RUN: rocke-run --split-input-file --fd-check --fd-samples=12 %s | FileCheck %s
// RUN: rocke-run --split-input-file --lowering='%tiled_host' %s | FileCheck %s
//
// Attention sinks (issue 33, GPT-OSS): a per-head logit in each row's
// softmax denominator, forward and backward, dSink = -sum_rows P_sink D.
// rocke-run generates the sinks around log Sk (where a sink weighs as much
// as the keys); the float64 reference adds the sink to each row's max and
// sum, and --fd-check differentiates its forward with respect to each sink
// as well as Q, K and V. D = 32.

// GQA, causal, f32: dSink against the reference and finite differences.
// CHECK-LABEL: case 0: fwd+bwd f32 B=2 Sq=24 Sk=24 Hq=4 Hkv=2 Dqk=32 Dv=32 mask=#fmha.mask<causal> stats=lse sinks
// CHECK-NEXT: {{^}}O {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}lse {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dSinks {{ *}}max_abs={{.*}} PASS
// CHECK: case 0: PASS
func.func @gqa_causal(%q: memref<2x24x4x32xf32>, %k: memref<2x24x2x32xf32>, %v: memref<2x24x2x32xf32>, %o: memref<2x24x4x32xf32>, %do: memref<2x24x4x32xf32>, %lse: memref<2x4x24xf32>, %dq: memref<2x24x4x32xf32>, %dk: memref<2x24x2x32xf32>, %dv: memref<2x24x2x32xf32>, %sinks: memref<4xf32>, %dsinks: memref<4xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) sinks(%sinks) {mask = #fmha.mask<causal>}
    : memref<2x24x4x32xf32>, memref<2x24x2x32xf32>, memref<2x24x2x32xf32> -> memref<2x24x4x32xf32>, stats(memref<2x4x24xf32>) sinks(memref<4xf32>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) sinks(%sinks) -> %dq, %dk, %dv grad_sinks(%dsinks) {mask = #fmha.mask<causal>}
    : memref<2x24x4x32xf32>, memref<2x24x2x32xf32>, memref<2x24x2x32xf32>, memref<2x24x4x32xf32>, memref<2x24x4x32xf32>, stats(memref<2x4x24xf32>) sinks(memref<4xf32>)
      -> memref<2x24x4x32xf32>, memref<2x24x2x32xf32>, memref<2x24x2x32xf32> grad_sinks(memref<4xf32>)
  return
}

// -----

// Log2-domain statistics, bf16, bottom-right causal with Sq > Sk: the
// first 16 rows see no key, so the sink alone makes their statistics
// (O = 0 exactly, M = sink log2 e, L = 1) and they add nothing to dSink.
// The dSink reduction is deterministic.
// CHECK-LABEL: case 1: fwd+bwd bf16 B=1 Sq=40 Sk=24 Hq=2 Hkv=1 Dqk=32 Dv=32 mask=#fmha.mask<causal, alignment = bottom_right> stats=log2_max_sum sinks
// CHECK-NEXT: {{^}}O {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}M {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}L {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dSinks {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}masked {{ *}}16 empty query rows, 0 unseen keys: 0 inexact elements PASS
// CHECK: case 1: PASS
func.func @log2_empty_rows(%q: memref<1x40x2x32xbf16>, %k: memref<1x24x1x32xbf16>, %v: memref<1x24x1x32xbf16>, %o: memref<1x40x2x32xbf16>, %do: memref<1x40x2x32xbf16>, %m: memref<1x2x40xf32>, %l: memref<1x2x40xf32>, %dq: memref<1x40x2x32xbf16>, %dk: memref<1x24x1x32xbf16>, %dv: memref<1x24x1x32xbf16>, %sinks: memref<2xf32>, %dsinks: memref<2xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%m, %l) sinks(%sinks) {mask = #fmha.mask<causal, alignment = bottom_right>, stats_encoding = #fmha.stats<log2_max_sum>}
    : memref<1x40x2x32xbf16>, memref<1x24x1x32xbf16>, memref<1x24x1x32xbf16> -> memref<1x40x2x32xbf16>, stats(memref<1x2x40xf32>, memref<1x2x40xf32>) sinks(memref<2xf32>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%m, %l) sinks(%sinks) -> %dq, %dk, %dv grad_sinks(%dsinks) {mask = #fmha.mask<causal, alignment = bottom_right>, stats_encoding = #fmha.stats<log2_max_sum>, deterministic}
    : memref<1x40x2x32xbf16>, memref<1x24x1x32xbf16>, memref<1x24x1x32xbf16>, memref<1x40x2x32xbf16>, memref<1x40x2x32xbf16>, stats(memref<1x2x40xf32>, memref<1x2x40xf32>)  sinks(memref<2xf32>)
      -> memref<1x40x2x32xbf16>, memref<1x24x1x32xbf16>, memref<1x24x1x32xbf16> grad_sinks(memref<2xf32>)
  return
}

// -----

// A lone backward (O and statistics from the float64 forward with sinks)
// through a softcap: the sink joins the modified scores' softmax.
// CHECK-LABEL: case 2: bwd f16 B=1 Sq=33 Sk=45 Hq=2 Hkv=2 Dqk=32 Dv=32 mask=#fmha.mask<none> stats=lse score_mod sinks
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dSinks {{ *}}max_abs={{.*}} PASS
// CHECK: case 2: PASS
func.func @softcap_bwd(%q: memref<1x33x2x32xf16>, %k: memref<1x45x2x32xf16>, %v: memref<1x45x2x32xf16>, %o: memref<1x33x2x32xf16>, %do: memref<1x33x2x32xf16>, %lse: memref<1x2x33xf32>, %dq: memref<1x33x2x32xf16>, %dk: memref<1x45x2x32xf16>, %dv: memref<1x45x2x32xf16>, %sinks: memref<2xf32>, %dsinks: memref<2xf32>) {
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) sinks(%sinks) -> %dq, %dk, %dv grad_sinks(%dsinks) {scale = 1.0 : f32}
    : memref<1x33x2x32xf16>, memref<1x45x2x32xf16>, memref<1x45x2x32xf16>, memref<1x33x2x32xf16>, memref<1x33x2x32xf16>, stats(memref<1x2x33xf32>) sinks(memref<2xf32>)
      -> memref<1x33x2x32xf16>, memref<1x45x2x32xf16>, memref<1x45x2x32xf16> grad_sinks(memref<2xf32>)
    score_mod softcap(4.0)
  return
}
