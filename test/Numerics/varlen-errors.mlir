// RUN: not rocke-run --split-input-file %s 2>&1 | FileCheck %s
// RUN: not rocke-run %S/Inputs/varlen-fwd.mlir --seq-q=8 2>&1 | FileCheck %s --check-prefix=SEQ
// RUN: not rocke-run %S/Inputs/varlen-fwd.mlir --fd-check 2>&1 | FileCheck %s --check-prefix=FD
// RUN: rocke-run --help | FileCheck %s --check-prefix=HELP
//
// rocke-run's varlen lengths (rocke.seqlens_q / rocke.seqlens_k): every bad
// statement of them is a diagnostic and a non-zero exit.

// SEQ: error: --seq-q does not apply to a varlen batch: the function's rocke.seqlens_q / rocke.seqlens_k give its sequence lengths
// FD: error: --fd-check checks dense batches; a varlen one is checked against the reference sequence by sequence
// HELP: rocke.seqlens_q = array<i64: 3, 0, 17>

// CHECK: error: a varlen batch needs its sequence lengths: rocke.seqlens_q = array<i64: ...> (and rocke.seqlens_k where the key lengths differ)
// CHECK: case 0: FAIL
func.func @no_lengths(%q: memref<?x2x32xf32>, %k: memref<?x2x32xf32>, %v: memref<?x2x32xf32>, %o: memref<?x2x32xf32>, %lse: memref<2x?xf32>, %cuq: memref<?xi32>, %cuk: memref<?xi32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) varlen(%cuq, %cuk) {max_seqlen_q = 5, max_seqlen_k = 5}
    : memref<?x2x32xf32>, memref<?x2x32xf32>, memref<?x2x32xf32> -> memref<?x2x32xf32>, stats(memref<2x?xf32>) varlen(memref<?xi32>, memref<?xi32>)
  return
}

// -----

// CHECK: error: rocke.seqlens_q / rocke.seqlens_k give the lengths of a varlen batch; the fmha ops have no varlen clause
// CHECK: case 1: FAIL
func.func @dense(%q: memref<1x5x2x32xf32>, %k: memref<1x5x2x32xf32>, %v: memref<1x5x2x32xf32>, %o: memref<1x5x2x32xf32>, %lse: memref<1x2x5xf32>) attributes {rocke.seqlens_q = array<i64: 5>} {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
    : memref<1x5x2x32xf32>, memref<1x5x2x32xf32>, memref<1x5x2x32xf32> -> memref<1x5x2x32xf32>, stats(memref<1x2x5xf32>)
  return
}

// -----

// CHECK: error: rocke.seqlens_k: sequence 1 has length 6, outside [0, max_seqlen_k = 5]
// CHECK: case 2: FAIL
func.func @past_max(%q: memref<?x2x32xf32>, %k: memref<?x2x32xf32>, %v: memref<?x2x32xf32>, %o: memref<?x2x32xf32>, %lse: memref<2x?xf32>, %cuq: memref<?xi32>, %cuk: memref<?xi32>) attributes {rocke.seqlens_q = array<i64: 3, 5>, rocke.seqlens_k = array<i64: 3, 6>} {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) varlen(%cuq, %cuk) {max_seqlen_q = 5, max_seqlen_k = 5}
    : memref<?x2x32xf32>, memref<?x2x32xf32>, memref<?x2x32xf32> -> memref<?x2x32xf32>, stats(memref<2x?xf32>) varlen(memref<?xi32>, memref<?xi32>)
  return
}

// -----

// CHECK: error: rocke.seqlens_q and rocke.seqlens_k must give the same number (at least 1) of sequences, got 2 and 1
// CHECK: case 3: FAIL
func.func @counts(%q: memref<?x2x32xf32>, %k: memref<?x2x32xf32>, %v: memref<?x2x32xf32>, %o: memref<?x2x32xf32>, %lse: memref<2x?xf32>, %cuq: memref<?xi32>, %cuk: memref<?xi32>) attributes {rocke.seqlens_q = array<i64: 3, 5>, rocke.seqlens_k = array<i64: 3>} {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) varlen(%cuq, %cuk) {max_seqlen_q = 5, max_seqlen_k = 5}
    : memref<?x2x32xf32>, memref<?x2x32xf32>, memref<?x2x32xf32> -> memref<?x2x32xf32>, stats(memref<2x?xf32>) varlen(memref<?xi32>, memref<?xi32>)
  return
}

// -----

// CHECK: error: rocke.seqlens_q sums to 7 tokens; the memrefs have 8
// CHECK: case 4: FAIL
func.func @static_tokens(%q: memref<8x2x32xf32>, %k: memref<8x2x32xf32>, %v: memref<8x2x32xf32>, %o: memref<8x2x32xf32>, %lse: memref<2x8xf32>, %cuq: memref<?xi32>, %cuk: memref<?xi32>) attributes {rocke.seqlens_q = array<i64: 3, 4>, rocke.seqlens_k = array<i64: 3, 5>} {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) varlen(%cuq, %cuk)
    : memref<8x2x32xf32>, memref<8x2x32xf32>, memref<8x2x32xf32> -> memref<8x2x32xf32>, stats(memref<2x8xf32>) varlen(memref<?xi32>, memref<?xi32>)
  return
}

// -----

// CHECK: error: cu_seqlens_q has 4 elements; rocke.seqlens_q gives 2 sequences
// CHECK: case 5: FAIL
func.func @static_offsets(%q: memref<?x2x32xf32>, %k: memref<?x2x32xf32>, %v: memref<?x2x32xf32>, %o: memref<?x2x32xf32>, %lse: memref<2x?xf32>, %cuq: memref<4xi32>, %cuk: memref<4xi32>) attributes {rocke.seqlens_q = array<i64: 3, 5>} {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) varlen(%cuq, %cuk) {max_seqlen_q = 5, max_seqlen_k = 5}
    : memref<?x2x32xf32>, memref<?x2x32xf32>, memref<?x2x32xf32> -> memref<?x2x32xf32>, stats(memref<2x?xf32>) varlen(memref<4xi32>, memref<4xi32>)
  return
}

// -----

// CHECK: error: rocke.seqlens_q has no token at all; a memref needs one
// CHECK: case 6: FAIL
func.func @no_tokens(%q: memref<?x2x32xf32>, %k: memref<?x2x32xf32>, %v: memref<?x2x32xf32>, %o: memref<?x2x32xf32>, %lse: memref<2x?xf32>, %cuq: memref<?xi32>, %cuk: memref<?xi32>) attributes {rocke.seqlens_q = array<i64: 0, 0>, rocke.seqlens_k = array<i64: 3, 5>} {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) varlen(%cuq, %cuk) {max_seqlen_q = 5, max_seqlen_k = 5}
    : memref<?x2x32xf32>, memref<?x2x32xf32>, memref<?x2x32xf32> -> memref<?x2x32xf32>, stats(memref<2x?xf32>) varlen(memref<?xi32>, memref<?xi32>)
  return
}
