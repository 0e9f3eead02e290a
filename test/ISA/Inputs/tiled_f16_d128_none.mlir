// Tiled-strategy ISA input: f16, head dim 128, mask none, dynamic B and S.
func.func @attention_bwd(%q: memref<?x?x8x128xf16>, %k: memref<?x?x8x128xf16>, %v: memref<?x?x8x128xf16>, %o: memref<?x?x8x128xf16>, %do: memref<?x?x8x128xf16>, %lse: memref<?x8x?xf32>,
    %dq: memref<?x?x8x128xf16>, %dk: memref<?x?x8x128xf16>, %dv: memref<?x?x8x128xf16>) {
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv 
      : memref<?x?x8x128xf16>, memref<?x?x8x128xf16>, memref<?x?x8x128xf16>, memref<?x?x8x128xf16>, memref<?x?x8x128xf16>, stats(memref<?x8x?xf32>) -> memref<?x?x8x128xf16>, memref<?x?x8x128xf16>, memref<?x?x8x128xf16>
  return
}
