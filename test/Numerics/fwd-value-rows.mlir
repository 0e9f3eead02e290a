// RUN: rocke-run --split-input-file --lowering='%fwd_value_rows_host' %s | FileCheck %s
// RUN: rocke-run --split-input-file --lowering='%fwd_place_first_host' %s | FileCheck %s
//
// The forward under the schedule gfx950 runs (scores as S^T, O^T = V^T P^T
// with V staged as rows and read down their columns, the next K and V
// blocks fetched into registers a block ahead; see test/lit.cfg.py),
// feeding the tiled backward as gfx950 runs it (S = Q K^T, Q, dO and K
// staged as rows, dO / Q of dV / dK and K^T of dQ read down their
// columns): bf16 with GQA and bottom-right causal rows that see no key,
// f16 with Sk past a whole number of KV blocks.

// CHECK-LABEL: case 0: fwd+bwd bf16 B=1 Sq=40 Sk=33 Hq=2 Hkv=1 Dqk=64 Dv=64 mask=#fmha.mask<causal, alignment = bottom_right> stats=lse
// CHECK-NEXT: {{^}}O {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}lse {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK: case 0: PASS
func.func @case0(%q: memref<1x40x2x64xbf16>, %k: memref<1x33x1x64xbf16>, %v: memref<1x33x1x64xbf16>, %o: memref<1x40x2x64xbf16>, %do: memref<1x40x2x64xbf16>, %lse: memref<1x2x40xf32>, %dq: memref<1x40x2x64xbf16>, %dk: memref<1x33x1x64xbf16>, %dv: memref<1x33x1x64xbf16>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) {mask = #fmha.mask<causal, alignment = bottom_right>}
    : memref<1x40x2x64xbf16>, memref<1x33x1x64xbf16>, memref<1x33x1x64xbf16> -> memref<1x40x2x64xbf16>, stats(memref<1x2x40xf32>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv {mask = #fmha.mask<causal, alignment = bottom_right>}
    : memref<1x40x2x64xbf16>, memref<1x33x1x64xbf16>, memref<1x33x1x64xbf16>, memref<1x40x2x64xbf16>, memref<1x40x2x64xbf16>, stats(memref<1x2x40xf32>)
      -> memref<1x40x2x64xbf16>, memref<1x33x1x64xbf16>, memref<1x33x1x64xbf16>
  return
}

// -----

// CHECK-LABEL: case 1: fwd+bwd f16 B=2 Sq=17 Sk=100 Hq=2 Hkv=2 Dqk=32 Dv=32 mask=#fmha.mask<none> stats=lse
// CHECK-NEXT: {{^}}O {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}lse {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: case 1: PASS
func.func @case1(%q: memref<2x17x2x32xf16>, %k: memref<2x100x2x32xf16>, %v: memref<2x100x2x32xf16>, %o: memref<2x17x2x32xf16>, %do: memref<2x17x2x32xf16>, %lse: memref<2x2x17xf32>, %dq: memref<2x17x2x32xf16>, %dk: memref<2x100x2x32xf16>, %dv: memref<2x100x2x32xf16>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
    : memref<2x17x2x32xf16>, memref<2x100x2x32xf16>, memref<2x100x2x32xf16> -> memref<2x17x2x32xf16>, stats(memref<2x2x17xf32>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv
    : memref<2x17x2x32xf16>, memref<2x100x2x32xf16>, memref<2x100x2x32xf16>, memref<2x17x2x32xf16>, memref<2x17x2x32xf16>, stats(memref<2x2x17xf32>)
      -> memref<2x17x2x32xf16>, memref<2x100x2x32xf16>, memref<2x100x2x32xf16>
  return
}
