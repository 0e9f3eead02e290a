// RUN: rocke-opt %s | rocke-opt | FileCheck %s
// Subgroup tiles and their ops print and parse back.

// CHECK-LABEL: func.func @tiles
// CHECK: fmha.tile_zero : <32x32xf32, c, "mfma_f32_16x16x16_bf16">
// CHECK: fmha.tile_read %{{.*}}[%{{.*}}, %{{.*}}] lane %{{.*}} {transposed} : memref<32x136xbf16> -> <32x32xbf16, a, "mfma_f32_16x16x16_bf16">
// CHECK: fmha.tile_load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] lane %{{.*}} seq %{{.*}} : memref<?x?x8x128xbf16> -> <32x32xbf16, b, "mfma_f32_16x16x16_bf16">
// CHECK: fmha.tile_mma
// CHECK: fmha.tile_convert %{{.*}} {transposed} : <32x32xf32, c, "mfma_f32_16x16x16_bf16"> -> <32x32xbf16, a, "mfma_f32_16x16x16_bf16">
// CHECK: fmha.tile_unpack %{{.*}} : <32x32xf32, c, "mfma_f32_16x16x16_bf16"> -> vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>
// CHECK: fmha.tile_pack
func.func @tiles(%buf: memref<32x136xbf16>, %src: memref<?x?x8x128xbf16>,
                 %i: index, %lane: index) -> !fmha.tile<32x32xf32, c, "mfma_f32_16x16x16_bf16"> {
  %z = fmha.tile_zero : !fmha.tile<32x32xf32, c, "mfma_f32_16x16x16_bf16">
  %a = fmha.tile_read %buf[%i, %i] lane %lane {transposed}
      : memref<32x136xbf16> -> !fmha.tile<32x32xbf16, a, "mfma_f32_16x16x16_bf16">
  %b = fmha.tile_load %src[%i, %i, %i, %i] lane %lane seq %i
      : memref<?x?x8x128xbf16> -> !fmha.tile<32x32xbf16, b, "mfma_f32_16x16x16_bf16">
  %c = fmha.tile_mma %a, %b, %z
      : !fmha.tile<32x32xbf16, a, "mfma_f32_16x16x16_bf16">,
        !fmha.tile<32x32xbf16, b, "mfma_f32_16x16x16_bf16">
        -> !fmha.tile<32x32xf32, c, "mfma_f32_16x16x16_bf16">
  %t = fmha.tile_convert %c {transposed}
      : !fmha.tile<32x32xf32, c, "mfma_f32_16x16x16_bf16">
        -> !fmha.tile<32x32xbf16, a, "mfma_f32_16x16x16_bf16">
  %f:4 = fmha.tile_unpack %c : !fmha.tile<32x32xf32, c, "mfma_f32_16x16x16_bf16">
      -> vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>
  %p = fmha.tile_pack %f#0, %f#1, %f#2, %f#3
      : vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>
        -> !fmha.tile<32x32xf32, c, "mfma_f32_16x16x16_bf16">
  return %p : !fmha.tile<32x32xf32, c, "mfma_f32_16x16x16_bf16">
}

// CHECK-LABEL: func.func @softmax
// CHECK: fmha.tile_broadcast %{{.*}}[%{{.*}}] lane %{{.*}} dim 1 : memref<64xf32> -> <32x64xf32, c, "mma_sync_m16n8k16_f16">
// CHECK: fmha.tile_map(%{{.*}}, %{{.*}}) : !fmha.tile<32x64xf32, c, "mma_sync_m16n8k16_f16">, !fmha.tile<32x64xf32, c, "mma_sync_m16n8k16_f16"> -> !fmha.tile<32x64xf32, c, "mma_sync_m16n8k16_f16"> {
// CHECK: math.exp2
// CHECK: fmha.yield %{{.*}} : f32
// CHECK: fmha.tile_mask %{{.*}} at(%{{.*}}, %{{.*}}) lane %{{.*}} seq(%{{.*}}, %{{.*}}) {keys_along_rows, mask = #fmha.mask<causal>}
// CHECK: fmha.tile_write %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] lane %{{.*}} {transposed}
// CHECK: fmha.tile_accumulate atomic_add %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] lane %{{.*}}
// CHECK: fmha.tile_accumulate store
// CHECK: fmha.tile_store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] lane %{{.*}} seq %{{.*}} : <32x64xf32, c, "mma_sync_m16n8k16_f16">, memref<?x?x8x64xf16>
func.func @softmax(%s: !fmha.tile<32x64xf32, c, "mma_sync_m16n8k16_f16">, %stats: memref<64xf32>,
                   %ds: memref<64x40xf16>, %acc: memref<?x?x8x64xf32>, %part: memref<?x?x?x8x64xf32>, %i: index,
                   %grad: memref<?x?x8x64xf16>) {
  %o = fmha.tile_broadcast %stats[%i] lane %i dim 1 : memref<64xf32> -> !fmha.tile<32x64xf32, c, "mma_sync_m16n8k16_f16">
  %p = fmha.tile_map(%s, %o) : !fmha.tile<32x64xf32, c, "mma_sync_m16n8k16_f16">, !fmha.tile<32x64xf32, c, "mma_sync_m16n8k16_f16">
      -> !fmha.tile<32x64xf32, c, "mma_sync_m16n8k16_f16"> {
  ^bb0(%x: f32, %y: f32):
    %d = arith.subf %x, %y : f32
    %e = math.exp2 %d : f32
    fmha.yield %e : f32
  }
  %m = fmha.tile_mask %p at(%i, %i) lane %i seq(%i, %i) {keys_along_rows, mask = #fmha.mask<causal>}
      : !fmha.tile<32x64xf32, c, "mma_sync_m16n8k16_f16">
  fmha.tile_write %m, %ds[%i, %i] lane %i {transposed} : !fmha.tile<32x64xf32, c, "mma_sync_m16n8k16_f16">, memref<64x40xf16>
  fmha.tile_accumulate atomic_add %m, %acc[%i, %i, %i, %i] lane %i : !fmha.tile<32x64xf32, c, "mma_sync_m16n8k16_f16">, memref<?x?x8x64xf32>
  fmha.tile_accumulate store %m, %part[%i, %i, %i, %i, %i] lane %i : !fmha.tile<32x64xf32, c, "mma_sync_m16n8k16_f16">, memref<?x?x?x8x64xf32>
  fmha.tile_store %m, %grad[%i, %i, %i, %i] lane %i seq %i : !fmha.tile<32x64xf32, c, "mma_sync_m16n8k16_f16">, memref<?x?x8x64xf16>
  return
}

// An additive bias (issue 33): loaded at each element's position in a
// tile_map body, its gradient stored or added atomically into [B, H, Sq,
// Sk].
// CHECK-LABEL: func.func @bias
// CHECK: fmha.tile_map(%{{.*}}) at(%{{.*}}, %{{.*}}) lane %{{.*}} : !fmha.tile<32x64xf32, c, "mma_sync_m16n8k16_f16"> -> !fmha.tile<32x64xf32, c, "mma_sync_m16n8k16_f16"> {
// CHECK: memref.load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : memref<1x8x?x?xbf16>
// CHECK: fmha.tile_store_scores atomic_add %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] at(%{{.*}}, %{{.*}}) lane %{{.*}} seq(%{{.*}}, %{{.*}}) {keys_along_rows} : <32x64xf32, c, "mma_sync_m16n8k16_f16">, memref<1x8x?x?xf32>
// CHECK: fmha.tile_store_scores store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] at(%{{.*}}, %{{.*}}) lane %{{.*}} seq(%{{.*}}, %{{.*}}) : <32x64xf32, c, "mma_sync_m16n8k16_f16">, memref<1x8x?x?xf32>
func.func @bias(%s: !fmha.tile<32x64xf32, c, "mma_sync_m16n8k16_f16">, %bias: memref<1x8x?x?xbf16>,
                %dbias: memref<1x8x?x?xf32>, %i: index) {
  %b = fmha.tile_map(%s) at(%i, %i) lane %i : !fmha.tile<32x64xf32, c, "mma_sync_m16n8k16_f16">
      -> !fmha.tile<32x64xf32, c, "mma_sync_m16n8k16_f16"> {
  ^bb0(%x: f32, %q: index, %k: index):
    %e = memref.load %bias[%i, %i, %q, %k] : memref<1x8x?x?xbf16>
    %f = arith.extf %e : bf16 to f32
    %y = arith.addf %x, %f : f32
    fmha.yield %y : f32
  }
  fmha.tile_store_scores atomic_add %b, %dbias[%i, %i] at(%i, %i) lane %i seq(%i, %i) {keys_along_rows}
      : !fmha.tile<32x64xf32, c, "mma_sync_m16n8k16_f16">, memref<1x8x?x?xf32>
  fmha.tile_store_scores store %b, %dbias[%i, %i] at(%i, %i) lane %i seq(%i, %i)
      : !fmha.tile<32x64xf32, c, "mma_sync_m16n8k16_f16">, memref<1x8x?x?xf32>
  return
}

// The forward's online softmax: -inf masking, row maxima and sums as
// per-column vectors of S^T, broadcast back onto S^T and O^T, the
// statistics stored per query, O^T stored transposed.
// CHECK-LABEL: func.func @online_softmax
// CHECK: fmha.tile_mask {{.*}} {fill = 0xFF800000 : f32, keys_along_rows}
// CHECK: fmha.tile_reduce max %{{.*}} dim 0 : <64x32xf32, c, "mfma_f32_16x16x16_bf16"> -> <1x32xf32, cols, "mfma_f32_16x16x16_bf16">
// CHECK: fmha.tile_map(%{{.*}}, %{{.*}}) : !fmha.tile<64x32xf32, c, "mfma_f32_16x16x16_bf16">, !fmha.tile<1x32xf32, cols, "mfma_f32_16x16x16_bf16"> -> !fmha.tile<64x32xf32, c, "mfma_f32_16x16x16_bf16">
// CHECK: fmha.tile_reduce add %{{.*}} dim 0
// CHECK: fmha.tile_store_lines %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] lane %{{.*}} seq %{{.*}} : <1x32xf32, cols, "mfma_f32_16x16x16_bf16">, memref<?x8x?xf32>
// CHECK: fmha.tile_store {{.*}} {transposed} : <128x32xf32, c, "mfma_f32_16x16x16_bf16">, memref<?x?x8x128xbf16>
func.func @online_softmax(%s: !fmha.tile<64x32xf32, c, "mfma_f32_16x16x16_bf16">,
                          %o: !fmha.tile<128x32xf32, c, "mfma_f32_16x16x16_bf16">,
                          %lse: memref<?x8x?xf32>, %out: memref<?x?x8x128xbf16>, %i: index) {
  %m = fmha.tile_mask %s at(%i, %i) lane %i seq(%i, %i) {keys_along_rows, fill = 0xFF800000 : f32}
      : !fmha.tile<64x32xf32, c, "mfma_f32_16x16x16_bf16">
  %mx = fmha.tile_reduce max %m dim 0 : !fmha.tile<64x32xf32, c, "mfma_f32_16x16x16_bf16"> -> !fmha.tile<1x32xf32, cols, "mfma_f32_16x16x16_bf16">
  %p = fmha.tile_map(%m, %mx) : !fmha.tile<64x32xf32, c, "mfma_f32_16x16x16_bf16">, !fmha.tile<1x32xf32, cols, "mfma_f32_16x16x16_bf16">
      -> !fmha.tile<64x32xf32, c, "mfma_f32_16x16x16_bf16"> {
  ^bb0(%x: f32, %y: f32):
    %d = arith.subf %x, %y : f32
    %e = math.exp2 %d : f32
    fmha.yield %e : f32
  }
  %l = fmha.tile_reduce add %p dim 0 : !fmha.tile<64x32xf32, c, "mfma_f32_16x16x16_bf16"> -> !fmha.tile<1x32xf32, cols, "mfma_f32_16x16x16_bf16">
  fmha.tile_store_lines %l, %lse[%i, %i, %i] lane %i seq %i : !fmha.tile<1x32xf32, cols, "mfma_f32_16x16x16_bf16">, memref<?x8x?xf32>
  fmha.tile_store %o, %out[%i, %i, %i, %i] lane %i seq %i {transposed} : !fmha.tile<128x32xf32, c, "mfma_f32_16x16x16_bf16">, memref<?x?x8x128xbf16>
  return
}
