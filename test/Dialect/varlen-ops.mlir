// RUN: rocke-opt %s -split-input-file | rocke-opt -split-input-file | FileCheck %s
// Packed variable-length batches: the varlen clause round-trips.

// CHECK-LABEL: func.func @fwd_varlen_dynamic
// CHECK: fmha.attention_fwd %{{.*}}, %{{.*}}, %{{.*}} -> %{{.*}}, stats(%{{.*}}) varlen(%{{.*}}, %{{.*}}) {mask = #fmha.mask<causal, alignment = bottom_right>, max_seqlen_k = 300 : i64, max_seqlen_q = 200 : i64}
// CHECK-SAME: : memref<?x8x64xf16>, memref<?x2x64xf16>, memref<?x2x64xf16> -> memref<?x8x64xf16>, stats(memref<8x?xf32>) varlen(memref<?xi32>, memref<?xi32>)
func.func @fwd_varlen_dynamic(%q: memref<?x8x64xf16>, %k: memref<?x2x64xf16>,
    %v: memref<?x2x64xf16>, %o: memref<?x8x64xf16>, %lse: memref<8x?xf32>,
    %cuq: memref<?xi32>, %cuk: memref<?xi32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) varlen(%cuq, %cuk)
      {mask = #fmha.mask<causal, alignment = bottom_right>,
       max_seqlen_q = 200, max_seqlen_k = 300}
      : memref<?x8x64xf16>, memref<?x2x64xf16>, memref<?x2x64xf16>
        -> memref<?x8x64xf16>, stats(memref<8x?xf32>)
        varlen(memref<?xi32>, memref<?xi32>)
  return
}

// -----

// Static token counts: the maxima default to them.
// CHECK-LABEL: func.func @bwd_varlen_static
// CHECK: fmha.attention_bwd %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, stats(%{{.*}}, %{{.*}}) varlen(%{{.*}}, %{{.*}}) -> %{{.*}}, %{{.*}}, %{{.*}} {deterministic, stats_encoding = #fmha.stats<log2_max_sum>}
// CHECK-SAME: stats(memref<4x40xf32>, memref<4x40xf32>) varlen(memref<4xi32>, memref<4xi32>) -> memref<40x4x32xf32>
func.func @bwd_varlen_static(%q: memref<40x4x32xf32>, %k: memref<50x4x32xf32>,
    %v: memref<50x4x32xf32>, %o: memref<40x4x32xf32>, %do: memref<40x4x32xf32>,
    %m: memref<4x40xf32>, %l: memref<4x40xf32>, %cuq: memref<4xi32>,
    %cuk: memref<4xi32>, %dq: memref<40x4x32xf32>, %dk: memref<50x4x32xf32>,
    %dv: memref<50x4x32xf32>) {
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%m, %l) varlen(%cuq, %cuk)
      -> %dq, %dk, %dv {deterministic, stats_encoding = #fmha.stats<log2_max_sum>}
      : memref<40x4x32xf32>, memref<50x4x32xf32>, memref<50x4x32xf32>,
        memref<40x4x32xf32>, memref<40x4x32xf32>,
        stats(memref<4x40xf32>, memref<4x40xf32>)
        varlen(memref<4xi32>, memref<4xi32>)
        -> memref<40x4x32xf32>, memref<50x4x32xf32>, memref<50x4x32xf32>
  return
}
