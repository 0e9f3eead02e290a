// RUN: rocke-run --split-input-file %s | FileCheck %s
// RUN: rocke-run --split-input-file --lowering='%tiled_host' %s | FileCheck %s
// RUN: rocke-run --split-input-file --lowering='%fwd_value_rows_host' %s | FileCheck %s
// (the third: K and V fetched into registers a block ahead, as gfx942 and
// gfx950 do; tools/fuzz.sh found their row length read as dim 3 of a packed
// [T, H, D] memref: an assertion, undefined behaviour in release builds)
//
// Packed variable-length batches (the varlen clause): each case's function
// states its sequences' lengths (rocke.seqlens_q / rocke.seqlens_k), from
// which rocke-run makes cu_seqlens and checks every sequence against the
// float64 reference. f32, D = 32 unless stated.

// Bottom-right causal with GQA (Hq = 2, Hkv = 1): an empty query sequence, one of
// length 1 with no keys, one with Sq = 40 > Sk = 33 whose first 7 rows see no
// key, and Sq = Sk = 17.
// CHECK-LABEL: case 0: fwd+bwd f32 varlen Sq=[3, 0, 1, 40, 17] Sk=[5, 4, 0, 33, 17] Hq=2 Hkv=1 Dqk=32 Dv=32 mask=#fmha.mask<causal, alignment = bottom_right> stats=lse
// CHECK-NEXT: {{^}}O {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}lse {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: masked  8 empty query rows, 4 unseen keys: 0 inexact elements PASS
// CHECK-NEXT: case 0: PASS
func.func @br_causal_gqa(%q: memref<?x2x32xf32>, %k: memref<?x1x32xf32>, %v: memref<?x1x32xf32>, %o: memref<?x2x32xf32>, %do: memref<?x2x32xf32>, %s0: memref<2x?xf32>, %cuq: memref<?xi32>, %cuk: memref<?xi32>, %dq: memref<?x2x32xf32>, %dk: memref<?x1x32xf32>, %dv: memref<?x1x32xf32>) attributes {rocke.seqlens_q = array<i64: 3, 0, 1, 40, 17>, rocke.seqlens_k = array<i64: 5, 4, 0, 33, 17>} {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%s0) varlen(%cuq, %cuk) {mask = #fmha.mask<causal, alignment = bottom_right>, max_seqlen_q = 40, max_seqlen_k = 33}
    : memref<?x2x32xf32>, memref<?x1x32xf32>, memref<?x1x32xf32> -> memref<?x2x32xf32>, stats(memref<2x?xf32>) varlen(memref<?xi32>, memref<?xi32>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%s0) varlen(%cuq, %cuk) -> %dq, %dk, %dv {mask = #fmha.mask<causal, alignment = bottom_right>, max_seqlen_q = 40, max_seqlen_k = 33}
    : memref<?x2x32xf32>, memref<?x1x32xf32>, memref<?x1x32xf32>, memref<?x2x32xf32>, memref<?x2x32xf32>, stats(memref<2x?xf32>) varlen(memref<?xi32>, memref<?xi32>)
      -> memref<?x2x32xf32>, memref<?x1x32xf32>, memref<?x1x32xf32>
  return
}

// -----

// Top-left causal: Sq < Sk leaves keys no query sees; sequences shorter than
// one tile and longer than several.
// CHECK-LABEL: case 1: fwd+bwd f32 varlen Sq=[5, 70, 1] Sk=[9, 36, 2] Hq=2 Hkv=2 Dqk=32 Dv=32 mask=#fmha.mask<causal> stats=lse
// CHECK-NEXT: {{^}}O {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}lse {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: masked  0 empty query rows, 5 unseen keys: 0 inexact elements PASS
// CHECK-NEXT: case 1: PASS
func.func @tl_causal(%q: memref<?x2x32xf32>, %k: memref<?x2x32xf32>, %v: memref<?x2x32xf32>, %o: memref<?x2x32xf32>, %do: memref<?x2x32xf32>, %s0: memref<2x?xf32>, %cuq: memref<?xi32>, %cuk: memref<?xi32>, %dq: memref<?x2x32xf32>, %dk: memref<?x2x32xf32>, %dv: memref<?x2x32xf32>) attributes {rocke.seqlens_q = array<i64: 5, 70, 1>, rocke.seqlens_k = array<i64: 9, 36, 2>} {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%s0) varlen(%cuq, %cuk) {mask = #fmha.mask<causal>, max_seqlen_q = 70, max_seqlen_k = 36}
    : memref<?x2x32xf32>, memref<?x2x32xf32>, memref<?x2x32xf32> -> memref<?x2x32xf32>, stats(memref<2x?xf32>) varlen(memref<?xi32>, memref<?xi32>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%s0) varlen(%cuq, %cuk) -> %dq, %dk, %dv {mask = #fmha.mask<causal>, max_seqlen_q = 70, max_seqlen_k = 36}
    : memref<?x2x32xf32>, memref<?x2x32xf32>, memref<?x2x32xf32>, memref<?x2x32xf32>, memref<?x2x32xf32>, stats(memref<2x?xf32>) varlen(memref<?xi32>, memref<?xi32>)
      -> memref<?x2x32xf32>, memref<?x2x32xf32>, memref<?x2x32xf32>
  return
}

// -----

// A sliding window with the log2_max_sum statistics, static shapes: the
// maxima default to the token counts.
// CHECK-LABEL: case 2: fwd+bwd f32 varlen Sq=[20, 1, 33] Sk=[25, 7, 33] Hq=2 Hkv=2 Dqk=32 Dv=32 mask=#fmha.mask<sliding_window, left = 5, right = 3> stats=log2_max_sum
// CHECK-NEXT: {{^}}O {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}M {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}L {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: masked  0 empty query rows, 5 unseen keys: 0 inexact elements PASS
// CHECK-NEXT: case 2: PASS
func.func @window_log2(%q: memref<54x2x32xf32>, %k: memref<65x2x32xf32>, %v: memref<65x2x32xf32>, %o: memref<54x2x32xf32>, %do: memref<54x2x32xf32>, %s0: memref<2x54xf32>, %s1: memref<2x54xf32>, %cuq: memref<4xi32>, %cuk: memref<4xi32>, %dq: memref<54x2x32xf32>, %dk: memref<65x2x32xf32>, %dv: memref<65x2x32xf32>) attributes {rocke.seqlens_q = array<i64: 20, 1, 33>, rocke.seqlens_k = array<i64: 25, 7, 33>} {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%s0, %s1) varlen(%cuq, %cuk) {mask = #fmha.mask<sliding_window, left = 5, right = 3>, stats_encoding = #fmha.stats<log2_max_sum>}
    : memref<54x2x32xf32>, memref<65x2x32xf32>, memref<65x2x32xf32> -> memref<54x2x32xf32>, stats(memref<2x54xf32>, memref<2x54xf32>) varlen(memref<4xi32>, memref<4xi32>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%s0, %s1) varlen(%cuq, %cuk) -> %dq, %dk, %dv {mask = #fmha.mask<sliding_window, left = 5, right = 3>, stats_encoding = #fmha.stats<log2_max_sum>}
    : memref<54x2x32xf32>, memref<65x2x32xf32>, memref<65x2x32xf32>, memref<54x2x32xf32>, memref<54x2x32xf32>, stats(memref<2x54xf32>, memref<2x54xf32>) varlen(memref<4xi32>, memref<4xi32>)
      -> memref<54x2x32xf32>, memref<65x2x32xf32>, memref<65x2x32xf32>
  return
}

// -----

// A lone deterministic backward, no mask, GQA 4:2.
// CHECK-LABEL: case 3: bwd f32 varlen Sq=[17, 2, 0, 35] Sk=[33, 1, 3, 16] Hq=4 Hkv=2 Dqk=32 Dv=32 mask=#fmha.mask<none> stats=lse
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: masked  0 empty query rows, 3 unseen keys: 0 inexact elements PASS
// CHECK-NEXT: case 3: PASS
func.func @deterministic(%q: memref<?x4x32xf32>, %k: memref<?x2x32xf32>, %v: memref<?x2x32xf32>, %o: memref<?x4x32xf32>, %do: memref<?x4x32xf32>, %s0: memref<4x?xf32>, %cuq: memref<?xi32>, %cuk: memref<?xi32>, %dq: memref<?x4x32xf32>, %dk: memref<?x2x32xf32>, %dv: memref<?x2x32xf32>) attributes {rocke.seqlens_q = array<i64: 17, 2, 0, 35>, rocke.seqlens_k = array<i64: 33, 1, 3, 16>} {
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%s0) varlen(%cuq, %cuk) -> %dq, %dk, %dv {deterministic, max_seqlen_q = 35, max_seqlen_k = 33}
    : memref<?x4x32xf32>, memref<?x2x32xf32>, memref<?x2x32xf32>, memref<?x4x32xf32>, memref<?x4x32xf32>, stats(memref<4x?xf32>) varlen(memref<?xi32>, memref<?xi32>)
      -> memref<?x4x32xf32>, memref<?x2x32xf32>, memref<?x2x32xf32>
  return
}

// -----

// A lone forward with a bottom-right one-sided window (the origin system's
// W); the backward's windows are case 2's.
// CHECK-LABEL: case 4: fwd f32 varlen Sq=[9, 30] Sk=[30, 9] Hq=2 Hkv=1 Dqk=32 Dv=32 mask=#fmha.mask<one_sided_window, alignment = bottom_right, left = 6> stats=lse
// CHECK-NEXT: {{^}}O {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}lse {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: masked  0 empty query rows, 16 unseen keys: 0 inexact elements PASS
// CHECK-NEXT: case 4: PASS
func.func @one_sided(%q: memref<?x2x32xf32>, %k: memref<?x1x32xf32>, %v: memref<?x1x32xf32>, %o: memref<?x2x32xf32>, %s0: memref<2x?xf32>, %cuq: memref<?xi32>, %cuk: memref<?xi32>) attributes {rocke.seqlens_q = array<i64: 9, 30>, rocke.seqlens_k = array<i64: 30, 9>} {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%s0) varlen(%cuq, %cuk) {mask = #fmha.mask<one_sided_window, alignment = bottom_right, left = 6>, max_seqlen_q = 30, max_seqlen_k = 30}
    : memref<?x2x32xf32>, memref<?x1x32xf32>, memref<?x1x32xf32> -> memref<?x2x32xf32>, stats(memref<2x?xf32>) varlen(memref<?xi32>, memref<?xi32>)
  return
}
