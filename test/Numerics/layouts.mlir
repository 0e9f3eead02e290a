// RUN: rocke-run --split-input-file %s | FileCheck %s
// RUN: rocke-run --split-input-file --lowering='%warp_host' %s | FileCheck %s
// RUN: rocke-run --split-input-file --lowering='%tiled_host' %s | FileCheck %s
// RUN: rocke-run --split-input-file --lowering='%tiled_mfma_host' %s | FileCheck %s
// To check another lowering against the same cases, add one RUN line with
// --lowering='<its pipeline>,fmha-lower-to-loops' (the trailing
// fmha-lower-to-loops lowers whatever op the strategy leaves alone).
//
// Physical layouts from the memref strides: BHSD, BSHD with padded rows
// and an offset, layouts mixed between operands, padded statistics.

// CHECK-LABEL: case 0: fwd+bwd f16 B=1 Sq=17 Sk=17 Hq=4 Hkv=2 Dqk=64 Dv=64 mask=#fmha.mask<causal> stats=lse
// CHECK-NEXT: {{^}}O {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}lse {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: case 0: PASS
func.func @case0(%q: memref<1x17x4x64xf16, strided<[4352, 64, 1088, 1]>>, %k: memref<1x17x2x64xf16, strided<[2176, 64, 1088, 1]>>, %v: memref<1x17x2x64xf16, strided<[2176, 64, 1088, 1]>>, %o: memref<1x17x4x64xf16, strided<[4352, 64, 1088, 1]>>, %do: memref<1x17x4x64xf16, strided<[4352, 64, 1088, 1]>>, %lse: memref<1x4x17xf32>, %dq: memref<1x17x4x64xf16, strided<[4352, 64, 1088, 1]>>, %dk: memref<1x17x2x64xf16, strided<[2176, 64, 1088, 1]>>, %dv: memref<1x17x2x64xf16, strided<[2176, 64, 1088, 1]>>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) {mask = #fmha.mask<causal>}
    : memref<1x17x4x64xf16, strided<[4352, 64, 1088, 1]>>, memref<1x17x2x64xf16, strided<[2176, 64, 1088, 1]>>, memref<1x17x2x64xf16, strided<[2176, 64, 1088, 1]>> -> memref<1x17x4x64xf16, strided<[4352, 64, 1088, 1]>>, stats(memref<1x4x17xf32>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv {mask = #fmha.mask<causal>}
    : memref<1x17x4x64xf16, strided<[4352, 64, 1088, 1]>>, memref<1x17x2x64xf16, strided<[2176, 64, 1088, 1]>>, memref<1x17x2x64xf16, strided<[2176, 64, 1088, 1]>>, memref<1x17x4x64xf16, strided<[4352, 64, 1088, 1]>>, memref<1x17x4x64xf16, strided<[4352, 64, 1088, 1]>>, stats(memref<1x4x17xf32>)
      -> memref<1x17x4x64xf16, strided<[4352, 64, 1088, 1]>>, memref<1x17x2x64xf16, strided<[2176, 64, 1088, 1]>>, memref<1x17x2x64xf16, strided<[2176, 64, 1088, 1]>>
  return
}

// -----

// CHECK-LABEL: case 1: fwd+bwd f32 B=1 Sq=100 Sk=17 Hq=2 Hkv=1 Dqk=64 Dv=64 mask=#fmha.mask<causal, alignment = bottom_right> stats=lse
// CHECK-NEXT: {{^}}O {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}lse {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: masked  83 empty query rows, 0 unseen keys: 0 inexact elements PASS
// CHECK-NEXT: case 1: PASS
func.func @case1(%q: memref<1x100x2x64xf32, strided<[12800, 64, 6400, 1]>>, %k: memref<1x17x1x64xf32, strided<[1088, 64, 1088, 1]>>, %v: memref<1x17x1x64xf32, strided<[1088, 64, 1088, 1]>>, %o: memref<1x100x2x64xf32, strided<[12800, 64, 6400, 1]>>, %do: memref<1x100x2x64xf32, strided<[12800, 64, 6400, 1]>>, %lse: memref<1x2x100xf32>, %dq: memref<1x100x2x64xf32, strided<[12800, 64, 6400, 1]>>, %dk: memref<1x17x1x64xf32, strided<[1088, 64, 1088, 1]>>, %dv: memref<1x17x1x64xf32, strided<[1088, 64, 1088, 1]>>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) {mask = #fmha.mask<causal, alignment = bottom_right>}
    : memref<1x100x2x64xf32, strided<[12800, 64, 6400, 1]>>, memref<1x17x1x64xf32, strided<[1088, 64, 1088, 1]>>, memref<1x17x1x64xf32, strided<[1088, 64, 1088, 1]>> -> memref<1x100x2x64xf32, strided<[12800, 64, 6400, 1]>>, stats(memref<1x2x100xf32>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv {mask = #fmha.mask<causal, alignment = bottom_right>}
    : memref<1x100x2x64xf32, strided<[12800, 64, 6400, 1]>>, memref<1x17x1x64xf32, strided<[1088, 64, 1088, 1]>>, memref<1x17x1x64xf32, strided<[1088, 64, 1088, 1]>>, memref<1x100x2x64xf32, strided<[12800, 64, 6400, 1]>>, memref<1x100x2x64xf32, strided<[12800, 64, 6400, 1]>>, stats(memref<1x2x100xf32>)
      -> memref<1x100x2x64xf32, strided<[12800, 64, 6400, 1]>>, memref<1x17x1x64xf32, strided<[1088, 64, 1088, 1]>>, memref<1x17x1x64xf32, strided<[1088, 64, 1088, 1]>>
  return
}

// -----

// CHECK-LABEL: case 2: fwd f32 B=1 Sq=17 Sk=100 Hq=2 Hkv=2 Dqk=64 Dv=64 mask=#fmha.mask<sliding_window, left = 5, right = 5> stats=lse
// CHECK-NEXT: {{^}}O {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}lse {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: masked  0 empty query rows, 78 unseen keys: 0 inexact elements PASS
// CHECK-NEXT: case 2: PASS
func.func @case2(%q: memref<1x17x2x64xf32, strided<[2891, 72, 1440, 1], offset: 5>>, %k: memref<1x100x2x64xf32, strided<[14843, 72, 7416, 1], offset: 5>>, %v: memref<1x100x2x64xf32, strided<[14843, 72, 7416, 1], offset: 5>>, %o: memref<1x17x2x64xf32, strided<[2891, 72, 1440, 1], offset: 5>>, %lse: memref<1x2x17xf32, strided<[64, 32, 1]>>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) {mask = #fmha.mask<sliding_window, left = 5, right = 5>}
    : memref<1x17x2x64xf32, strided<[2891, 72, 1440, 1], offset: 5>>, memref<1x100x2x64xf32, strided<[14843, 72, 7416, 1], offset: 5>>, memref<1x100x2x64xf32, strided<[14843, 72, 7416, 1], offset: 5>> -> memref<1x17x2x64xf32, strided<[2891, 72, 1440, 1], offset: 5>>, stats(memref<1x2x17xf32, strided<[64, 32, 1]>>)
  return
}

// -----

// CHECK-LABEL: case 3: bwd f32 B=1 Sq=17 Sk=17 Hq=4 Hkv=2 Dqk=128 Dv=128 mask=#fmha.mask<causal> stats=lse
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: case 3: PASS
func.func @case3(%q: memref<1x17x4x128xf32>, %k: memref<1x17x2x128xf32, strided<[4352, 128, 2176, 1]>>, %v: memref<1x17x2x128xf32, strided<[4352, 128, 2176, 1]>>, %o: memref<1x17x4x128xf32>, %do: memref<1x17x4x128xf32>, %lse: memref<1x4x17xf32>, %dq: memref<1x17x4x128xf32, strided<[10891, 136, 2720, 1], offset: 5>>, %dk: memref<1x17x2x128xf32, strided<[4352, 128, 2176, 1]>>, %dv: memref<1x17x2x128xf32>) {
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv {mask = #fmha.mask<causal>}
    : memref<1x17x4x128xf32>, memref<1x17x2x128xf32, strided<[4352, 128, 2176, 1]>>, memref<1x17x2x128xf32, strided<[4352, 128, 2176, 1]>>, memref<1x17x4x128xf32>, memref<1x17x4x128xf32>, stats(memref<1x4x17xf32>)
      -> memref<1x17x4x128xf32, strided<[10891, 136, 2720, 1], offset: 5>>, memref<1x17x2x128xf32, strided<[4352, 128, 2176, 1]>>, memref<1x17x2x128xf32>
  return
}

// -----

// CHECK-LABEL: case 4: fwd+bwd bf16 B=2 Sq=17 Sk=100 Hq=4 Hkv=1 Dqk=64 Dv=64 mask=#fmha.mask<one_sided_window, left = 30> stats=log2_max_sum
// CHECK-NEXT: {{^}}O {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}M {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}L {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: case 4: PASS
func.func @case4(%q: memref<2x17x4x64xbf16, strided<[4352, 64, 1088, 1]>>, %k: memref<2x100x1x64xbf16, strided<[6400, 64, 6400, 1]>>, %v: memref<2x100x1x64xbf16, strided<[6400, 64, 6400, 1]>>, %o: memref<2x17x4x64xbf16, strided<[4352, 64, 1088, 1]>>, %do: memref<2x17x4x64xbf16, strided<[4352, 64, 1088, 1]>>, %m: memref<2x4x17xf32>, %l: memref<2x4x17xf32>, %dq: memref<2x17x4x64xbf16, strided<[4352, 64, 1088, 1]>>, %dk: memref<2x100x1x64xbf16, strided<[6400, 64, 6400, 1]>>, %dv: memref<2x100x1x64xbf16, strided<[6400, 64, 6400, 1]>>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%m, %l) {mask = #fmha.mask<one_sided_window, left = 30>, stats_encoding = #fmha.stats<log2_max_sum>}
    : memref<2x17x4x64xbf16, strided<[4352, 64, 1088, 1]>>, memref<2x100x1x64xbf16, strided<[6400, 64, 6400, 1]>>, memref<2x100x1x64xbf16, strided<[6400, 64, 6400, 1]>> -> memref<2x17x4x64xbf16, strided<[4352, 64, 1088, 1]>>, stats(memref<2x4x17xf32>, memref<2x4x17xf32>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%m, %l) -> %dq, %dk, %dv {mask = #fmha.mask<one_sided_window, left = 30>, stats_encoding = #fmha.stats<log2_max_sum>}
    : memref<2x17x4x64xbf16, strided<[4352, 64, 1088, 1]>>, memref<2x100x1x64xbf16, strided<[6400, 64, 6400, 1]>>, memref<2x100x1x64xbf16, strided<[6400, 64, 6400, 1]>>, memref<2x17x4x64xbf16, strided<[4352, 64, 1088, 1]>>, memref<2x17x4x64xbf16, strided<[4352, 64, 1088, 1]>>, stats(memref<2x4x17xf32>, memref<2x4x17xf32>)
      -> memref<2x17x4x64xbf16, strided<[4352, 64, 1088, 1]>>, memref<2x100x1x64xbf16, strided<[6400, 64, 6400, 1]>>, memref<2x100x1x64xbf16, strided<[6400, 64, 6400, 1]>>
  return
}
