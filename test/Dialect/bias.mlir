// RUN: rocke-opt %s -split-input-file | rocke-opt -split-input-file | FileCheck %s
// Additive bias (issue 33): bias(...) on both ops and grad_bias(...) on the
// backward print and parse back, with sinks and a score_mod, full and
// broadcast over the batch and heads, f32 or the input element type.

// CHECK-LABEL: func.func @chain
// CHECK: fmha.attention_fwd {{.*}} stats(%{{[a-z0-9_]+}}) sinks(%{{[a-z0-9_]+}}) bias(%[[B:[a-z0-9_]+]]) {mask = #fmha.mask<causal>}
// CHECK-SAME: sinks(memref<4xf32>) bias(memref<1x4x64x64xf16>) score_mod {
// CHECK: fmha.attention_bwd {{.*}} bias(%[[B]]) -> %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} grad_bias(%{{[a-z0-9_]+}}) {mask = #fmha.mask<causal>}
// CHECK-SAME: bias(memref<1x4x64x64xf16>) -> {{.*}} grad_bias(memref<1x4x64x64xf32>) score_mod {
func.func @chain(%q: memref<2x64x4x32xf16>, %o: memref<2x64x4x32xf16>, %lse: memref<2x4x64xf32>,
    %dq: memref<2x64x4x32xf16>, %dk: memref<2x64x4x32xf16>, %dv: memref<2x64x4x32xf16>,
    %sinks: memref<4xf32>, %bias: memref<1x4x64x64xf16>, %dbias: memref<1x4x64x64xf32>) {
  fmha.attention_fwd %q, %q, %q -> %o, stats(%lse) sinks(%sinks) bias(%bias) {mask = #fmha.mask<causal>}
      : memref<2x64x4x32xf16>, memref<2x64x4x32xf16>, memref<2x64x4x32xf16>
        -> memref<2x64x4x32xf16>, stats(memref<2x4x64xf32>) sinks(memref<4xf32>) bias(memref<1x4x64x64xf16>)
      score_mod softcap(30.0)
  fmha.attention_bwd %q, %q, %q, %o, %o, stats(%lse) bias(%bias) -> %dq, %dk, %dv grad_bias(%dbias) {mask = #fmha.mask<causal>}
      : memref<2x64x4x32xf16>, memref<2x64x4x32xf16>, memref<2x64x4x32xf16>, memref<2x64x4x32xf16>,
        memref<2x64x4x32xf16>, stats(memref<2x4x64xf32>) bias(memref<1x4x64x64xf16>)
        -> memref<2x64x4x32xf16>, memref<2x64x4x32xf16>, memref<2x64x4x32xf16> grad_bias(memref<1x4x64x64xf32>)
      score_mod softcap(30.0)
  return
}

// -----

// Dynamic sizes, a bias broadcast over the heads and given per batch.
// CHECK-LABEL: func.func @dynamic
// CHECK: fmha.attention_fwd {{.*}} bias(memref<?x1x?x?xf32>)
func.func @dynamic(%q: memref<?x?x4x32xbf16>, %o: memref<?x?x4x32xbf16>, %lse: memref<?x4x?xf32>,
    %bias: memref<?x1x?x?xf32>) {
  fmha.attention_fwd %q, %q, %q -> %o, stats(%lse) bias(%bias)
      : memref<?x?x4x32xbf16>, memref<?x?x4x32xbf16>, memref<?x?x4x32xbf16>
        -> memref<?x?x4x32xbf16>, stats(memref<?x4x?xf32>) bias(memref<?x1x?x?xf32>)
  return
}
