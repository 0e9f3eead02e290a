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
