// RUN: rocke-opt %s -split-input-file | rocke-opt -split-input-file | FileCheck %s
// Attention sinks (issue 33, GPT-OSS): a per-head logit in the forward's
// softmax denominator, the backward's sinks and their gradient; they print
// and parse back, dense and varlen, with a score_mod.

// CHECK-LABEL: func.func @chain
// CHECK: fmha.attention_fwd %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} -> %{{[a-z0-9_]+}}, stats(%{{[a-z0-9_]+}}) sinks(%[[S:[a-z0-9_]+]]) {mask = #fmha.mask<causal>}
// CHECK-SAME: stats(memref<2x4x64xf32>) sinks(memref<4xf32>)
// CHECK: fmha.attention_bwd {{.*}} stats(%{{[a-z0-9_]+}}) sinks(%[[S]]) -> %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} grad_sinks(%{{[a-z0-9_]+}}) {deterministic, mask = #fmha.mask<causal>}
// CHECK-SAME: stats(memref<2x4x64xf32>) sinks(memref<4xf32>) -> memref<2x64x4x32xf16>, memref<2x64x2x32xf16>, memref<2x64x2x32xf16> grad_sinks(memref<4xf32>)
func.func @chain(%q: memref<2x64x4x32xf16>, %k: memref<2x64x2x32xf16>, %v: memref<2x64x2x32xf16>,
    %o: memref<2x64x4x32xf16>, %do: memref<2x64x4x32xf16>, %lse: memref<2x4x64xf32>,
    %dq: memref<2x64x4x32xf16>, %dk: memref<2x64x2x32xf16>, %dv: memref<2x64x2x32xf16>,
    %sinks: memref<4xf32>, %dsinks: memref<4xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) sinks(%sinks) {mask = #fmha.mask<causal>}
      : memref<2x64x4x32xf16>, memref<2x64x2x32xf16>, memref<2x64x2x32xf16>
        -> memref<2x64x4x32xf16>, stats(memref<2x4x64xf32>) sinks(memref<4xf32>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) sinks(%sinks) -> %dq, %dk, %dv grad_sinks(%dsinks)
      {mask = #fmha.mask<causal>, deterministic}
      : memref<2x64x4x32xf16>, memref<2x64x2x32xf16>, memref<2x64x2x32xf16>, memref<2x64x4x32xf16>,
        memref<2x64x4x32xf16>, stats(memref<2x4x64xf32>) sinks(memref<4xf32>)
        -> memref<2x64x4x32xf16>, memref<2x64x2x32xf16>, memref<2x64x2x32xf16> grad_sinks(memref<4xf32>)
  return
}

// -----

// A varlen batch with a softcap: the clauses in their order.
// CHECK-LABEL: func.func @varlen_softcap
// CHECK: fmha.attention_fwd {{.*}} stats(%{{[a-z0-9_]+}}) varlen(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}) sinks(%{{[a-z0-9_]+}})
// CHECK-SAME: varlen(memref<3xi32>, memref<3xi32>) sinks(memref<4xf32>) score_mod {
// CHECK: fmha.attention_bwd {{.*}} varlen(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}) sinks(%{{[a-z0-9_]+}}) -> {{.*}} grad_sinks(%{{[a-z0-9_]+}})
// CHECK-SAME: sinks(memref<4xf32>) -> {{.*}} grad_sinks(memref<4xf32>) score_mod {
func.func @varlen_softcap(%q: memref<40x4x32xbf16>, %k: memref<40x4x32xbf16>, %v: memref<40x4x32xbf16>,
    %o: memref<40x4x32xbf16>, %do: memref<40x4x32xbf16>, %lse: memref<4x40xf32>,
    %dq: memref<40x4x32xbf16>, %dk: memref<40x4x32xbf16>, %dv: memref<40x4x32xbf16>,
    %cuq: memref<3xi32>, %cuk: memref<3xi32>, %sinks: memref<4xf32>, %dsinks: memref<4xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) varlen(%cuq, %cuk) sinks(%sinks)
      : memref<40x4x32xbf16>, memref<40x4x32xbf16>, memref<40x4x32xbf16>
        -> memref<40x4x32xbf16>, stats(memref<4x40xf32>) varlen(memref<3xi32>, memref<3xi32>) sinks(memref<4xf32>)
      score_mod softcap(20.0)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) varlen(%cuq, %cuk) sinks(%sinks) -> %dq, %dk, %dv grad_sinks(%dsinks)
      : memref<40x4x32xbf16>, memref<40x4x32xbf16>, memref<40x4x32xbf16>, memref<40x4x32xbf16>,
        memref<40x4x32xbf16>, stats(memref<4x40xf32>) varlen(memref<3xi32>, memref<3xi32>) sinks(memref<4xf32>)
        -> memref<40x4x32xbf16>, memref<40x4x32xbf16>, memref<40x4x32xbf16> grad_sinks(memref<4xf32>)
      score_mod softcap(20.0)
  return
}

// -----

// A backward may name the sinks without asking for their gradient.
// CHECK-LABEL: func.func @bwd_without_gradient
// CHECK: fmha.attention_bwd {{.*}} sinks(%{{[a-z0-9_]+}}) -> %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} :
// CHECK-NOT: grad_sinks
func.func @bwd_without_gradient(%q: memref<1x16x2x32xf32>, %o: memref<1x16x2x32xf32>,
    %lse: memref<1x2x16xf32>, %dq: memref<1x16x2x32xf32>, %dk: memref<1x16x2x32xf32>,
    %dv: memref<1x16x2x32xf32>, %sinks: memref<2xf32, strided<[?], offset: ?>>) {
  fmha.attention_bwd %q, %q, %q, %o, %o, stats(%lse) sinks(%sinks) -> %dq, %dk, %dv
      : memref<1x16x2x32xf32>, memref<1x16x2x32xf32>, memref<1x16x2x32xf32>, memref<1x16x2x32xf32>,
        memref<1x16x2x32xf32>, stats(memref<1x2x16xf32>) sinks(memref<2xf32, strided<[?], offset: ?>>)
        -> memref<1x16x2x32xf32>, memref<1x16x2x32xf32>, memref<1x16x2x32xf32>
  return
}
