// Forward PTX input: f16, head dim 64, mask causal, 8 heads, dynamic B and S.
func.func @attention_fwd(%q: memref<?x?x8x64xf16>, %k: memref<?x?x8x64xf16>, %v: memref<?x?x8x64xf16>, %o: memref<?x?x8x64xf16>, %lse: memref<?x8x?xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) {mask = #fmha.mask<causal>}
      : memref<?x?x8x64xf16>, memref<?x?x8x64xf16>, memref<?x?x8x64xf16> -> memref<?x?x8x64xf16>, stats(memref<?x8x?xf32>)
  return
}
