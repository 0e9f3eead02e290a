// RUN: rocke-run --split-input-file --repeat=2 --expect-identical %s | FileCheck %s
// RUN: rocke-run --split-input-file --repeat=2 --expect-identical --lowering='%warp_host' %s | FileCheck %s
// RUN: rocke-run --split-input-file --repeat=2 --expect-identical --lowering='%tiled_host' %s | FileCheck %s
// To check another lowering against the same cases, add one RUN line with
// --lowering='<its pipeline>,fmha-lower-to-loops' (the trailing
// fmha-lower-to-loops lowers whatever op the strategy leaves alone).
//
// `deterministic` backward: two runs on the same inputs give bitwise
// identical outputs.

// CHECK-LABEL: case 0: bwd f32 B=1 Sq=17 Sk=100 Hq=4 Hkv=2 Dqk=64 Dv=64 mask=#fmha.mask<causal, alignment = bottom_right> stats=lse
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: repeat  2 runs bitwise identical PASS
// CHECK-NEXT: case 0: PASS
func.func @case0(%q: memref<1x17x4x64xf32>, %k: memref<1x100x2x64xf32>, %v: memref<1x100x2x64xf32>, %o: memref<1x17x4x64xf32>, %do: memref<1x17x4x64xf32>, %lse: memref<1x4x17xf32>, %dq: memref<1x17x4x64xf32>, %dk: memref<1x100x2x64xf32>, %dv: memref<1x100x2x64xf32>) {
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv {mask = #fmha.mask<causal, alignment = bottom_right>, deterministic}
    : memref<1x17x4x64xf32>, memref<1x100x2x64xf32>, memref<1x100x2x64xf32>, memref<1x17x4x64xf32>, memref<1x17x4x64xf32>, stats(memref<1x4x17xf32>)
      -> memref<1x17x4x64xf32>, memref<1x100x2x64xf32>, memref<1x100x2x64xf32>
  return
}

// -----

// CHECK-LABEL: case 1: fwd+bwd bf16 B=1 Sq=17 Sk=17 Hq=4 Hkv=1 Dqk=64 Dv=64 mask=#fmha.mask<sliding_window, left = 4, right = 4> stats=lse
// CHECK-NEXT: {{^}}O {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}lse {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: repeat  2 runs bitwise identical PASS
// CHECK-NEXT: case 1: PASS
func.func @case1(%q: memref<1x17x4x64xbf16>, %k: memref<1x17x1x64xbf16>, %v: memref<1x17x1x64xbf16>, %o: memref<1x17x4x64xbf16>, %do: memref<1x17x4x64xbf16>, %lse: memref<1x4x17xf32>, %dq: memref<1x17x4x64xbf16>, %dk: memref<1x17x1x64xbf16>, %dv: memref<1x17x1x64xbf16>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) {mask = #fmha.mask<sliding_window, left = 4, right = 4>}
    : memref<1x17x4x64xbf16>, memref<1x17x1x64xbf16>, memref<1x17x1x64xbf16> -> memref<1x17x4x64xbf16>, stats(memref<1x4x17xf32>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv {mask = #fmha.mask<sliding_window, left = 4, right = 4>, deterministic}
    : memref<1x17x4x64xbf16>, memref<1x17x1x64xbf16>, memref<1x17x1x64xbf16>, memref<1x17x4x64xbf16>, memref<1x17x4x64xbf16>, stats(memref<1x4x17xf32>)
      -> memref<1x17x4x64xbf16>, memref<1x17x1x64xbf16>, memref<1x17x1x64xbf16>
  return
}
