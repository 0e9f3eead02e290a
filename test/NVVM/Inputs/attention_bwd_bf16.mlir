// Attention backward as the H200 runner builds it: bf16, dynamic batch and
// sequence lengths, [B,H,S,D] tensors seen as [B,S,H,D] through strides,
// Hq=16, Hkv=4 (GQA), D=64, causal.
func.func @fmha_bwd(%q: memref<?x?x16x64xbf16, strided<[?, 64, ?, 1]>>,
    %k: memref<?x?x4x64xbf16, strided<[?, 64, ?, 1]>>,
    %v: memref<?x?x4x64xbf16, strided<[?, 64, ?, 1]>>,
    %o: memref<?x?x16x64xbf16, strided<[?, 64, ?, 1]>>,
    %do: memref<?x?x16x64xbf16, strided<[?, 64, ?, 1]>>,
    %lse: memref<?x16x?xf32>,
    %dq: memref<?x?x16x64xbf16, strided<[?, 64, ?, 1]>>,
    %dk: memref<?x?x4x64xbf16, strided<[?, 64, ?, 1]>>,
    %dv: memref<?x?x4x64xbf16, strided<[?, 64, ?, 1]>>) {
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv
      {mask = #fmha.mask<causal>}
      : memref<?x?x16x64xbf16, strided<[?, 64, ?, 1]>>, memref<?x?x4x64xbf16, strided<[?, 64, ?, 1]>>,
        memref<?x?x4x64xbf16, strided<[?, 64, ?, 1]>>, memref<?x?x16x64xbf16, strided<[?, 64, ?, 1]>>,
        memref<?x?x16x64xbf16, strided<[?, 64, ?, 1]>>, stats(memref<?x16x?xf32>)
        -> memref<?x?x16x64xbf16, strided<[?, 64, ?, 1]>>, memref<?x?x4x64xbf16, strided<[?, 64, ?, 1]>>,
           memref<?x?x4x64xbf16, strided<[?, 64, ?, 1]>>
  return
}
