// A forward on dynamic batch and sequence lengths (used by errors.mlir).
func.func @fwd(%q: memref<?x?x2x32xf32>, %k: memref<?x?x2x32xf32>,
               %v: memref<?x?x2x32xf32>, %o: memref<?x?x2x32xf32>,
               %lse: memref<?x2x?xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
    : memref<?x?x2x32xf32>, memref<?x?x2x32xf32>, memref<?x?x2x32xf32>
      -> memref<?x?x2x32xf32>, stats(memref<?x2x?xf32>)
  return
}
