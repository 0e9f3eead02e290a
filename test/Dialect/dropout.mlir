// RUN: rocke-opt %s -split-input-file | rocke-opt -split-input-file | FileCheck %s
// Dropout on P (issue 33): the forward and the backward name the same
// {seed, offset} memref and p; they print and parse back, with the other
// clauses (sinks, bias, varlen, a score_mod) in their order.

// CHECK-LABEL: func.func @chain
// CHECK: fmha.attention_fwd {{.*}} stats(%{{[a-z0-9_]+}}) dropout(%[[SO:[a-z0-9_]+]], p = 1.000000e-01) {mask = #fmha.mask<causal>}
// CHECK-SAME: stats(memref<2x4x64xf32>) dropout(memref<2xi64>)
// CHECK: fmha.attention_bwd {{.*}} stats(%{{[a-z0-9_]+}}) dropout(%[[SO]], p = 1.000000e-01) -> %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} {mask = #fmha.mask<causal>}
// CHECK-SAME: stats(memref<2x4x64xf32>) dropout(memref<2xi64>) -> memref<2x64x4x32xf16>
func.func @chain(%q: memref<2x64x4x32xf16>, %k: memref<2x64x2x32xf16>, %v: memref<2x64x2x32xf16>,
    %o: memref<2x64x4x32xf16>, %do: memref<2x64x4x32xf16>, %lse: memref<2x4x64xf32>,
    %dq: memref<2x64x4x32xf16>, %dk: memref<2x64x2x32xf16>, %dv: memref<2x64x2x32xf16>,
    %so: memref<2xi64>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) dropout(%so, p = 0.1) {mask = #fmha.mask<causal>}
      : memref<2x64x4x32xf16>, memref<2x64x2x32xf16>, memref<2x64x2x32xf16>
        -> memref<2x64x4x32xf16>, stats(memref<2x4x64xf32>) dropout(memref<2xi64>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) dropout(%so, p = 0.1) -> %dq, %dk, %dv
      {mask = #fmha.mask<causal>}
      : memref<2x64x4x32xf16>, memref<2x64x2x32xf16>, memref<2x64x2x32xf16>, memref<2x64x4x32xf16>,
        memref<2x64x4x32xf16>, stats(memref<2x4x64xf32>) dropout(memref<2xi64>)
        -> memref<2x64x4x32xf16>, memref<2x64x2x32xf16>, memref<2x64x2x32xf16>
  return
}

// -----

// p = 0 keeps every score; the clauses in their order with sinks, a bias
// and a softcap; the seed and offset in global memory.
// CHECK-LABEL: func.func @all_clauses
// CHECK: fmha.attention_fwd {{.*}} sinks(%{{[a-z0-9_]+}}) bias(%{{[a-z0-9_]+}}) dropout(%{{[a-z0-9_]+}}, p = 0.000000e+00) :
// CHECK-SAME: sinks(memref<4xf32>) bias(memref<1x4x16x16xf32>) dropout(memref<2xi64, #gpu.address_space<global>>) score_mod
// CHECK: fmha.attention_bwd {{.*}} sinks(%{{[a-z0-9_]+}}) bias(%{{[a-z0-9_]+}}) dropout(%{{[a-z0-9_]+}}, p = 0.000000e+00) -> {{.*}} grad_sinks(%{{[a-z0-9_]+}}) grad_bias(%{{[a-z0-9_]+}}) :
// CHECK-SAME: bias(memref<1x4x16x16xf32>) dropout(memref<2xi64, #gpu.address_space<global>>) -> {{.*}} grad_bias(memref<1x4x16x16xf32>) score_mod
func.func @all_clauses(%q: memref<1x16x4x32xf16>, %o: memref<1x16x4x32xf16>, %do: memref<1x16x4x32xf16>,
    %lse: memref<1x4x16xf32>, %dq: memref<1x16x4x32xf16>, %dk: memref<1x16x4x32xf16>, %dv: memref<1x16x4x32xf16>,
    %s: memref<4xf32>, %ds: memref<4xf32>, %bias: memref<1x4x16x16xf32>, %db: memref<1x4x16x16xf32>,
    %so: memref<2xi64, #gpu.address_space<global>>) {
  fmha.attention_fwd %q, %q, %q -> %o, stats(%lse) sinks(%s) bias(%bias) dropout(%so, p = 0.0)
      : memref<1x16x4x32xf16>, memref<1x16x4x32xf16>, memref<1x16x4x32xf16>
        -> memref<1x16x4x32xf16>, stats(memref<1x4x16xf32>) sinks(memref<4xf32>) bias(memref<1x4x16x16xf32>)
        dropout(memref<2xi64, #gpu.address_space<global>>)
      score_mod softcap(30.0)
  fmha.attention_bwd %q, %q, %q, %o, %do, stats(%lse) sinks(%s) bias(%bias) dropout(%so, p = 0.0)
      -> %dq, %dk, %dv grad_sinks(%ds) grad_bias(%db)
      : memref<1x16x4x32xf16>, memref<1x16x4x32xf16>, memref<1x16x4x32xf16>, memref<1x16x4x32xf16>,
        memref<1x16x4x32xf16>, stats(memref<1x4x16xf32>) sinks(memref<4xf32>) bias(memref<1x4x16x16xf32>)
        dropout(memref<2xi64, #gpu.address_space<global>>)
        -> memref<1x16x4x32xf16>, memref<1x16x4x32xf16>, memref<1x16x4x32xf16> grad_sinks(memref<4xf32>)
        grad_bias(memref<1x4x16x16xf32>)
      score_mod softcap(30.0)
  return
}

// -----

// A varlen batch: b is the sequence.
// CHECK-LABEL: func.func @varlen
// CHECK: fmha.attention_fwd {{.*}} varlen(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}) dropout(%{{[a-z0-9_]+}}, p = 5.000000e-01)
// CHECK-SAME: varlen(memref<?xi32>, memref<?xi32>) dropout(memref<2xi64>)
func.func @varlen(%q: memref<?x4x32xf16>, %o: memref<?x4x32xf16>, %lse: memref<4x?xf32>,
    %cuq: memref<?xi32>, %cuk: memref<?xi32>, %so: memref<2xi64>) {
  fmha.attention_fwd %q, %q, %q -> %o, stats(%lse) varlen(%cuq, %cuk) dropout(%so, p = 0.5)
      {max_seqlen_q = 64, max_seqlen_k = 64}
      : memref<?x4x32xf16>, memref<?x4x32xf16>, memref<?x4x32xf16>
        -> memref<?x4x32xf16>, stats(memref<4x?xf32>) varlen(memref<?xi32>, memref<?xi32>)
        dropout(memref<2xi64>)
  return
}
