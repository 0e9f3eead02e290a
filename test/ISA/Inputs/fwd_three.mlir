// Three forwards in one function: the first two alike (one kernel, launched
// for both), the third of another element type and head dim (its own
// kernel, under a uniqued name).
func.func @three(%q: memref<?x?x8x128xbf16>, %o: memref<?x?x8x128xbf16>, %lse: memref<?x8x?xf32>,
                 %o1: memref<?x?x8x128xbf16>, %lse1: memref<?x8x?xf32>,
                 %q2: memref<?x?x8x64xf16>, %o2: memref<?x?x8x64xf16>, %lse2: memref<?x8x?xf32>) {
  fmha.attention_fwd %q, %q, %q -> %o, stats(%lse) {mask = #fmha.mask<causal>}
      : memref<?x?x8x128xbf16>, memref<?x?x8x128xbf16>, memref<?x?x8x128xbf16> -> memref<?x?x8x128xbf16>, stats(memref<?x8x?xf32>)
  fmha.attention_fwd %o, %q, %q -> %o1, stats(%lse1) {mask = #fmha.mask<causal>}
      : memref<?x?x8x128xbf16>, memref<?x?x8x128xbf16>, memref<?x?x8x128xbf16> -> memref<?x?x8x128xbf16>, stats(memref<?x8x?xf32>)
  fmha.attention_fwd %q2, %q2, %q2 -> %o2, stats(%lse2)
      : memref<?x?x8x64xf16>, memref<?x?x8x64xf16>, memref<?x?x8x64xf16> -> memref<?x?x8x64xf16>, stats(memref<?x8x?xf32>)
  return
}
