// Tiled-strategy ISA input: bf16, head dim 256, mask none, dynamic B and S.
func.func @attention_bwd(%q: memref<?x?x8x256xbf16>, %k: memref<?x?x8x256xbf16>, %v: memref<?x?x8x256xbf16>, %o: memref<?x?x8x256xbf16>, %do: memref<?x?x8x256xbf16>, %lse: memref<?x8x?xf32>,
    %dq: memref<?x?x8x256xbf16>, %dk: memref<?x?x8x256xbf16>, %dv: memref<?x?x8x256xbf16>) {
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv
      : memref<?x?x8x256xbf16>, memref<?x?x8x256xbf16>, memref<?x?x8x256xbf16>, memref<?x?x8x256xbf16>, memref<?x?x8x256xbf16>, stats(memref<?x8x?xf32>) -> memref<?x?x8x256xbf16>, memref<?x?x8x256xbf16>, memref<?x?x8x256xbf16>
  return
}
