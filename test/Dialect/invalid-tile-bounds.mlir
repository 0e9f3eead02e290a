// RUN: rocke-opt %s -split-input-file -verify-diagnostics
// Tile ops stay inside their buffers' static extents (from their offsets,
// where those are constants); rows a sequence length guards are not checked.

func.func @read_past_buffer(%buf: memref<8x8xbf16>, %i: index) {
  // expected-error @+1 {{reads a 32x32 tile from 'memref<8x8xbf16>', which is smaller}}
  %t = fmha.tile_read %buf[%i, %i] lane %i
      : memref<8x8xbf16> -> !fmha.tile<32x32xbf16, a, "mfma_f32_16x16x16_bf16">
  return
}

// -----

func.func @read_transposed(%buf: memref<16x64xbf16>, %i: index) {
  // expected-error @+1 {{reads a 16x32 tile transposed from 'memref<16x64xbf16>', which is smaller}}
  %t = fmha.tile_read %buf[%i, %i] lane %i {transposed}
      : memref<16x64xbf16> -> !fmha.tile<16x32xbf16, a, "mfma_f32_16x16x16_bf16">
  return
}

// -----

func.func @read_at_offset(%buf: memref<64x64xbf16>, %i: index) {
  %c56 = arith.constant 56 : index
  // expected-error @+1 {{reads a 16x16 tile from 'memref<64x64xbf16>' from index 56 along dim 0, past its end (64)}}
  %t = fmha.tile_read %buf[%c56, %i] lane %i
      : memref<64x64xbf16> -> !fmha.tile<16x16xbf16, b, "mfma_f32_16x16x16_bf16">
  return
}

// -----

func.func @write_past_buffer(%t: !fmha.tile<32x64xf32, c, "mma_sync_m16n8k16_f16">,
    %buf: memref<32x40xf16>, %i: index) {
  // expected-error @+1 {{writes a 32x64 tile into 'memref<32x40xf16>', which is smaller}}
  fmha.tile_write %t, %buf[%i, %i] lane %i
      : !fmha.tile<32x64xf32, c, "mma_sync_m16n8k16_f16">, memref<32x40xf16>
  return
}

// -----

func.func @write_core_matrices(%t: !fmha.tile<32x64xf32, c, "mma_sync_m16n8k16_f16">,
    %buf: memref<4x4x8x8xf16, #gpu.address_space<workgroup>>, %i: index) {
  // expected-error @+1 {{writes a 32x64 tile into 'memref<4x4x8x8xf16, #gpu.address_space<workgroup>>', which is smaller}}
  fmha.tile_write %t, %buf[%i, %i] lane %i
      : !fmha.tile<32x64xf32, c, "mma_sync_m16n8k16_f16">, memref<4x4x8x8xf16, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @load_past_rows(%src: memref<?x?x8x64xbf16>, %i: index) {
  // expected-error @+1 {{reads a 32x128 tile from 'memref<?x?x8x64xbf16>', which is smaller}}
  %t = fmha.tile_load %src[%i, %i, %i, %i] lane %i seq %i
      : memref<?x?x8x64xbf16> -> !fmha.tile<32x128xbf16, a, "mfma_f32_16x16x16_bf16">
  return
}

// -----

func.func @store_at_column(%t: !fmha.tile<16x64xf32, c, "mma_sync_m16n8k16_f16">,
    %dst: memref<?x?x8x64xbf16>, %i: index) {
  %c8 = arith.constant 8 : index
  // expected-error @+1 {{writes a 16x64 tile into 'memref<?x?x8x64xbf16>' from index 8 along dim 3, past its end (64)}}
  fmha.tile_store %t, %dst[%i, %i, %i, %c8] lane %i seq %i
      : !fmha.tile<16x64xf32, c, "mma_sync_m16n8k16_f16">, memref<?x?x8x64xbf16>
  return
}

// -----

// No sequence length guards the rows a gradient tile adds to.
func.func @accumulate_past_rows(%t: !fmha.tile<64x64xf32, c, "mma_sync_m16n8k16_f16">,
    %acc: memref<?x32x8x64xf32>, %i: index) {
  // expected-error @+1 {{writes a 64x64 tile into 'memref<?x32x8x64xf32>', which is smaller}}
  fmha.tile_accumulate atomic_add %t, %acc[%i, %i, %i, %i] lane %i
      : !fmha.tile<64x64xf32, c, "mma_sync_m16n8k16_f16">, memref<?x32x8x64xf32>
  return
}

// -----

func.func @broadcast_past_buffer(%stats: memref<32xf32>, %i: index) {
  // expected-error @+1 {{reads a 32x64 tile from 'memref<32xf32>', which is smaller}}
  %t = fmha.tile_broadcast %stats[%i] lane %i dim 1
      : memref<32xf32> -> !fmha.tile<32x64xf32, c, "mma_sync_m16n8k16_f16">
  return
}

// -----

// Dynamic offsets and extents, rows past a static sequence (guarded by
// seq) and a tile that ends at the buffer's end are fine.
func.func @in_bounds(%buf: memref<64x64xbf16>, %dyn: memref<?x?xbf16>,
    %src: memref<1x16x8x64xbf16>, %i: index) {
  %c48 = arith.constant 48 : index
  %a = fmha.tile_read %buf[%c48, %i] lane %i
      : memref<64x64xbf16> -> !fmha.tile<16x64xbf16, a, "mfma_f32_16x16x16_bf16">
  %b = fmha.tile_read %dyn[%i, %i] lane %i
      : memref<?x?xbf16> -> !fmha.tile<32x32xbf16, b, "mfma_f32_16x16x16_bf16">
  %c = fmha.tile_load %src[%i, %i, %i, %i] lane %i seq %i
      : memref<1x16x8x64xbf16> -> !fmha.tile<32x64xbf16, a, "mfma_f32_16x16x16_bf16">
  return
}
