// Forward then backward of one attention in one function (a training step):
// the forward's O and LSE feed the backward. bf16, head dim 128, causal, GQA
// (Hq=16, Hkv=4), dynamic B and S.
func.func @fwd_bwd(%q: memref<?x?x16x128xbf16>, %k: memref<?x?x4x128xbf16>, %v: memref<?x?x4x128xbf16>,
    %o: memref<?x?x16x128xbf16>, %lse: memref<?x16x?xf32>, %do: memref<?x?x16x128xbf16>,
    %dq: memref<?x?x16x128xbf16>, %dk: memref<?x?x4x128xbf16>, %dv: memref<?x?x4x128xbf16>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) {mask = #fmha.mask<causal>}
      : memref<?x?x16x128xbf16>, memref<?x?x4x128xbf16>, memref<?x?x4x128xbf16> -> memref<?x?x16x128xbf16>, stats(memref<?x16x?xf32>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv {mask = #fmha.mask<causal>}
      : memref<?x?x16x128xbf16>, memref<?x?x4x128xbf16>, memref<?x?x4x128xbf16>, memref<?x?x16x128xbf16>, memref<?x?x16x128xbf16>, stats(memref<?x16x?xf32>) -> memref<?x?x16x128xbf16>, memref<?x?x4x128xbf16>, memref<?x?x4x128xbf16>
  return
}
