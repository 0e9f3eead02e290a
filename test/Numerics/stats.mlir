// RUN: rocke-run --split-input-file %s | FileCheck %s
// RUN: rocke-run --split-input-file --lowering='%warp_host' %s | FileCheck %s
// RUN: rocke-run --split-input-file --lowering='%tiled_host' %s | FileCheck %s
// RUN: rocke-run --split-input-file --lowering='%tiled_mfma_host' %s | FileCheck %s
// To check another lowering against the same cases, add one RUN line with
// --lowering='<its pipeline>,fmha-lower-to-loops' (the trailing
// fmha-lower-to-loops lowers whatever op the strategy leaves alone).
//
// Both statistics encodings: lse and log2_max_sum (row max M and row sum L
// of exp2(s * scale * log2e - M)); fully masked rows store lse = M = -inf and
// L = 0 exactly.

// CHECK-LABEL: case 0: fwd+bwd f32 B=1 Sq=100 Sk=17 Hq=2 Hkv=1 Dqk=32 Dv=32 mask=#fmha.mask<causal, alignment = bottom_right> stats=log2_max_sum
// CHECK-NEXT: {{^}}O {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}M {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}L {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: masked  83 empty query rows, 0 unseen keys: 0 inexact elements PASS
// CHECK-NEXT: case 0: PASS
func.func @case0(%q: memref<1x100x2x32xf32>, %k: memref<1x17x1x32xf32>, %v: memref<1x17x1x32xf32>, %o: memref<1x100x2x32xf32>, %do: memref<1x100x2x32xf32>, %m: memref<1x2x100xf32>, %l: memref<1x2x100xf32>, %dq: memref<1x100x2x32xf32>, %dk: memref<1x17x1x32xf32>, %dv: memref<1x17x1x32xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%m, %l) {mask = #fmha.mask<causal, alignment = bottom_right>, stats_encoding = #fmha.stats<log2_max_sum>}
    : memref<1x100x2x32xf32>, memref<1x17x1x32xf32>, memref<1x17x1x32xf32> -> memref<1x100x2x32xf32>, stats(memref<1x2x100xf32>, memref<1x2x100xf32>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%m, %l) -> %dq, %dk, %dv {mask = #fmha.mask<causal, alignment = bottom_right>, stats_encoding = #fmha.stats<log2_max_sum>}
    : memref<1x100x2x32xf32>, memref<1x17x1x32xf32>, memref<1x17x1x32xf32>, memref<1x100x2x32xf32>, memref<1x100x2x32xf32>, stats(memref<1x2x100xf32>, memref<1x2x100xf32>)
      -> memref<1x100x2x32xf32>, memref<1x17x1x32xf32>, memref<1x17x1x32xf32>
  return
}

// -----

// CHECK-LABEL: case 1: bwd f16 B=1 Sq=17 Sk=17 Hq=4 Hkv=2 Dqk=32 Dv=32 mask=#fmha.mask<sliding_window, left = 2, right = 6> stats=log2_max_sum
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: case 1: PASS
func.func @case1(%q: memref<1x17x4x32xf16>, %k: memref<1x17x2x32xf16>, %v: memref<1x17x2x32xf16>, %o: memref<1x17x4x32xf16>, %do: memref<1x17x4x32xf16>, %m: memref<1x4x17xf32>, %l: memref<1x4x17xf32>, %dq: memref<1x17x4x32xf16>, %dk: memref<1x17x2x32xf16>, %dv: memref<1x17x2x32xf16>) {
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%m, %l) -> %dq, %dk, %dv {mask = #fmha.mask<sliding_window, left = 2, right = 6>, stats_encoding = #fmha.stats<log2_max_sum>}
    : memref<1x17x4x32xf16>, memref<1x17x2x32xf16>, memref<1x17x2x32xf16>, memref<1x17x4x32xf16>, memref<1x17x4x32xf16>, stats(memref<1x4x17xf32>, memref<1x4x17xf32>)
      -> memref<1x17x4x32xf16>, memref<1x17x2x32xf16>, memref<1x17x2x32xf16>
  return
}

// -----

// CHECK-LABEL: case 2: fwd f32 B=1 Sq=100 Sk=100 Hq=2 Hkv=2 Dqk=32 Dv=32 mask=#fmha.mask<sliding_window, alignment = bottom_right, left = 3, right = 3> stats=log2_max_sum
// CHECK-NEXT: {{^}}O {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}M {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}L {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: case 2: PASS
func.func @case2(%q: memref<1x100x2x32xf32>, %k: memref<1x100x2x32xf32>, %v: memref<1x100x2x32xf32>, %o: memref<1x100x2x32xf32>, %m: memref<1x2x100xf32>, %l: memref<1x2x100xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%m, %l) {mask = #fmha.mask<sliding_window, alignment = bottom_right, left = 3, right = 3>, stats_encoding = #fmha.stats<log2_max_sum>}
    : memref<1x100x2x32xf32>, memref<1x100x2x32xf32>, memref<1x100x2x32xf32> -> memref<1x100x2x32xf32>, stats(memref<1x2x100xf32>, memref<1x2x100xf32>)
  return
}

// -----

// CHECK-LABEL: case 3: bwd f32 B=1 Sq=17 Sk=100 Hq=2 Hkv=2 Dqk=32 Dv=32 mask=#fmha.mask<sliding_window, alignment = bottom_right, left = 1, right = 0> stats=lse
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: masked  0 empty query rows, 82 unseen keys: 0 inexact elements PASS
// CHECK-NEXT: case 3: PASS
func.func @case3(%q: memref<1x17x2x32xf32>, %k: memref<1x100x2x32xf32>, %v: memref<1x100x2x32xf32>, %o: memref<1x17x2x32xf32>, %do: memref<1x17x2x32xf32>, %lse: memref<1x2x17xf32>, %dq: memref<1x17x2x32xf32>, %dk: memref<1x100x2x32xf32>, %dv: memref<1x100x2x32xf32>) {
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv {mask = #fmha.mask<sliding_window, alignment = bottom_right, left = 1, right = 0>}
    : memref<1x17x2x32xf32>, memref<1x100x2x32xf32>, memref<1x100x2x32xf32>, memref<1x17x2x32xf32>, memref<1x17x2x32xf32>, stats(memref<1x2x17xf32>)
      -> memref<1x17x2x32xf32>, memref<1x100x2x32xf32>, memref<1x100x2x32xf32>
  return
}

// -----

// CHECK-LABEL: case 4: bwd f32 B=1 Sq=100 Sk=17 Hq=2 Hkv=2 Dqk=128 Dv=128 mask=#fmha.mask<causal, alignment = bottom_right> stats=log2_max_sum
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: masked  83 empty query rows, 0 unseen keys: 0 inexact elements PASS
// CHECK-NEXT: case 4: PASS
func.func @case4(%q: memref<1x100x2x128xf32>, %k: memref<1x17x2x128xf32>, %v: memref<1x17x2x128xf32>, %o: memref<1x100x2x128xf32>, %do: memref<1x100x2x128xf32>, %m: memref<1x2x100xf32>, %l: memref<1x2x100xf32>, %dq: memref<1x100x2x128xf32>, %dk: memref<1x17x2x128xf32>, %dv: memref<1x17x2x128xf32>) {
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%m, %l) -> %dq, %dk, %dv {mask = #fmha.mask<causal, alignment = bottom_right>, stats_encoding = #fmha.stats<log2_max_sum>}
    : memref<1x100x2x128xf32>, memref<1x17x2x128xf32>, memref<1x17x2x128xf32>, memref<1x100x2x128xf32>, memref<1x100x2x128xf32>, stats(memref<1x2x100xf32>, memref<1x2x100xf32>)
      -> memref<1x100x2x128xf32>, memref<1x17x2x128xf32>, memref<1x17x2x128xf32>
  return
}

// -----

// CHECK-LABEL: case 5: fwd+bwd bf16 B=1 Sq=17 Sk=17 Hq=2 Hkv=1 Dqk=32 Dv=32 mask=#fmha.mask<one_sided_window, left = 4> stats=log2_max_sum
// CHECK-NEXT: {{^}}O {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}M {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}L {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: case 5: PASS
func.func @case5(%q: memref<1x17x2x32xbf16>, %k: memref<1x17x1x32xbf16>, %v: memref<1x17x1x32xbf16>, %o: memref<1x17x2x32xbf16>, %do: memref<1x17x2x32xbf16>, %m: memref<1x2x17xf32>, %l: memref<1x2x17xf32>, %dq: memref<1x17x2x32xbf16>, %dk: memref<1x17x1x32xbf16>, %dv: memref<1x17x1x32xbf16>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%m, %l) {mask = #fmha.mask<one_sided_window, left = 4>, stats_encoding = #fmha.stats<log2_max_sum>}
    : memref<1x17x2x32xbf16>, memref<1x17x1x32xbf16>, memref<1x17x1x32xbf16> -> memref<1x17x2x32xbf16>, stats(memref<1x2x17xf32>, memref<1x2x17xf32>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%m, %l) -> %dq, %dk, %dv {mask = #fmha.mask<one_sided_window, left = 4>, stats_encoding = #fmha.stats<log2_max_sum>}
    : memref<1x17x2x32xbf16>, memref<1x17x1x32xbf16>, memref<1x17x1x32xbf16>, memref<1x17x2x32xbf16>, memref<1x17x2x32xbf16>, stats(memref<1x2x17xf32>, memref<1x2x17xf32>)
      -> memref<1x17x2x32xbf16>, memref<1x17x1x32xbf16>, memref<1x17x1x32xbf16>
  return
}
