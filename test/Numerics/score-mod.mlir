// RUN: rocke-run --split-input-file --fd-check --fd-samples=12 %s | FileCheck %s
// RUN: rocke-run --split-input-file --lowering='%tiled_host' %s | FileCheck %s
//
// score_mod regions (issue 33) forward and backward: the reference
// evaluates each region in float64 dual numbers (rocke-run's
// ScoreModReference), independent of the compiler's inlining and derivative;
// --fd-check also compares the gradients with finite differences of the
// modified forward. A softcap small enough to bend the scores (scale 1,
// cap 4), ALiBi with generated slopes, a region written out. D = 32.
// %tiled_host holds the forward's scores as S [q x kv] and the backward's
// as S^T [kv x q]: both orientations of the positions run.

// Bottom-right causal with Sq < Sk, log2-domain statistics.
// CHECK-LABEL: case 0: fwd+bwd bf16 B=1 Sq=24 Sk=40 Hq=2 Hkv=2 Dqk=32 Dv=32 mask=#fmha.mask<causal, alignment = bottom_right> stats=log2_max_sum score_mod
// CHECK-NEXT: {{^}}O {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}M {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}L {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK: case 0: PASS
func.func @softcap_causal(%q: memref<1x24x2x32xbf16>, %k: memref<1x40x2x32xbf16>, %v: memref<1x40x2x32xbf16>, %o: memref<1x24x2x32xbf16>, %do: memref<1x24x2x32xbf16>, %m: memref<1x2x24xf32>, %l: memref<1x2x24xf32>, %dq: memref<1x24x2x32xbf16>, %dk: memref<1x40x2x32xbf16>, %dv: memref<1x40x2x32xbf16>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%m, %l) {mask = #fmha.mask<causal, alignment = bottom_right>, scale = 1.0 : f32, stats_encoding = #fmha.stats<log2_max_sum>}
    : memref<1x24x2x32xbf16>, memref<1x40x2x32xbf16>, memref<1x40x2x32xbf16> -> memref<1x24x2x32xbf16>, stats(memref<1x2x24xf32>, memref<1x2x24xf32>)
    score_mod softcap(4.0)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%m, %l) -> %dq, %dk, %dv {mask = #fmha.mask<causal, alignment = bottom_right>, scale = 1.0 : f32, stats_encoding = #fmha.stats<log2_max_sum>}
    : memref<1x24x2x32xbf16>, memref<1x40x2x32xbf16>, memref<1x40x2x32xbf16>, memref<1x24x2x32xbf16>, memref<1x24x2x32xbf16>, stats(memref<1x2x24xf32>, memref<1x2x24xf32>)
      -> memref<1x24x2x32xbf16>, memref<1x40x2x32xbf16>, memref<1x40x2x32xbf16>
    score_mod softcap(4.0)
  return
}

// -----

// ALiBi, causal, GQA (Hq = 4, Hkv = 2): slopes per query head.
// CHECK-LABEL: case 1: fwd+bwd f16 B=1 Sq=33 Sk=33 Hq=4 Hkv=2 Dqk=32 Dv=32 mask=#fmha.mask<causal> stats=lse score_mod
// CHECK-NEXT: {{^}}O {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}lse {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK: case 1: PASS
func.func @alibi_gqa(%q: memref<1x33x4x32xf16>, %k: memref<1x33x2x32xf16>, %v: memref<1x33x2x32xf16>, %o: memref<1x33x4x32xf16>, %do: memref<1x33x4x32xf16>, %lse: memref<1x4x33xf32>, %dq: memref<1x33x4x32xf16>, %dk: memref<1x33x2x32xf16>, %dv: memref<1x33x2x32xf16>, %slopes: memref<4xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) {mask = #fmha.mask<causal>}
    : memref<1x33x4x32xf16>, memref<1x33x2x32xf16>, memref<1x33x2x32xf16> -> memref<1x33x4x32xf16>, stats(memref<1x4x33xf32>)
    score_mod alibi(%slopes : memref<4xf32>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv {mask = #fmha.mask<causal>}
    : memref<1x33x4x32xf16>, memref<1x33x2x32xf16>, memref<1x33x2x32xf16>, memref<1x33x4x32xf16>, memref<1x33x4x32xf16>, stats(memref<1x4x33xf32>)
      -> memref<1x33x4x32xf16>, memref<1x33x2x32xf16>, memref<1x33x2x32xf16>
    score_mod alibi(%slopes : memref<4xf32>)
  return
}

// -----

// A lone backward (O and statistics from the float64 forward) of a region
// written out: max(cap tanh(s / cap), s - w[h] |d|) + softplus(s) / 4,
// capped at s + 4 (d: key - query's diagonal); where the mask hides the
// pair it is s log(1 - d), NaN, which must not leak.
// CHECK-LABEL: case 2: bwd f32 B=1 Sq=17 Sk=9 Hq=2 Hkv=1 Dqk=32 Dv=32 mask=#fmha.mask<causal, alignment = bottom_right> stats=lse score_mod
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK: case 2: PASS
func.func @region(%q: memref<1x17x2x32xf32>, %k: memref<1x9x1x32xf32>, %v: memref<1x9x1x32xf32>, %o: memref<1x17x2x32xf32>, %do: memref<1x17x2x32xf32>, %lse: memref<1x2x17xf32>, %dq: memref<1x17x2x32xf32>, %dk: memref<1x9x1x32xf32>, %dv: memref<1x9x1x32xf32>, %w: memref<2xf32>) {
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv {mask = #fmha.mask<causal, alignment = bottom_right>, scale = 0.5 : f32}
    : memref<1x17x2x32xf32>, memref<1x9x1x32xf32>, memref<1x9x1x32xf32>, memref<1x17x2x32xf32>, memref<1x17x2x32xf32>, stats(memref<1x2x17xf32>)
      -> memref<1x17x2x32xf32>, memref<1x9x1x32xf32>, memref<1x9x1x32xf32>
    score_mod(%w : memref<2xf32>) {
  ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %wa: memref<2xf32>):
    %c8 = arith.constant 8 : index
    %c0 = arith.constant 0 : i32
    %one = arith.constant 1.0 : f32
    %four = arith.constant 4.0 : f32
    %quarter = arith.constant 0.25 : f32
    %cap = arith.constant 3.0 : f32
    %wh = memref.load %wa[%h] : memref<2xf32>
    // Bottom-right: query qi's diagonal is key qi - 8.
    %diag = arith.subi %qi, %c8 : index
    %d = arith.subi %ki, %diag : index
    %d32 = arith.index_cast %d : index to i32
    %df = arith.sitofp %d32 : i32 to f32
    %hidden = arith.cmpi sgt, %d32, %c0 : i32
    %x = arith.divf %s, %cap : f32
    %t = math.tanh %x : f32
    %capped = arith.mulf %t, %cap : f32
    %dist = math.absf %df : f32
    %pen = arith.mulf %wh, %dist : f32
    %lin = arith.subf %s, %pen : f32
    %m = arith.maximumf %capped, %lin : f32
    %es = math.exp %s : f32
    %es1 = arith.addf %es, %one : f32
    %sp = math.log %es1 : f32
    %spq = arith.mulf %sp, %quarter : f32
    %vis = arith.addf %m, %spq : f32
    %ceil = arith.addf %s, %four : f32
    %visc = arith.minimumf %vis, %ceil : f32
    %nd = arith.negf %df : f32
    %arg = arith.addf %one, %nd : f32
    %lg = math.log %arg : f32
    %nan = arith.mulf %s, %lg : f32
    %r = arith.select %hidden, %nan, %visc : f32
    fmha.yield %r : f32
  }
  return
}
