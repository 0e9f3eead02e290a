// A packed (varlen) batch: forward then backward, bf16, D = 128, GQA 16:4,
// bottom-right causal within each sequence.
func.func @varlen_fwd_bwd(%q: memref<?x16x128xbf16>, %k: memref<?x4x128xbf16>,
    %v: memref<?x4x128xbf16>, %o: memref<?x16x128xbf16>, %lse: memref<16x?xf32>,
    %do: memref<?x16x128xbf16>, %cuq: memref<?xi32>, %cuk: memref<?xi32>,
    %dq: memref<?x16x128xbf16>, %dk: memref<?x4x128xbf16>, %dv: memref<?x4x128xbf16>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) varlen(%cuq, %cuk)
      {mask = #fmha.mask<causal, alignment = bottom_right>, max_seqlen_q = 4096, max_seqlen_k = 4096}
      : memref<?x16x128xbf16>, memref<?x4x128xbf16>, memref<?x4x128xbf16>
        -> memref<?x16x128xbf16>, stats(memref<16x?xf32>) varlen(memref<?xi32>, memref<?xi32>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) varlen(%cuq, %cuk) -> %dq, %dk, %dv
      {mask = #fmha.mask<causal, alignment = bottom_right>, max_seqlen_q = 4096, max_seqlen_k = 4096}
      : memref<?x16x128xbf16>, memref<?x4x128xbf16>, memref<?x4x128xbf16>,
        memref<?x16x128xbf16>, memref<?x16x128xbf16>, stats(memref<16x?xf32>)
        varlen(memref<?xi32>, memref<?xi32>)
        -> memref<?x16x128xbf16>, memref<?x4x128xbf16>, memref<?x4x128xbf16>
  return
}
