// RUN: rocke-run --split-input-file %s | FileCheck %s
// RUN: rocke-run --split-input-file --lowering='%warp_host' %s | FileCheck %s
// RUN: rocke-run --split-input-file --lowering='%tiled_host' %s | FileCheck %s
// RUN: rocke-run --split-input-file --lowering='%tiled_mfma_host' %s | FileCheck %s
// To check another lowering against the same cases, add one RUN line with
// --lowering='<its pipeline>,fmha-lower-to-loops' (the trailing
// fmha-lower-to-loops lowers whatever op the strategy leaves alone).
//
// Head counts (Hq = Hkv, GQA Hq = 4 / Hkv = 2, MQA Hkv = 1) and head dims
// (64, 128, Dqk != Dv), on lone forwards and backwards and on fwd+bwd. A lone
// backward gets O and the statistics from the float64 forward.

// CHECK-LABEL: case 0: fwd+bwd f32 B=1 Sq=17 Sk=17 Hq=4 Hkv=2 Dqk=64 Dv=64 mask=#fmha.mask<causal> stats=lse
// CHECK-NEXT: {{^}}O {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}lse {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: case 0: PASS
func.func @case0(%q: memref<1x17x4x64xf32>, %k: memref<1x17x2x64xf32>, %v: memref<1x17x2x64xf32>, %o: memref<1x17x4x64xf32>, %do: memref<1x17x4x64xf32>, %lse: memref<1x4x17xf32>, %dq: memref<1x17x4x64xf32>, %dk: memref<1x17x2x64xf32>, %dv: memref<1x17x2x64xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) {mask = #fmha.mask<causal>}
    : memref<1x17x4x64xf32>, memref<1x17x2x64xf32>, memref<1x17x2x64xf32> -> memref<1x17x4x64xf32>, stats(memref<1x4x17xf32>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv {mask = #fmha.mask<causal>}
    : memref<1x17x4x64xf32>, memref<1x17x2x64xf32>, memref<1x17x2x64xf32>, memref<1x17x4x64xf32>, memref<1x17x4x64xf32>, stats(memref<1x4x17xf32>)
      -> memref<1x17x4x64xf32>, memref<1x17x2x64xf32>, memref<1x17x2x64xf32>
  return
}

// -----

// CHECK-LABEL: case 1: fwd+bwd f32 B=1 Sq=17 Sk=100 Hq=4 Hkv=1 Dqk=64 Dv=64 mask=#fmha.mask<sliding_window, alignment = bottom_right, left = 20, right = 5> stats=lse
// CHECK-NEXT: {{^}}O {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}lse {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: masked  0 empty query rows, 63 unseen keys: 0 inexact elements PASS
// CHECK-NEXT: case 1: PASS
func.func @case1(%q: memref<1x17x4x64xf32>, %k: memref<1x100x1x64xf32>, %v: memref<1x100x1x64xf32>, %o: memref<1x17x4x64xf32>, %do: memref<1x17x4x64xf32>, %lse: memref<1x4x17xf32>, %dq: memref<1x17x4x64xf32>, %dk: memref<1x100x1x64xf32>, %dv: memref<1x100x1x64xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) {mask = #fmha.mask<sliding_window, alignment = bottom_right, left = 20, right = 5>}
    : memref<1x17x4x64xf32>, memref<1x100x1x64xf32>, memref<1x100x1x64xf32> -> memref<1x17x4x64xf32>, stats(memref<1x4x17xf32>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv {mask = #fmha.mask<sliding_window, alignment = bottom_right, left = 20, right = 5>}
    : memref<1x17x4x64xf32>, memref<1x100x1x64xf32>, memref<1x100x1x64xf32>, memref<1x17x4x64xf32>, memref<1x17x4x64xf32>, stats(memref<1x4x17xf32>)
      -> memref<1x17x4x64xf32>, memref<1x100x1x64xf32>, memref<1x100x1x64xf32>
  return
}

// -----

// CHECK-LABEL: case 2: bwd f32 B=1 Sq=17 Sk=17 Hq=4 Hkv=4 Dqk=128 Dv=128 mask=#fmha.mask<none> stats=lse
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: case 2: PASS
func.func @case2(%q: memref<1x17x4x128xf32>, %k: memref<1x17x4x128xf32>, %v: memref<1x17x4x128xf32>, %o: memref<1x17x4x128xf32>, %do: memref<1x17x4x128xf32>, %lse: memref<1x4x17xf32>, %dq: memref<1x17x4x128xf32>, %dk: memref<1x17x4x128xf32>, %dv: memref<1x17x4x128xf32>) {
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv
    : memref<1x17x4x128xf32>, memref<1x17x4x128xf32>, memref<1x17x4x128xf32>, memref<1x17x4x128xf32>, memref<1x17x4x128xf32>, stats(memref<1x4x17xf32>)
      -> memref<1x17x4x128xf32>, memref<1x17x4x128xf32>, memref<1x17x4x128xf32>
  return
}

// -----

// CHECK-LABEL: case 3: bwd f32 B=1 Sq=17 Sk=17 Hq=4 Hkv=2 Dqk=128 Dv=64 mask=#fmha.mask<causal> stats=lse
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: case 3: PASS
func.func @case3(%q: memref<1x17x4x128xf32>, %k: memref<1x17x2x128xf32>, %v: memref<1x17x2x64xf32>, %o: memref<1x17x4x64xf32>, %do: memref<1x17x4x64xf32>, %lse: memref<1x4x17xf32>, %dq: memref<1x17x4x128xf32>, %dk: memref<1x17x2x128xf32>, %dv: memref<1x17x2x64xf32>) {
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv {mask = #fmha.mask<causal>}
    : memref<1x17x4x128xf32>, memref<1x17x2x128xf32>, memref<1x17x2x64xf32>, memref<1x17x4x64xf32>, memref<1x17x4x64xf32>, stats(memref<1x4x17xf32>)
      -> memref<1x17x4x128xf32>, memref<1x17x2x128xf32>, memref<1x17x2x64xf32>
  return
}

// -----

// CHECK-LABEL: case 4: fwd f32 B=1 Sq=17 Sk=17 Hq=4 Hkv=1 Dqk=64 Dv=128 mask=#fmha.mask<one_sided_window, left = 6> stats=lse
// CHECK-NEXT: {{^}}O {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}lse {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: case 4: PASS
func.func @case4(%q: memref<1x17x4x64xf32>, %k: memref<1x17x1x64xf32>, %v: memref<1x17x1x128xf32>, %o: memref<1x17x4x128xf32>, %lse: memref<1x4x17xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) {mask = #fmha.mask<one_sided_window, left = 6>}
    : memref<1x17x4x64xf32>, memref<1x17x1x64xf32>, memref<1x17x1x128xf32> -> memref<1x17x4x128xf32>, stats(memref<1x4x17xf32>)
  return
}

// -----

// CHECK-LABEL: case 5: bwd f32 B=1 Sq=100 Sk=17 Hq=4 Hkv=1 Dqk=64 Dv=64 mask=#fmha.mask<causal, alignment = bottom_right> stats=lse
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: masked  83 empty query rows, 0 unseen keys: 0 inexact elements PASS
// CHECK-NEXT: case 5: PASS
func.func @case5(%q: memref<1x100x4x64xf32>, %k: memref<1x17x1x64xf32>, %v: memref<1x17x1x64xf32>, %o: memref<1x100x4x64xf32>, %do: memref<1x100x4x64xf32>, %lse: memref<1x4x100xf32>, %dq: memref<1x100x4x64xf32>, %dk: memref<1x17x1x64xf32>, %dv: memref<1x17x1x64xf32>) {
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv {mask = #fmha.mask<causal, alignment = bottom_right>}
    : memref<1x100x4x64xf32>, memref<1x17x1x64xf32>, memref<1x17x1x64xf32>, memref<1x100x4x64xf32>, memref<1x100x4x64xf32>, stats(memref<1x4x100xf32>)
      -> memref<1x100x4x64xf32>, memref<1x17x1x64xf32>, memref<1x17x1x64xf32>
  return
}

// -----

// CHECK-LABEL: case 6: fwd f32 B=3 Sq=17 Sk=100 Hq=4 Hkv=2 Dqk=128 Dv=128 mask=#fmha.mask<none> stats=lse
// CHECK-NEXT: {{^}}O {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}lse {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: case 6: PASS
func.func @case6(%q: memref<3x17x4x128xf32>, %k: memref<3x100x2x128xf32>, %v: memref<3x100x2x128xf32>, %o: memref<3x17x4x128xf32>, %lse: memref<3x4x17xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
    : memref<3x17x4x128xf32>, memref<3x100x2x128xf32>, memref<3x100x2x128xf32> -> memref<3x17x4x128xf32>, stats(memref<3x4x17xf32>)
  return
}
