// RUN: rocke-opt %s -split-input-file | rocke-opt -split-input-file | FileCheck %s
// score_mod regions (issue 33): the named modifiers expand into regions,
// which print and parse back; a forward -> backward chain with one modifier.

// CHECK-LABEL: func.func @softcap
// CHECK: fmha.attention_fwd {{.*}} stats(memref<2x4x64xf32>) score_mod {
// CHECK-NEXT: ^bb0(%[[S:.*]]: f32, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index):
// CHECK-DAG: %[[INV:.*]] = arith.constant 0.0333333351 : f32
// CHECK-DAG: %[[CAP:.*]] = arith.constant 3.000000e+01 : f32
// CHECK: %[[X:.*]] = arith.mulf %[[S]], %[[INV]] : f32
// CHECK: %[[T:.*]] = math.tanh %[[X]] : f32
// CHECK: %[[R:.*]] = arith.mulf %[[T]], %[[CAP]] : f32
// CHECK: fmha.yield %[[R]] : f32
func.func @softcap(%q: memref<2x64x4x32xf16>, %k: memref<2x64x4x32xf16>,
    %v: memref<2x64x4x32xf16>, %o: memref<2x64x4x32xf16>, %lse: memref<2x4x64xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
      : memref<2x64x4x32xf16>, memref<2x64x4x32xf16>, memref<2x64x4x32xf16>
        -> memref<2x64x4x32xf16>, stats(memref<2x4x64xf32>)
      score_mod softcap(30.0)
  return
}

// -----

// CHECK-LABEL: func.func @alibi_chain
// CHECK: fmha.attention_fwd {{.*}} score_mod (%[[SL:.*]] : memref<8xf32>) {
// CHECK-NEXT: ^bb0(%[[S:.*]]: f32, %{{.*}}: index, %[[H:.*]]: index, %[[Q:.*]]: index, %[[K:.*]]: index, %[[SLA:.*]]: memref<8xf32>):
// CHECK: %[[SLOPE:.*]] = memref.load %[[SLA]][%[[H]]] : memref<8xf32>
// CHECK: %[[D:.*]] = arith.subi %[[Q]], %[[K]] : index
// CHECK: %[[D32:.*]] = arith.index_cast %[[D]] : index to i32
// CHECK: %[[DF:.*]] = arith.sitofp %[[D32]] : i32 to f32
// CHECK: %[[DIST:.*]] = math.absf %[[DF]] : f32
// CHECK: %[[BIAS:.*]] = arith.mulf %[[SLOPE]], %[[DIST]] : f32
// CHECK: %[[R:.*]] = arith.subf %[[S]], %[[BIAS]] : f32
// CHECK: fmha.yield %[[R]] : f32
// CHECK: fmha.attention_bwd {{.*}} score_mod (%[[SL]] : memref<8xf32>) {
// CHECK: memref.load
func.func @alibi_chain(%q: memref<1x32x8x32xbf16>, %k: memref<1x32x2x32xbf16>,
    %v: memref<1x32x2x32xbf16>, %o: memref<1x32x8x32xbf16>, %do: memref<1x32x8x32xbf16>,
    %lse: memref<1x8x32xf32>, %dq: memref<1x32x8x32xbf16>, %dk: memref<1x32x2x32xbf16>,
    %dv: memref<1x32x2x32xbf16>, %slopes: memref<8xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) {mask = #fmha.mask<causal>}
      : memref<1x32x8x32xbf16>, memref<1x32x2x32xbf16>, memref<1x32x2x32xbf16>
        -> memref<1x32x8x32xbf16>, stats(memref<1x8x32xf32>)
      score_mod alibi(%slopes : memref<8xf32>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv {mask = #fmha.mask<causal>}
      : memref<1x32x8x32xbf16>, memref<1x32x2x32xbf16>, memref<1x32x2x32xbf16>,
        memref<1x32x8x32xbf16>, memref<1x32x8x32xbf16>, stats(memref<1x8x32xf32>)
        -> memref<1x32x8x32xbf16>, memref<1x32x2x32xbf16>, memref<1x32x2x32xbf16>
      score_mod alibi(%slopes : memref<8xf32>)
  return
}

// -----

// Slopes per (batch, head) index with both.
// CHECK-LABEL: func.func @alibi_per_batch
// CHECK: ^bb0(%{{.*}}: f32, %[[B:.*]]: index, %[[H:.*]]: index, %{{.*}}: index, %{{.*}}: index, %[[SL:.*]]: memref<2x4xf32>):
// CHECK: memref.load %[[SL]][%[[B]], %[[H]]] : memref<2x4xf32>
func.func @alibi_per_batch(%q: memref<2x16x4x32xf32>, %k: memref<2x16x4x32xf32>,
    %v: memref<2x16x4x32xf32>, %o: memref<2x16x4x32xf32>, %lse: memref<2x4x16xf32>,
    %slopes: memref<2x4xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
      : memref<2x16x4x32xf32>, memref<2x16x4x32xf32>, memref<2x16x4x32xf32>
        -> memref<2x16x4x32xf32>, stats(memref<2x4x16xf32>)
      score_mod alibi(%slopes : memref<2x4xf32>)
  return
}

// -----

// A region written out: every op of the closed set.
// CHECK-LABEL: func.func @closed_set
// CHECK: fmha.attention_bwd {{.*}} score_mod (%{{.*}}, %{{.*}} : memref<4xf32>, memref<f32>) {
// CHECK-COUNT-2: memref.load
// CHECK: math.exp2
// CHECK: fmha.yield
func.func @closed_set(%q: memref<1x16x4x32xf16>, %k: memref<1x16x4x32xf16>,
    %v: memref<1x16x4x32xf16>, %o: memref<1x16x4x32xf16>, %do: memref<1x16x4x32xf16>,
    %lse: memref<1x4x16xf32>, %dq: memref<1x16x4x32xf16>, %dk: memref<1x16x4x32xf16>,
    %dv: memref<1x16x4x32xf16>, %w: memref<4xf32>, %t: memref<f32>) {
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv
      : memref<1x16x4x32xf16>, memref<1x16x4x32xf16>, memref<1x16x4x32xf16>,
        memref<1x16x4x32xf16>, memref<1x16x4x32xf16>, stats(memref<1x4x16xf32>)
        -> memref<1x16x4x32xf16>, memref<1x16x4x32xf16>, memref<1x16x4x32xf16>
      score_mod(%w, %t : memref<4xf32>, memref<f32>) {
  ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %wa: memref<4xf32>, %ta: memref<f32>):
    %c1 = arith.constant 1 : index
    %h1 = arith.addi %h, %c1 : index
    %c4 = arith.constant 4 : index
    %hw = arith.muli %h1, %c4 : index
    %hm = arith.subi %hw, %c4 : index
    %hc = arith.subi %hm, %h : index
    %wh = memref.load %wa[%h] : memref<4xf32>
    %tt = memref.load %ta[] : memref<f32>
    %d = arith.subi %ki, %qi : index
    %d32 = arith.index_cast %d : index to i32
    %df = arith.sitofp %d32 : i32 to f32
    %near = arith.cmpi slt, %d, %hc : index
    %a = arith.mulf %s, %wh : f32
    %e = math.exp %a : f32
    %e2 = math.exp2 %df : f32
    %l = math.log %e2 : f32
    %th = math.tanh %l : f32
    %ab = math.absf %th : f32
    %n = arith.negf %ab : f32
    %mx = arith.maximumf %e, %n : f32
    %mn = arith.minimumf %mx, %tt : f32
    %dv2 = arith.divf %mn, %tt : f32
    %sum = arith.addf %dv2, %s : f32
    %dif = arith.subf %sum, %df : f32
    %big = arith.cmpf ogt, %dif, %s : f32
    %both = arith.select %near, %dif, %s : f32
    %r = arith.select %big, %both, %s : f32
    fmha.yield %r : f32
  }
  return
}

// -----

// What a score_mod lowers to in the tiled kernels: a tile_map taking its
// elements' positions.
// CHECK-LABEL: func.func @tile_map_positions
// CHECK: fmha.tile_map(%{{.*}}) at(%arg0, %arg1) lane %arg2 : !fmha.tile<16x16xf32, c, "mma_sync_m16n8k16_f16"> -> !fmha.tile<16x16xf32, c, "mma_sync_m16n8k16_f16">, !fmha.tile<16x16xf32, c, "mma_sync_m16n8k16_f16"> {
// CHECK-NEXT: ^bb0(%{{.*}}: f32, %{{.*}}: index, %{{.*}}: index):
func.func @tile_map_positions(%q0: index, %k0: index, %lane: index) {
  %z = fmha.tile_zero : !fmha.tile<16x16xf32, c, "mma_sync_m16n8k16_f16">
  %r:2 = fmha.tile_map(%z) at(%q0, %k0) lane %lane : !fmha.tile<16x16xf32, c, "mma_sync_m16n8k16_f16">
      -> !fmha.tile<16x16xf32, c, "mma_sync_m16n8k16_f16">, !fmha.tile<16x16xf32, c, "mma_sync_m16n8k16_f16"> {
  ^bb0(%x: f32, %q: index, %k: index):
    %d = arith.subi %q, %k : index
    %d32 = arith.index_cast %d : index to i32
    %df = arith.sitofp %d32 : i32 to f32
    %one = arith.constant 1.0 : f32
    %y = arith.subf %x, %df : f32
    fmha.yield %y, %one : f32, f32
  }
  return
}
