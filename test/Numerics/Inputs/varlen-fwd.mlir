// A varlen forward for rocke-run's option checks (varlen-errors.mlir).
func.func @fwd(%q: memref<?x2x32xf32>, %k: memref<?x2x32xf32>, %v: memref<?x2x32xf32>, %o: memref<?x2x32xf32>, %lse: memref<2x?xf32>, %cuq: memref<?xi32>, %cuk: memref<?xi32>) attributes {rocke.seqlens_q = array<i64: 3, 5>} {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) varlen(%cuq, %cuk) {max_seqlen_q = 5, max_seqlen_k = 5}
    : memref<?x2x32xf32>, memref<?x2x32xf32>, memref<?x2x32xf32> -> memref<?x2x32xf32>, stats(memref<2x?xf32>) varlen(memref<?xi32>, memref<?xi32>)
  return
}
