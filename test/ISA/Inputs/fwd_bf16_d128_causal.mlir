// Forward ISA input: bf16, head dim 128, mask causal, 8 heads, dynamic B and S.
func.func @attention_fwd(%q: memref<?x?x8x128xbf16>, %k: memref<?x?x8x128xbf16>, %v: memref<?x?x8x128xbf16>, %o: memref<?x?x8x128xbf16>, %lse: memref<?x8x?xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) {mask = #fmha.mask<causal>}
      : memref<?x?x8x128xbf16>, memref<?x?x8x128xbf16>, memref<?x?x8x128xbf16> -> memref<?x?x8x128xbf16>, stats(memref<?x8x?xf32>)
  return
}
