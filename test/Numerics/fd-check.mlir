// RUN: rocke-run --split-input-file --fd-check --dist=normal %s | FileCheck %s
// RUN: rocke-run --split-input-file --fd-check --fd-samples=16 --seed=5 --lowering='builtin.module(fmha-lower-to-loops)' %s | FileCheck %s
// RUN: rocke-run --split-input-file --fd-check --dist=normal --lowering='%tiled_host' %s | FileCheck %s
// To check another lowering against the same cases, add one RUN line with
// --lowering='<its pipeline>,fmha-lower-to-loops' (the trailing
// fmha-lower-to-loops lowers whatever op the strategy leaves alone).
//
// Gradient check that trusts neither the lowering nor the backward
// reference: central differences of loss = sum(O * dO) of the float64 forward,
// on every element of Q, K and V (small f32 cases); the second RUN line checks
// 16 sampled elements per input, with the pipeline spelled anchored.

// CHECK-LABEL: case 0: fwd+bwd f32 B=1 Sq=5 Sk=5 Hq=2 Hkv=1 Dqk=32 Dv=32 mask=#fmha.mask<none> stats=lse
// CHECK-NEXT: {{^}}O {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}lse {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dQ(fd) {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK(fd) {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV(fd) {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: case 0: PASS
func.func @case0(%q: memref<1x5x2x32xf32>, %k: memref<1x5x1x32xf32>, %v: memref<1x5x1x32xf32>, %o: memref<1x5x2x32xf32>, %do: memref<1x5x2x32xf32>, %lse: memref<1x2x5xf32>, %dq: memref<1x5x2x32xf32>, %dk: memref<1x5x1x32xf32>, %dv: memref<1x5x1x32xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
    : memref<1x5x2x32xf32>, memref<1x5x1x32xf32>, memref<1x5x1x32xf32> -> memref<1x5x2x32xf32>, stats(memref<1x2x5xf32>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv
    : memref<1x5x2x32xf32>, memref<1x5x1x32xf32>, memref<1x5x1x32xf32>, memref<1x5x2x32xf32>, memref<1x5x2x32xf32>, stats(memref<1x2x5xf32>)
      -> memref<1x5x2x32xf32>, memref<1x5x1x32xf32>, memref<1x5x1x32xf32>
  return
}

// -----

// CHECK-LABEL: case 1: fwd+bwd f32 B=1 Sq=9 Sk=5 Hq=2 Hkv=2 Dqk=32 Dv=32 mask=#fmha.mask<causal, alignment = bottom_right> stats=lse
// CHECK-NEXT: {{^}}O {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}lse {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: masked  4 empty query rows, 0 unseen keys: 0 inexact elements PASS
// CHECK-NEXT: {{^}}dQ(fd) {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK(fd) {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV(fd) {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: case 1: PASS
func.func @case1(%q: memref<1x9x2x32xf32>, %k: memref<1x5x2x32xf32>, %v: memref<1x5x2x32xf32>, %o: memref<1x9x2x32xf32>, %do: memref<1x9x2x32xf32>, %lse: memref<1x2x9xf32>, %dq: memref<1x9x2x32xf32>, %dk: memref<1x5x2x32xf32>, %dv: memref<1x5x2x32xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) {mask = #fmha.mask<causal, alignment = bottom_right>}
    : memref<1x9x2x32xf32>, memref<1x5x2x32xf32>, memref<1x5x2x32xf32> -> memref<1x9x2x32xf32>, stats(memref<1x2x9xf32>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv {mask = #fmha.mask<causal, alignment = bottom_right>}
    : memref<1x9x2x32xf32>, memref<1x5x2x32xf32>, memref<1x5x2x32xf32>, memref<1x9x2x32xf32>, memref<1x9x2x32xf32>, stats(memref<1x2x9xf32>)
      -> memref<1x9x2x32xf32>, memref<1x5x2x32xf32>, memref<1x5x2x32xf32>
  return
}

// -----

// CHECK-LABEL: case 2: fwd+bwd f32 B=1 Sq=7 Sk=11 Hq=4 Hkv=2 Dqk=32 Dv=32 mask=#fmha.mask<sliding_window, left = 2, right = 1> stats=log2_max_sum
// CHECK-NEXT: {{^}}O {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}M {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}L {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: masked  0 empty query rows, 3 unseen keys: 0 inexact elements PASS
// CHECK-NEXT: {{^}}dQ(fd) {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK(fd) {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV(fd) {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: case 2: PASS
func.func @case2(%q: memref<1x7x4x32xf32>, %k: memref<1x11x2x32xf32>, %v: memref<1x11x2x32xf32>, %o: memref<1x7x4x32xf32>, %do: memref<1x7x4x32xf32>, %m: memref<1x4x7xf32>, %l: memref<1x4x7xf32>, %dq: memref<1x7x4x32xf32>, %dk: memref<1x11x2x32xf32>, %dv: memref<1x11x2x32xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%m, %l) {mask = #fmha.mask<sliding_window, left = 2, right = 1>, stats_encoding = #fmha.stats<log2_max_sum>}
    : memref<1x7x4x32xf32>, memref<1x11x2x32xf32>, memref<1x11x2x32xf32> -> memref<1x7x4x32xf32>, stats(memref<1x4x7xf32>, memref<1x4x7xf32>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%m, %l) -> %dq, %dk, %dv {mask = #fmha.mask<sliding_window, left = 2, right = 1>, stats_encoding = #fmha.stats<log2_max_sum>}
    : memref<1x7x4x32xf32>, memref<1x11x2x32xf32>, memref<1x11x2x32xf32>, memref<1x7x4x32xf32>, memref<1x7x4x32xf32>, stats(memref<1x4x7xf32>, memref<1x4x7xf32>)
      -> memref<1x7x4x32xf32>, memref<1x11x2x32xf32>, memref<1x11x2x32xf32>
  return
}

// -----

// CHECK-LABEL: case 3: bwd f32 B=1 Sq=6 Sk=6 Hq=2 Hkv=1 Dqk=32 Dv=64 mask=#fmha.mask<one_sided_window, left = 3> stats=lse
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dQ(fd) {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK(fd) {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV(fd) {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: case 3: PASS
func.func @case3(%q: memref<1x6x2x32xf32>, %k: memref<1x6x1x32xf32>, %v: memref<1x6x1x64xf32>, %o: memref<1x6x2x64xf32>, %do: memref<1x6x2x64xf32>, %lse: memref<1x2x6xf32>, %dq: memref<1x6x2x32xf32>, %dk: memref<1x6x1x32xf32>, %dv: memref<1x6x1x64xf32>) {
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv {mask = #fmha.mask<one_sided_window, left = 3>}
    : memref<1x6x2x32xf32>, memref<1x6x1x32xf32>, memref<1x6x1x64xf32>, memref<1x6x2x64xf32>, memref<1x6x2x64xf32>, stats(memref<1x2x6xf32>)
      -> memref<1x6x2x32xf32>, memref<1x6x1x32xf32>, memref<1x6x1x64xf32>
  return
}

// -----

// CHECK-LABEL: case 4: fwd+bwd f32 B=1 Sq=17 Sk=17 Hq=2 Hkv=1 Dqk=64 Dv=64 mask=#fmha.mask<causal> stats=lse
// CHECK-NEXT: {{^}}O {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}lse {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dQ(fd) {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK(fd) {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV(fd) {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: case 4: PASS
func.func @case4(%q: memref<1x17x2x64xf32>, %k: memref<1x17x1x64xf32>, %v: memref<1x17x1x64xf32>, %o: memref<1x17x2x64xf32>, %do: memref<1x17x2x64xf32>, %lse: memref<1x2x17xf32>, %dq: memref<1x17x2x64xf32>, %dk: memref<1x17x1x64xf32>, %dv: memref<1x17x1x64xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) {mask = #fmha.mask<causal>, scale = 0.5 : f32}
    : memref<1x17x2x64xf32>, memref<1x17x1x64xf32>, memref<1x17x1x64xf32> -> memref<1x17x2x64xf32>, stats(memref<1x2x17xf32>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv {mask = #fmha.mask<causal>, scale = 0.5 : f32}
    : memref<1x17x2x64xf32>, memref<1x17x1x64xf32>, memref<1x17x1x64xf32>, memref<1x17x2x64xf32>, memref<1x17x2x64xf32>, stats(memref<1x2x17xf32>)
      -> memref<1x17x2x64xf32>, memref<1x17x1x64xf32>, memref<1x17x1x64xf32>
  return
}
