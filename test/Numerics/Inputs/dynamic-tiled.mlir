// A forward feeding a backward on dynamic batch and sequence lengths, GQA
// (used by tiled-host-defaults.mlir).
func.func @fwd_bwd(%q: memref<?x?x4x64xf16>, %k: memref<?x?x2x64xf16>, %v: memref<?x?x2x64xf16>, %o: memref<?x?x4x64xf16>, %do: memref<?x?x4x64xf16>, %lse: memref<?x4x?xf32>, %dq: memref<?x?x4x64xf16>, %dk: memref<?x?x2x64xf16>, %dv: memref<?x?x2x64xf16>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) {mask = #fmha.mask<causal, alignment = bottom_right>}
    : memref<?x?x4x64xf16>, memref<?x?x2x64xf16>, memref<?x?x2x64xf16> -> memref<?x?x4x64xf16>, stats(memref<?x4x?xf32>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv {mask = #fmha.mask<causal, alignment = bottom_right>}
    : memref<?x?x4x64xf16>, memref<?x?x2x64xf16>, memref<?x?x2x64xf16>, memref<?x?x4x64xf16>, memref<?x?x4x64xf16>, stats(memref<?x4x?xf32>)
      -> memref<?x?x4x64xf16>, memref<?x?x2x64xf16>, memref<?x?x2x64xf16>
  return
}
