// RUN: rocke-opt %s -split-input-file | rocke-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @bwd_static_lse
// CHECK: fmha.attention_bwd %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, stats(%{{.*}}) -> %{{.*}}, %{{.*}}, %{{.*}} {mask = #fmha.mask<causal, alignment = bottom_right>}
func.func @bwd_static_lse(%q: memref<2x128x8x64xf16>, %k: memref<2x256x8x64xf16>,
    %v: memref<2x256x8x64xf16>, %o: memref<2x128x8x64xf16>, %do: memref<2x128x8x64xf16>,
    %lse: memref<2x8x128xf32>, %dq: memref<2x128x8x64xf16>, %dk: memref<2x256x8x64xf16>,
    %dv: memref<2x256x8x64xf16>) {
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv
      {mask = #fmha.mask<causal, alignment = bottom_right>}
      : memref<2x128x8x64xf16>, memref<2x256x8x64xf16>, memref<2x256x8x64xf16>,
        memref<2x128x8x64xf16>, memref<2x128x8x64xf16>, stats(memref<2x8x128xf32>)
        -> memref<2x128x8x64xf16>, memref<2x256x8x64xf16>, memref<2x256x8x64xf16>
  return
}

// -----

// CHECK-LABEL: func.func @bwd_dynamic_gqa_bhsd
// CHECK: fmha.attention_bwd
// CHECK-SAME: accumulator_type = bf16
// CHECK-SAME: deterministic
// CHECK-SAME: mask = #fmha.mask<sliding_window, left = 128, right = 16>
// CHECK-SAME: scale = 1.250000e-01 : f32
// CHECK-SAME: stats_encoding = #fmha.stats<log2_max_sum>
// CHECK-SAME: memref<?x?x16x128xbf16, strided<[?, 128, ?, 1]>>
func.func @bwd_dynamic_gqa_bhsd(%q: memref<?x?x16x128xbf16, strided<[?, 128, ?, 1]>>,
    %k: memref<?x?x4x128xbf16, strided<[?, 128, ?, 1]>>, %v: memref<?x?x4x128xbf16, strided<[?, 128, ?, 1]>>,
    %o: memref<?x?x16x128xbf16>, %do: memref<?x?x16x128xbf16>,
    %m: memref<?x16x?xf32>, %l: memref<?x16x?xf32>,
    %dq: memref<?x?x16x128xf32>, %dk: memref<?x?x4x128xbf16>, %dv: memref<?x?x4x128xbf16>) {
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%m, %l) -> %dq, %dk, %dv
      {mask = #fmha.mask<sliding_window, left = 128, right = 16>, scale = 0.125 : f32,
       stats_encoding = #fmha.stats<log2_max_sum>, deterministic, accumulator_type = bf16}
      : memref<?x?x16x128xbf16, strided<[?, 128, ?, 1]>>, memref<?x?x4x128xbf16, strided<[?, 128, ?, 1]>>,
        memref<?x?x4x128xbf16, strided<[?, 128, ?, 1]>>, memref<?x?x16x128xbf16>, memref<?x?x16x128xbf16>,
        stats(memref<?x16x?xf32>, memref<?x16x?xf32>)
        -> memref<?x?x16x128xf32>, memref<?x?x4x128xbf16>, memref<?x?x4x128xbf16>
  return
}

// -----

// CHECK-LABEL: func.func @fwd_masks
// CHECK: fmha.attention_fwd %{{.*}}, %{{.*}}, %{{.*}} -> %{{.*}}, stats(%{{.*}}) {mask = #fmha.mask<one_sided_window, left = 256>}
// CHECK: fmha.attention_fwd {{.*}} {mask = #fmha.mask<causal>}
// CHECK: fmha.attention_fwd {{.*}} {mask = #fmha.mask<sliding_window, alignment = bottom_right, left = 0, right = 8>}
// CHECK: fmha.attention_fwd {{.*}} {mask = #fmha.mask<none>}
// CHECK: fmha.attention_fwd {{.*}} -> %{{.*}}, stats(%{{.*}}) : memref
func.func @fwd_masks(%q: memref<1x?x2x32xf32>, %k: memref<1x?x1x32xf32>, %v: memref<1x?x1x96xf32>,
    %o: memref<1x?x2x96xf32>, %lse: memref<1x2x?xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) {mask = #fmha.mask<one_sided_window, left = 256>}
      : memref<1x?x2x32xf32>, memref<1x?x1x32xf32>, memref<1x?x1x96xf32> -> memref<1x?x2x96xf32>, stats(memref<1x2x?xf32>)
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) {mask = #fmha.mask<causal, alignment = top_left>}
      : memref<1x?x2x32xf32>, memref<1x?x1x32xf32>, memref<1x?x1x96xf32> -> memref<1x?x2x96xf32>, stats(memref<1x2x?xf32>)
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) {mask = #fmha.mask<sliding_window, alignment = bottom_right, left = 0, right = 8>}
      : memref<1x?x2x32xf32>, memref<1x?x1x32xf32>, memref<1x?x1x96xf32> -> memref<1x?x2x96xf32>, stats(memref<1x2x?xf32>)
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) {mask = #fmha.mask<none>}
      : memref<1x?x2x32xf32>, memref<1x?x1x32xf32>, memref<1x?x1x96xf32> -> memref<1x?x2x96xf32>, stats(memref<1x2x?xf32>)
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
      : memref<1x?x2x32xf32>, memref<1x?x1x32xf32>, memref<1x?x1x96xf32> -> memref<1x?x2x96xf32>, stats(memref<1x2x?xf32>)
  return
}

// -----

// CHECK-LABEL: func.func @atomic_add
// CHECK: fmha.atomic_add %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] {alignment = 8 : i64} : vector<2xf32>, memref<?x64xf32>
// CHECK: fmha.atomic_add %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : vector<1xf32>, memref<?x64xf32, strided<[1, ?]>>
// CHECK: fmha.atomic_add %{{.*}}, %{{.*}}[] : vector<1xf16>, memref<f16>
func.func @atomic_add(%v2: vector<2xf32>, %v1: vector<1xf32>, %h: vector<1xf16>,
    %acc: memref<?x64xf32>, %cols: memref<?x64xf32, strided<[1, ?]>>,
    %scalar: memref<f16>, %i: index, %j: index) {
  fmha.atomic_add %v2, %acc[%i, %j] {alignment = 8} : vector<2xf32>, memref<?x64xf32>
  // One element needs no unit stride.
  fmha.atomic_add %v1, %cols[%i, %j] : vector<1xf32>, memref<?x64xf32, strided<[1, ?]>>
  fmha.atomic_add %h, %scalar[] : vector<1xf16>, memref<f16>
  return
}

// -----

// CHECK-LABEL: func.func @mask_fragment
// CHECK: fmha.mask_fragment %{{.*}} at(%{{.*}}, %{{.*}}) lane %{{.*}} seq(%{{.*}}, %{{.*}}) {atom = "mfma_f32_16x16x16_bf16", mask = #fmha.mask<causal>} : vector<4xf32>
// CHECK: fmha.mask_fragment %{{.*}} at(%{{.*}}, %{{.*}}) lane %{{.*}} seq(%{{.*}}, %{{.*}}) {atom = "mma_sync_m16n8k16_bf16", keys_along_rows} : vector<4xf32>
func.func @mask_fragment(%x: vector<4xf32>, %q: index, %k: index, %lane: index,
    %sq: index, %sk: index) -> (vector<4xf32>, vector<4xf32>) {
  %a = fmha.mask_fragment %x at(%q, %k) lane %lane seq(%sq, %sk)
      {atom = "mfma_f32_16x16x16_bf16", mask = #fmha.mask<causal>} : vector<4xf32>
  // No mask: only the keys past Sk.
  %b = fmha.mask_fragment %x at(%q, %k) lane %lane seq(%sq, %sk)
      {atom = "mma_sync_m16n8k16_bf16", keys_along_rows} : vector<4xf32>
  return %a, %b : vector<4xf32>, vector<4xf32>
}
