// Statistics with a static empty dimension are rejected even when the query's
// batch / sequence length are dynamic (the shape comparison cannot see it).
// RUN: rocke-opt %s -split-input-file -verify-diagnostics

func.func @empty_stats_batch(%q: memref<?x?x4x64xf16>, %k: memref<?x?x4x64xf16>, %v: memref<?x?x4x64xf16>,
                             %o: memref<?x?x4x64xf16>, %lse: memref<0x4x?xf32>) {
  // expected-error @+1 {{statistics have an empty dimension, got 'memref<0x4x?xf32>'}}
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
      : memref<?x?x4x64xf16>, memref<?x?x4x64xf16>, memref<?x?x4x64xf16>
        -> memref<?x?x4x64xf16>, stats(memref<0x4x?xf32>)
  return
}

// -----

func.func @empty_stats_seq(%q: memref<?x?x4x64xf16>, %k: memref<?x?x4x64xf16>, %v: memref<?x?x4x64xf16>,
                           %o: memref<?x?x4x64xf16>, %do: memref<?x?x4x64xf16>, %m: memref<?x4x?xf32>,
                           %l: memref<?x4x0xf32>) {
  // expected-error @+1 {{statistics have an empty dimension, got 'memref<?x4x0xf32>'}}
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%m, %l) -> %q, %k, %v
      {stats_encoding = #fmha.stats<log2_max_sum>}
      : memref<?x?x4x64xf16>, memref<?x?x4x64xf16>, memref<?x?x4x64xf16>,
        memref<?x?x4x64xf16>, memref<?x?x4x64xf16>, stats(memref<?x4x?xf32>, memref<?x4x0xf32>)
        -> memref<?x?x4x64xf16>, memref<?x?x4x64xf16>, memref<?x?x4x64xf16>
  return
}
