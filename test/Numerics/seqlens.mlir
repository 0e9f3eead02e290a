// RUN: rocke-run --split-input-file %s | FileCheck %s
// RUN: rocke-run --split-input-file --lowering='%warp_host' %s | FileCheck %s
// RUN: rocke-run --split-input-file --lowering='%tiled_host' %s | FileCheck %s
// RUN: rocke-run --split-input-file --lowering='%tiled_mfma_host' %s | FileCheck %s
// To check another lowering against the same cases, add one RUN line with
// --lowering='<its pipeline>,fmha-lower-to-loops' (the trailing
// fmha-lower-to-loops lowers whatever op the strategy leaves alone).
//
// Sq != Sk in both directions and lengths 1, 17, 100 that fit no tile.
// Bottom-right masks with Sq > Sk leave query rows without keys (their O, lse
// and dQ must be exactly 0 / -inf); top-left ones with Sq < Sk leave keys no
// query sees (exactly zero dK, dV). f32, Hq = 2, Hkv = 1, D = 32 (lengths do
// not depend on D; head-dims.mlir and heads.mlir cover it).

// CHECK-LABEL: case 0: fwd+bwd f32 B=1 Sq=17 Sk=100 Hq=2 Hkv=1 Dqk=32 Dv=32 mask=#fmha.mask<causal> stats=lse
// CHECK-NEXT: {{^}}O {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}lse {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: masked  0 empty query rows, 83 unseen keys: 0 inexact elements PASS
// CHECK-NEXT: case 0: PASS
func.func @case0(%q: memref<1x17x2x32xf32>, %k: memref<1x100x1x32xf32>, %v: memref<1x100x1x32xf32>, %o: memref<1x17x2x32xf32>, %do: memref<1x17x2x32xf32>, %lse: memref<1x2x17xf32>, %dq: memref<1x17x2x32xf32>, %dk: memref<1x100x1x32xf32>, %dv: memref<1x100x1x32xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) {mask = #fmha.mask<causal>}
    : memref<1x17x2x32xf32>, memref<1x100x1x32xf32>, memref<1x100x1x32xf32> -> memref<1x17x2x32xf32>, stats(memref<1x2x17xf32>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv {mask = #fmha.mask<causal>}
    : memref<1x17x2x32xf32>, memref<1x100x1x32xf32>, memref<1x100x1x32xf32>, memref<1x17x2x32xf32>, memref<1x17x2x32xf32>, stats(memref<1x2x17xf32>)
      -> memref<1x17x2x32xf32>, memref<1x100x1x32xf32>, memref<1x100x1x32xf32>
  return
}

// -----

// CHECK-LABEL: case 1: fwd+bwd f32 B=1 Sq=17 Sk=100 Hq=2 Hkv=1 Dqk=32 Dv=32 mask=#fmha.mask<causal, alignment = bottom_right> stats=lse
// CHECK-NEXT: {{^}}O {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}lse {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: case 1: PASS
func.func @case1(%q: memref<1x17x2x32xf32>, %k: memref<1x100x1x32xf32>, %v: memref<1x100x1x32xf32>, %o: memref<1x17x2x32xf32>, %do: memref<1x17x2x32xf32>, %lse: memref<1x2x17xf32>, %dq: memref<1x17x2x32xf32>, %dk: memref<1x100x1x32xf32>, %dv: memref<1x100x1x32xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) {mask = #fmha.mask<causal, alignment = bottom_right>}
    : memref<1x17x2x32xf32>, memref<1x100x1x32xf32>, memref<1x100x1x32xf32> -> memref<1x17x2x32xf32>, stats(memref<1x2x17xf32>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv {mask = #fmha.mask<causal, alignment = bottom_right>}
    : memref<1x17x2x32xf32>, memref<1x100x1x32xf32>, memref<1x100x1x32xf32>, memref<1x17x2x32xf32>, memref<1x17x2x32xf32>, stats(memref<1x2x17xf32>)
      -> memref<1x17x2x32xf32>, memref<1x100x1x32xf32>, memref<1x100x1x32xf32>
  return
}

// -----

// CHECK-LABEL: case 2: fwd+bwd f32 B=1 Sq=100 Sk=17 Hq=2 Hkv=1 Dqk=32 Dv=32 mask=#fmha.mask<causal> stats=lse
// CHECK-NEXT: {{^}}O {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}lse {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: case 2: PASS
func.func @case2(%q: memref<1x100x2x32xf32>, %k: memref<1x17x1x32xf32>, %v: memref<1x17x1x32xf32>, %o: memref<1x100x2x32xf32>, %do: memref<1x100x2x32xf32>, %lse: memref<1x2x100xf32>, %dq: memref<1x100x2x32xf32>, %dk: memref<1x17x1x32xf32>, %dv: memref<1x17x1x32xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) {mask = #fmha.mask<causal>}
    : memref<1x100x2x32xf32>, memref<1x17x1x32xf32>, memref<1x17x1x32xf32> -> memref<1x100x2x32xf32>, stats(memref<1x2x100xf32>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv {mask = #fmha.mask<causal>}
    : memref<1x100x2x32xf32>, memref<1x17x1x32xf32>, memref<1x17x1x32xf32>, memref<1x100x2x32xf32>, memref<1x100x2x32xf32>, stats(memref<1x2x100xf32>)
      -> memref<1x100x2x32xf32>, memref<1x17x1x32xf32>, memref<1x17x1x32xf32>
  return
}

// -----

// CHECK-LABEL: case 3: fwd+bwd f32 B=1 Sq=100 Sk=17 Hq=2 Hkv=1 Dqk=32 Dv=32 mask=#fmha.mask<causal, alignment = bottom_right> stats=lse
// CHECK-NEXT: {{^}}O {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}lse {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: masked  83 empty query rows, 0 unseen keys: 0 inexact elements PASS
// CHECK-NEXT: case 3: PASS
func.func @case3(%q: memref<1x100x2x32xf32>, %k: memref<1x17x1x32xf32>, %v: memref<1x17x1x32xf32>, %o: memref<1x100x2x32xf32>, %do: memref<1x100x2x32xf32>, %lse: memref<1x2x100xf32>, %dq: memref<1x100x2x32xf32>, %dk: memref<1x17x1x32xf32>, %dv: memref<1x17x1x32xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) {mask = #fmha.mask<causal, alignment = bottom_right>}
    : memref<1x100x2x32xf32>, memref<1x17x1x32xf32>, memref<1x17x1x32xf32> -> memref<1x100x2x32xf32>, stats(memref<1x2x100xf32>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv {mask = #fmha.mask<causal, alignment = bottom_right>}
    : memref<1x100x2x32xf32>, memref<1x17x1x32xf32>, memref<1x17x1x32xf32>, memref<1x100x2x32xf32>, memref<1x100x2x32xf32>, stats(memref<1x2x100xf32>)
      -> memref<1x100x2x32xf32>, memref<1x17x1x32xf32>, memref<1x17x1x32xf32>
  return
}

// -----

// CHECK-LABEL: case 4: fwd+bwd f32 B=1 Sq=1 Sk=17 Hq=2 Hkv=1 Dqk=32 Dv=32 mask=#fmha.mask<none> stats=lse
// CHECK-NEXT: {{^}}O {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}lse {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: case 4: PASS
func.func @case4(%q: memref<1x1x2x32xf32>, %k: memref<1x17x1x32xf32>, %v: memref<1x17x1x32xf32>, %o: memref<1x1x2x32xf32>, %do: memref<1x1x2x32xf32>, %lse: memref<1x2x1xf32>, %dq: memref<1x1x2x32xf32>, %dk: memref<1x17x1x32xf32>, %dv: memref<1x17x1x32xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
    : memref<1x1x2x32xf32>, memref<1x17x1x32xf32>, memref<1x17x1x32xf32> -> memref<1x1x2x32xf32>, stats(memref<1x2x1xf32>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv
    : memref<1x1x2x32xf32>, memref<1x17x1x32xf32>, memref<1x17x1x32xf32>, memref<1x1x2x32xf32>, memref<1x1x2x32xf32>, stats(memref<1x2x1xf32>)
      -> memref<1x1x2x32xf32>, memref<1x17x1x32xf32>, memref<1x17x1x32xf32>
  return
}

// -----

// CHECK-LABEL: case 5: fwd+bwd f32 B=1 Sq=1 Sk=100 Hq=2 Hkv=1 Dqk=32 Dv=32 mask=#fmha.mask<causal, alignment = bottom_right> stats=lse
// CHECK-NEXT: {{^}}O {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}lse {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: case 5: PASS
func.func @case5(%q: memref<1x1x2x32xf32>, %k: memref<1x100x1x32xf32>, %v: memref<1x100x1x32xf32>, %o: memref<1x1x2x32xf32>, %do: memref<1x1x2x32xf32>, %lse: memref<1x2x1xf32>, %dq: memref<1x1x2x32xf32>, %dk: memref<1x100x1x32xf32>, %dv: memref<1x100x1x32xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) {mask = #fmha.mask<causal, alignment = bottom_right>}
    : memref<1x1x2x32xf32>, memref<1x100x1x32xf32>, memref<1x100x1x32xf32> -> memref<1x1x2x32xf32>, stats(memref<1x2x1xf32>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv {mask = #fmha.mask<causal, alignment = bottom_right>}
    : memref<1x1x2x32xf32>, memref<1x100x1x32xf32>, memref<1x100x1x32xf32>, memref<1x1x2x32xf32>, memref<1x1x2x32xf32>, stats(memref<1x2x1xf32>)
      -> memref<1x1x2x32xf32>, memref<1x100x1x32xf32>, memref<1x100x1x32xf32>
  return
}

// -----

// CHECK-LABEL: case 6: fwd+bwd f32 B=1 Sq=17 Sk=1 Hq=2 Hkv=1 Dqk=32 Dv=32 mask=#fmha.mask<causal, alignment = bottom_right> stats=lse
// CHECK-NEXT: {{^}}O {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}lse {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: masked  16 empty query rows, 0 unseen keys: 0 inexact elements PASS
// CHECK-NEXT: case 6: PASS
func.func @case6(%q: memref<1x17x2x32xf32>, %k: memref<1x1x1x32xf32>, %v: memref<1x1x1x32xf32>, %o: memref<1x17x2x32xf32>, %do: memref<1x17x2x32xf32>, %lse: memref<1x2x17xf32>, %dq: memref<1x17x2x32xf32>, %dk: memref<1x1x1x32xf32>, %dv: memref<1x1x1x32xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) {mask = #fmha.mask<causal, alignment = bottom_right>}
    : memref<1x17x2x32xf32>, memref<1x1x1x32xf32>, memref<1x1x1x32xf32> -> memref<1x17x2x32xf32>, stats(memref<1x2x17xf32>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv {mask = #fmha.mask<causal, alignment = bottom_right>}
    : memref<1x17x2x32xf32>, memref<1x1x1x32xf32>, memref<1x1x1x32xf32>, memref<1x17x2x32xf32>, memref<1x17x2x32xf32>, stats(memref<1x2x17xf32>)
      -> memref<1x17x2x32xf32>, memref<1x1x1x32xf32>, memref<1x1x1x32xf32>
  return
}

// -----

// CHECK-LABEL: case 7: fwd+bwd f32 B=1 Sq=1 Sk=1 Hq=2 Hkv=1 Dqk=32 Dv=32 mask=#fmha.mask<causal> stats=lse
// CHECK-NEXT: {{^}}O {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}lse {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: case 7: PASS
func.func @case7(%q: memref<1x1x2x32xf32>, %k: memref<1x1x1x32xf32>, %v: memref<1x1x1x32xf32>, %o: memref<1x1x2x32xf32>, %do: memref<1x1x2x32xf32>, %lse: memref<1x2x1xf32>, %dq: memref<1x1x2x32xf32>, %dk: memref<1x1x1x32xf32>, %dv: memref<1x1x1x32xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) {mask = #fmha.mask<causal>}
    : memref<1x1x2x32xf32>, memref<1x1x1x32xf32>, memref<1x1x1x32xf32> -> memref<1x1x2x32xf32>, stats(memref<1x2x1xf32>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv {mask = #fmha.mask<causal>}
    : memref<1x1x2x32xf32>, memref<1x1x1x32xf32>, memref<1x1x1x32xf32>, memref<1x1x2x32xf32>, memref<1x1x2x32xf32>, stats(memref<1x2x1xf32>)
      -> memref<1x1x2x32xf32>, memref<1x1x1x32xf32>, memref<1x1x1x32xf32>
  return
}

// -----

// CHECK-LABEL: case 8: fwd+bwd f32 B=1 Sq=100 Sk=17 Hq=2 Hkv=1 Dqk=32 Dv=32 mask=#fmha.mask<sliding_window, alignment = bottom_right, left = 2, right = 1> stats=lse
// CHECK-NEXT: {{^}}O {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}lse {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: masked  82 empty query rows, 0 unseen keys: 0 inexact elements PASS
// CHECK-NEXT: case 8: PASS
func.func @case8(%q: memref<1x100x2x32xf32>, %k: memref<1x17x1x32xf32>, %v: memref<1x17x1x32xf32>, %o: memref<1x100x2x32xf32>, %do: memref<1x100x2x32xf32>, %lse: memref<1x2x100xf32>, %dq: memref<1x100x2x32xf32>, %dk: memref<1x17x1x32xf32>, %dv: memref<1x17x1x32xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) {mask = #fmha.mask<sliding_window, alignment = bottom_right, left = 2, right = 1>}
    : memref<1x100x2x32xf32>, memref<1x17x1x32xf32>, memref<1x17x1x32xf32> -> memref<1x100x2x32xf32>, stats(memref<1x2x100xf32>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv {mask = #fmha.mask<sliding_window, alignment = bottom_right, left = 2, right = 1>}
    : memref<1x100x2x32xf32>, memref<1x17x1x32xf32>, memref<1x17x1x32xf32>, memref<1x100x2x32xf32>, memref<1x100x2x32xf32>, stats(memref<1x2x100xf32>)
      -> memref<1x100x2x32xf32>, memref<1x17x1x32xf32>, memref<1x17x1x32xf32>
  return
}

// -----

// CHECK-LABEL: case 9: fwd+bwd f32 B=1 Sq=17 Sk=100 Hq=2 Hkv=1 Dqk=32 Dv=32 mask=#fmha.mask<one_sided_window, alignment = bottom_right, left = 10> stats=lse
// CHECK-NEXT: {{^}}O {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}lse {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: masked  0 empty query rows, 74 unseen keys: 0 inexact elements PASS
// CHECK-NEXT: case 9: PASS
func.func @case9(%q: memref<1x17x2x32xf32>, %k: memref<1x100x1x32xf32>, %v: memref<1x100x1x32xf32>, %o: memref<1x17x2x32xf32>, %do: memref<1x17x2x32xf32>, %lse: memref<1x2x17xf32>, %dq: memref<1x17x2x32xf32>, %dk: memref<1x100x1x32xf32>, %dv: memref<1x100x1x32xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) {mask = #fmha.mask<one_sided_window, alignment = bottom_right, left = 10>}
    : memref<1x17x2x32xf32>, memref<1x100x1x32xf32>, memref<1x100x1x32xf32> -> memref<1x17x2x32xf32>, stats(memref<1x2x17xf32>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv {mask = #fmha.mask<one_sided_window, alignment = bottom_right, left = 10>}
    : memref<1x17x2x32xf32>, memref<1x100x1x32xf32>, memref<1x100x1x32xf32>, memref<1x17x2x32xf32>, memref<1x17x2x32xf32>, stats(memref<1x2x17xf32>)
      -> memref<1x17x2x32xf32>, memref<1x100x1x32xf32>, memref<1x100x1x32xf32>
  return
}

// -----

// CHECK-LABEL: case 10: fwd+bwd f32 B=1 Sq=100 Sk=17 Hq=2 Hkv=1 Dqk=32 Dv=32 mask=#fmha.mask<one_sided_window, left = 4> stats=lse
// CHECK-NEXT: {{^}}O {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}lse {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: masked  80 empty query rows, 0 unseen keys: 0 inexact elements PASS
// CHECK-NEXT: case 10: PASS
func.func @case10(%q: memref<1x100x2x32xf32>, %k: memref<1x17x1x32xf32>, %v: memref<1x17x1x32xf32>, %o: memref<1x100x2x32xf32>, %do: memref<1x100x2x32xf32>, %lse: memref<1x2x100xf32>, %dq: memref<1x100x2x32xf32>, %dk: memref<1x17x1x32xf32>, %dv: memref<1x17x1x32xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) {mask = #fmha.mask<one_sided_window, left = 4>}
    : memref<1x100x2x32xf32>, memref<1x17x1x32xf32>, memref<1x17x1x32xf32> -> memref<1x100x2x32xf32>, stats(memref<1x2x100xf32>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv {mask = #fmha.mask<one_sided_window, left = 4>}
    : memref<1x100x2x32xf32>, memref<1x17x1x32xf32>, memref<1x17x1x32xf32>, memref<1x100x2x32xf32>, memref<1x100x2x32xf32>, stats(memref<1x2x100xf32>)
      -> memref<1x100x2x32xf32>, memref<1x17x1x32xf32>, memref<1x17x1x32xf32>
  return
}
