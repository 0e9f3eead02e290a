// Forward ISA input: f16, head dim 128, mask none, Hq=8, Hkv=2 (GQA), dynamic B and S.
func.func @attention_fwd(%q: memref<?x?x8x128xf16>, %k: memref<?x?x2x128xf16>, %v: memref<?x?x2x128xf16>, %o: memref<?x?x8x128xf16>, %lse: memref<?x8x?xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
      : memref<?x?x8x128xf16>, memref<?x?x2x128xf16>, memref<?x?x2x128xf16> -> memref<?x?x8x128xf16>, stats(memref<?x8x?xf32>)
  return
}
