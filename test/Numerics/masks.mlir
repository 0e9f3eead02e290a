// RUN: rocke-run --split-input-file %s | FileCheck %s
// RUN: rocke-run --split-input-file --lowering='%warp_host' %s | FileCheck %s
// RUN: rocke-run --split-input-file --lowering='%tiled_host' %s | FileCheck %s
// RUN: rocke-run --split-input-file --lowering='%tiled_mfma_host' %s | FileCheck %s
// RUN: rocke-run --split-input-file --lowering='%fwd_sliced_host' %s | FileCheck %s
// To check another lowering against the same cases, add one RUN line with
// --lowering='<its pipeline>,fmha-lower-to-loops' (the trailing
// fmha-lower-to-loops lowers whatever op the strategy leaves alone).
//
// Every mask kind and alignment on a forward feeding a backward (f32,
// B = 2, Sq = Sk = 17, Hq = Hkv = 2, D = 32: the masks do not depend on D,
// which head-dims.mlir and heads.mlir cover).

// CHECK-LABEL: case 0: fwd+bwd f32 B=2 Sq=17 Sk=17 Hq=2 Hkv=2 Dqk=32 Dv=32 mask=#fmha.mask<none> stats=lse
// CHECK-NEXT: {{^}}O {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}lse {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: case 0: PASS
func.func @case0(%q: memref<2x17x2x32xf32>, %k: memref<2x17x2x32xf32>, %v: memref<2x17x2x32xf32>, %o: memref<2x17x2x32xf32>, %do: memref<2x17x2x32xf32>, %lse: memref<2x2x17xf32>, %dq: memref<2x17x2x32xf32>, %dk: memref<2x17x2x32xf32>, %dv: memref<2x17x2x32xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
    : memref<2x17x2x32xf32>, memref<2x17x2x32xf32>, memref<2x17x2x32xf32> -> memref<2x17x2x32xf32>, stats(memref<2x2x17xf32>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv
    : memref<2x17x2x32xf32>, memref<2x17x2x32xf32>, memref<2x17x2x32xf32>, memref<2x17x2x32xf32>, memref<2x17x2x32xf32>, stats(memref<2x2x17xf32>)
      -> memref<2x17x2x32xf32>, memref<2x17x2x32xf32>, memref<2x17x2x32xf32>
  return
}

// -----

// CHECK-LABEL: case 1: fwd+bwd f32 B=2 Sq=17 Sk=17 Hq=2 Hkv=2 Dqk=32 Dv=32 mask=#fmha.mask<causal> stats=lse
// CHECK-NEXT: {{^}}O {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}lse {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: case 1: PASS
func.func @case1(%q: memref<2x17x2x32xf32>, %k: memref<2x17x2x32xf32>, %v: memref<2x17x2x32xf32>, %o: memref<2x17x2x32xf32>, %do: memref<2x17x2x32xf32>, %lse: memref<2x2x17xf32>, %dq: memref<2x17x2x32xf32>, %dk: memref<2x17x2x32xf32>, %dv: memref<2x17x2x32xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) {mask = #fmha.mask<causal>}
    : memref<2x17x2x32xf32>, memref<2x17x2x32xf32>, memref<2x17x2x32xf32> -> memref<2x17x2x32xf32>, stats(memref<2x2x17xf32>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv {mask = #fmha.mask<causal>}
    : memref<2x17x2x32xf32>, memref<2x17x2x32xf32>, memref<2x17x2x32xf32>, memref<2x17x2x32xf32>, memref<2x17x2x32xf32>, stats(memref<2x2x17xf32>)
      -> memref<2x17x2x32xf32>, memref<2x17x2x32xf32>, memref<2x17x2x32xf32>
  return
}

// -----

// CHECK-LABEL: case 2: fwd+bwd f32 B=2 Sq=17 Sk=17 Hq=2 Hkv=2 Dqk=32 Dv=32 mask=#fmha.mask<causal, alignment = bottom_right> stats=lse
// CHECK-NEXT: {{^}}O {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}lse {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: case 2: PASS
func.func @case2(%q: memref<2x17x2x32xf32>, %k: memref<2x17x2x32xf32>, %v: memref<2x17x2x32xf32>, %o: memref<2x17x2x32xf32>, %do: memref<2x17x2x32xf32>, %lse: memref<2x2x17xf32>, %dq: memref<2x17x2x32xf32>, %dk: memref<2x17x2x32xf32>, %dv: memref<2x17x2x32xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) {mask = #fmha.mask<causal, alignment = bottom_right>}
    : memref<2x17x2x32xf32>, memref<2x17x2x32xf32>, memref<2x17x2x32xf32> -> memref<2x17x2x32xf32>, stats(memref<2x2x17xf32>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv {mask = #fmha.mask<causal, alignment = bottom_right>}
    : memref<2x17x2x32xf32>, memref<2x17x2x32xf32>, memref<2x17x2x32xf32>, memref<2x17x2x32xf32>, memref<2x17x2x32xf32>, stats(memref<2x2x17xf32>)
      -> memref<2x17x2x32xf32>, memref<2x17x2x32xf32>, memref<2x17x2x32xf32>
  return
}

// -----

// CHECK-LABEL: case 3: fwd+bwd f32 B=2 Sq=17 Sk=17 Hq=2 Hkv=2 Dqk=32 Dv=32 mask=#fmha.mask<sliding_window, left = 3, right = 2> stats=lse
// CHECK-NEXT: {{^}}O {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}lse {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: case 3: PASS
func.func @case3(%q: memref<2x17x2x32xf32>, %k: memref<2x17x2x32xf32>, %v: memref<2x17x2x32xf32>, %o: memref<2x17x2x32xf32>, %do: memref<2x17x2x32xf32>, %lse: memref<2x2x17xf32>, %dq: memref<2x17x2x32xf32>, %dk: memref<2x17x2x32xf32>, %dv: memref<2x17x2x32xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) {mask = #fmha.mask<sliding_window, left = 3, right = 2>}
    : memref<2x17x2x32xf32>, memref<2x17x2x32xf32>, memref<2x17x2x32xf32> -> memref<2x17x2x32xf32>, stats(memref<2x2x17xf32>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv {mask = #fmha.mask<sliding_window, left = 3, right = 2>}
    : memref<2x17x2x32xf32>, memref<2x17x2x32xf32>, memref<2x17x2x32xf32>, memref<2x17x2x32xf32>, memref<2x17x2x32xf32>, stats(memref<2x2x17xf32>)
      -> memref<2x17x2x32xf32>, memref<2x17x2x32xf32>, memref<2x17x2x32xf32>
  return
}

// -----

// CHECK-LABEL: case 4: fwd+bwd f32 B=2 Sq=17 Sk=17 Hq=2 Hkv=2 Dqk=32 Dv=32 mask=#fmha.mask<sliding_window, alignment = bottom_right, left = 4, right = 0> stats=lse
// CHECK-NEXT: {{^}}O {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}lse {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: case 4: PASS
func.func @case4(%q: memref<2x17x2x32xf32>, %k: memref<2x17x2x32xf32>, %v: memref<2x17x2x32xf32>, %o: memref<2x17x2x32xf32>, %do: memref<2x17x2x32xf32>, %lse: memref<2x2x17xf32>, %dq: memref<2x17x2x32xf32>, %dk: memref<2x17x2x32xf32>, %dv: memref<2x17x2x32xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) {mask = #fmha.mask<sliding_window, alignment = bottom_right, left = 4, right = 0>}
    : memref<2x17x2x32xf32>, memref<2x17x2x32xf32>, memref<2x17x2x32xf32> -> memref<2x17x2x32xf32>, stats(memref<2x2x17xf32>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv {mask = #fmha.mask<sliding_window, alignment = bottom_right, left = 4, right = 0>}
    : memref<2x17x2x32xf32>, memref<2x17x2x32xf32>, memref<2x17x2x32xf32>, memref<2x17x2x32xf32>, memref<2x17x2x32xf32>, stats(memref<2x2x17xf32>)
      -> memref<2x17x2x32xf32>, memref<2x17x2x32xf32>, memref<2x17x2x32xf32>
  return
}

// -----

// CHECK-LABEL: case 5: fwd+bwd f32 B=2 Sq=17 Sk=17 Hq=2 Hkv=2 Dqk=32 Dv=32 mask=#fmha.mask<sliding_window, left = 0, right = 0> stats=lse
// CHECK-NEXT: {{^}}O {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}lse {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: case 5: PASS
func.func @case5(%q: memref<2x17x2x32xf32>, %k: memref<2x17x2x32xf32>, %v: memref<2x17x2x32xf32>, %o: memref<2x17x2x32xf32>, %do: memref<2x17x2x32xf32>, %lse: memref<2x2x17xf32>, %dq: memref<2x17x2x32xf32>, %dk: memref<2x17x2x32xf32>, %dv: memref<2x17x2x32xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) {mask = #fmha.mask<sliding_window, left = 0, right = 0>}
    : memref<2x17x2x32xf32>, memref<2x17x2x32xf32>, memref<2x17x2x32xf32> -> memref<2x17x2x32xf32>, stats(memref<2x2x17xf32>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv {mask = #fmha.mask<sliding_window, left = 0, right = 0>}
    : memref<2x17x2x32xf32>, memref<2x17x2x32xf32>, memref<2x17x2x32xf32>, memref<2x17x2x32xf32>, memref<2x17x2x32xf32>, stats(memref<2x2x17xf32>)
      -> memref<2x17x2x32xf32>, memref<2x17x2x32xf32>, memref<2x17x2x32xf32>
  return
}

// -----

// CHECK-LABEL: case 6: fwd+bwd f32 B=2 Sq=17 Sk=17 Hq=2 Hkv=2 Dqk=32 Dv=32 mask=#fmha.mask<one_sided_window, left = 5> stats=lse
// CHECK-NEXT: {{^}}O {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}lse {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: case 6: PASS
func.func @case6(%q: memref<2x17x2x32xf32>, %k: memref<2x17x2x32xf32>, %v: memref<2x17x2x32xf32>, %o: memref<2x17x2x32xf32>, %do: memref<2x17x2x32xf32>, %lse: memref<2x2x17xf32>, %dq: memref<2x17x2x32xf32>, %dk: memref<2x17x2x32xf32>, %dv: memref<2x17x2x32xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) {mask = #fmha.mask<one_sided_window, left = 5>}
    : memref<2x17x2x32xf32>, memref<2x17x2x32xf32>, memref<2x17x2x32xf32> -> memref<2x17x2x32xf32>, stats(memref<2x2x17xf32>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv {mask = #fmha.mask<one_sided_window, left = 5>}
    : memref<2x17x2x32xf32>, memref<2x17x2x32xf32>, memref<2x17x2x32xf32>, memref<2x17x2x32xf32>, memref<2x17x2x32xf32>, stats(memref<2x2x17xf32>)
      -> memref<2x17x2x32xf32>, memref<2x17x2x32xf32>, memref<2x17x2x32xf32>
  return
}

// -----

// CHECK-LABEL: case 7: fwd+bwd f32 B=2 Sq=17 Sk=17 Hq=2 Hkv=2 Dqk=32 Dv=32 mask=#fmha.mask<one_sided_window, alignment = bottom_right, left = 1> stats=lse
// CHECK-NEXT: {{^}}O {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}lse {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: case 7: PASS
func.func @case7(%q: memref<2x17x2x32xf32>, %k: memref<2x17x2x32xf32>, %v: memref<2x17x2x32xf32>, %o: memref<2x17x2x32xf32>, %do: memref<2x17x2x32xf32>, %lse: memref<2x2x17xf32>, %dq: memref<2x17x2x32xf32>, %dk: memref<2x17x2x32xf32>, %dv: memref<2x17x2x32xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) {mask = #fmha.mask<one_sided_window, alignment = bottom_right, left = 1>}
    : memref<2x17x2x32xf32>, memref<2x17x2x32xf32>, memref<2x17x2x32xf32> -> memref<2x17x2x32xf32>, stats(memref<2x2x17xf32>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv {mask = #fmha.mask<one_sided_window, alignment = bottom_right, left = 1>}
    : memref<2x17x2x32xf32>, memref<2x17x2x32xf32>, memref<2x17x2x32xf32>, memref<2x17x2x32xf32>, memref<2x17x2x32xf32>, stats(memref<2x2x17xf32>)
      -> memref<2x17x2x32xf32>, memref<2x17x2x32xf32>, memref<2x17x2x32xf32>
  return
}

// -----

// The largest window extents the verifier accepts (2^40) see every key, as
// `none` does: the band arithmetic must not overflow (extents near INT64_MAX
// did, and gave non-finite dQ), here or in the float64 reference.
// CHECK-LABEL: case 8: fwd+bwd f32 B=2 Sq=17 Sk=13 Hq=2 Hkv=2 Dqk=32 Dv=32 mask=#fmha.mask<sliding_window, alignment = bottom_right, left = 1099511627776, right = 1099511627776> stats=lse
// CHECK-NEXT: {{^}}O {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}lse {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: case 8: PASS
func.func @case8(%q: memref<2x17x2x32xf32>, %k: memref<2x13x2x32xf32>, %v: memref<2x13x2x32xf32>, %o: memref<2x17x2x32xf32>, %do: memref<2x17x2x32xf32>, %lse: memref<2x2x17xf32>, %dq: memref<2x17x2x32xf32>, %dk: memref<2x13x2x32xf32>, %dv: memref<2x13x2x32xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) {mask = #fmha.mask<sliding_window, alignment = bottom_right, left = 1099511627776, right = 1099511627776>}
    : memref<2x17x2x32xf32>, memref<2x13x2x32xf32>, memref<2x13x2x32xf32> -> memref<2x17x2x32xf32>, stats(memref<2x2x17xf32>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv {mask = #fmha.mask<sliding_window, alignment = bottom_right, left = 1099511627776, right = 1099511627776>}
    : memref<2x17x2x32xf32>, memref<2x13x2x32xf32>, memref<2x13x2x32xf32>, memref<2x17x2x32xf32>, memref<2x17x2x32xf32>, stats(memref<2x2x17xf32>)
      -> memref<2x17x2x32xf32>, memref<2x13x2x32xf32>, memref<2x13x2x32xf32>
  return
}
