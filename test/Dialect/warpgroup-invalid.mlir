// RUN: rocke-opt %s -split-input-file -verify-diagnostics
// The verifiers of the warpgroup ops (fmha.warpgroup_mma,
// fmha.warpgroup_wait, fmha.tile_mma_warpgroup) and of fmha.tile_write's
// 4-D buffers of core matrices.

#wg = #gpu.address_space<workgroup>
func.func @no_b_descriptor(%acc: vector<8xf32>, %buf: memref<2x2x8x8xbf16, #wg>) -> vector<8xf32> {
  // expected-error @+1 {{takes, per k step, one B descriptor and either an A fragment or an A descriptor; got 0 A fragments, 0 A descriptors and 0 B descriptors}}
  %d = fmha.warpgroup_mma %acc, a[], a_desc[], b_desc[] reads %buf : memref<2x2x8x8xbf16, #wg> -> vector<8xf32>
  return %d : vector<8xf32>
}

// -----

#wg = #gpu.address_space<workgroup>
func.func @steps_differ(%acc: vector<8xf32>, %a: vector<8xbf16>, %b0: i64, %b1: i64, %buf: memref<2x2x8x8xbf16, #wg>) -> vector<8xf32> {
  // expected-error @+1 {{takes, per k step, one B descriptor and either an A fragment or an A descriptor; got 1 A fragments, 0 A descriptors and 2 B descriptors}}
  %d = fmha.warpgroup_mma %acc, a[%a : vector<8xbf16>], a_desc[], b_desc[%b0, %b1] reads %buf : memref<2x2x8x8xbf16, #wg> -> vector<8xf32>
  return %d : vector<8xf32>
}

// -----

// One fragment and one descriptor for two steps: A is either in registers
// or in workgroup memory, for all steps.
#wg = #gpu.address_space<workgroup>
func.func @mixed_a(%acc: vector<8xf32>, %a: vector<8xbf16>, %ad: i64, %b0: i64, %b1: i64, %buf: memref<2x2x8x8xbf16, #wg>) -> vector<8xf32> {
  // expected-error @+1 {{got 1 A fragments, 1 A descriptors and 2 B descriptors}}
  %d = fmha.warpgroup_mma %acc, a[%a : vector<8xbf16>], a_desc[%ad], b_desc[%b0, %b1] reads %buf : memref<2x2x8x8xbf16, #wg> -> vector<8xf32>
  return %d : vector<8xf32>
}

// -----

func.func @no_buffers(%acc: vector<8xf32>, %a: vector<8xbf16>, %b: i64) -> vector<8xf32> {
  // expected-error @+1 {{names the workgroup buffers it reads}}
  %d = "fmha.warpgroup_mma"(%acc, %a, %b) {operandSegmentSizes = array<i32: 1, 1, 0, 1, 0>} : (vector<8xf32>, vector<8xbf16>, i64) -> vector<8xf32>
  return %d : vector<8xf32>
}

// -----

#wg = #gpu.address_space<workgroup>
func.func @mn_major_a_registers(%acc: vector<8xf32>, %a: vector<8xbf16>, %b: i64, %buf: memref<2x2x8x8xbf16, #wg>) -> vector<8xf32> {
  // expected-error @+1 {{mn_major_a describes A in workgroup memory}}
  %d = fmha.warpgroup_mma %acc, a[%a : vector<8xbf16>], a_desc[], b_desc[%b] reads %buf : memref<2x2x8x8xbf16, #wg> {mn_major_a} -> vector<8xf32>
  return %d : vector<8xf32>
}

// -----

// A fragments of another type than the buffers' (f16 bits read as bf16).
#wg = #gpu.address_space<workgroup>
func.func @fragment_not_buffer_type(%acc: vector<8xf32>, %a: vector<8xf16>, %b: i64, %buf: memref<2x2x8x8xbf16, #wg>) -> vector<8xf32> {
  // expected-error @+1 {{A fragments are vector<8x'bf16'> (mma.sync m16n8k16, the buffers' type), got 'vector<8xf16>'}}
  %d = fmha.warpgroup_mma %acc, a[%a : vector<8xf16>], a_desc[], b_desc[%b] reads %buf : memref<2x2x8x8xbf16, #wg> -> vector<8xf32>
  return %d : vector<8xf32>
}

// -----

#wg = #gpu.address_space<workgroup>
func.func @f32_buffer(%acc: vector<8xf32>, %a: i64, %b: i64, %buf: memref<2x2x8x8xf32, #wg>) -> vector<8xf32> {
  // expected-error @+1 {{multiplies f16 or bf16 operands, got 'f32'}}
  %d = fmha.warpgroup_mma %acc, a[], a_desc[%a], b_desc[%b] reads %buf : memref<2x2x8x8xf32, #wg> -> vector<8xf32>
  return %d : vector<8xf32>
}

// -----

func.func @global_buffer(%acc: vector<8xf32>, %a: i64, %b: i64, %buf: memref<2x2x8x8xbf16>) -> vector<8xf32> {
  // expected-error @+1 {{reads workgroup buffers, got 'memref<2x2x8x8xbf16>'}}
  %d = fmha.warpgroup_mma %acc, a[], a_desc[%a], b_desc[%b] reads %buf : memref<2x2x8x8xbf16> -> vector<8xf32>
  return %d : vector<8xf32>
}

// -----

#wg = #gpu.address_space<workgroup>
func.func @buffer_types_differ(%acc: vector<8xf32>, %a: i64, %b: i64, %buf: memref<2x2x8x8xbf16, #wg>, %abuf: memref<2x2x8x8xf16, #wg>) -> vector<8xf32> {
  // expected-error @+1 {{buffers of one element type, got 'bf16' and 'f16'}}
  %d = fmha.warpgroup_mma %acc, a[], a_desc[%a], b_desc[%b] reads %buf, %abuf : memref<2x2x8x8xbf16, #wg>, memref<2x2x8x8xf16, #wg> -> vector<8xf32>
  return %d : vector<8xf32>
}

// -----

#wg = #gpu.address_space<workgroup>
func.func @short_fragment(%acc: vector<8xf32>, %a: vector<4xbf16>, %b: i64, %buf: memref<2x2x8x8xbf16, #wg>) -> vector<8xf32> {
  // expected-error @+1 {{A fragments are vector<8x'bf16'> (mma.sync m16n8k16, the buffers' type), got 'vector<4xbf16>'}}
  %d = fmha.warpgroup_mma %acc, a[%a : vector<4xbf16>], a_desc[], b_desc[%b] reads %buf : memref<2x2x8x8xbf16, #wg> -> vector<8xf32>
  return %d : vector<8xf32>
}

// -----

#wg = #gpu.address_space<workgroup>
func.func @fragment_types_differ(%acc: vector<8xf32>, %a0: vector<8xbf16>, %a1: vector<8xf16>, %b0: i64, %b1: i64, %buf: memref<2x2x8x8xbf16, #wg>) -> vector<8xf32> {
  // expected-error @+1 {{A fragments are vector<8x'bf16'> (mma.sync m16n8k16, the buffers' type), got 'vector<8xf16>'}}
  %d = fmha.warpgroup_mma %acc, a[%a0, %a1 : vector<8xbf16>, vector<8xf16>], a_desc[], b_desc[%b0, %b1] reads %buf : memref<2x2x8x8xbf16, #wg> -> vector<8xf32>
  return %d : vector<8xf32>
}

// -----

#wg = #gpu.address_space<workgroup>
func.func @ragged_acc(%acc: vector<6xf32>, %a: vector<8xbf16>, %b: i64, %buf: memref<2x2x8x8xbf16, #wg>) -> vector<6xf32> {
  // expected-error @+1 {{accumulator holds 16 rows of N = 8..256 columns (4 registers per 8), got 6 registers}}
  %d = fmha.warpgroup_mma %acc, a[%a : vector<8xbf16>], a_desc[], b_desc[%b] reads %buf : memref<2x2x8x8xbf16, #wg> -> vector<6xf32>
  return %d : vector<6xf32>
}

// -----

// N = 264 > 256.
#wg = #gpu.address_space<workgroup>
func.func @wide_acc(%acc: vector<132xf32>, %ad: i64, %b: i64, %buf: memref<2x2x8x8xbf16, #wg>) -> vector<132xf32> {
  // expected-error @+1 {{accumulator holds 16 rows of N = 8..256 columns (4 registers per 8), got 132 registers}}
  %d = fmha.warpgroup_mma %acc, a[], a_desc[%ad], b_desc[%b] reads %buf : memref<2x2x8x8xbf16, #wg> -> vector<132xf32>
  return %d : vector<132xf32>
}

// -----

func.func @pending(%acc: vector<8xf32>, %a: vector<8xbf16>, %b: i64, %buf: memref<2x2x8x8xbf16, #gpu.address_space<workgroup>>) -> vector<8xf32> {
  %d = fmha.warpgroup_mma %acc, a[%a : vector<8xbf16>], a_desc[], b_desc[%b] reads %buf : memref<2x2x8x8xbf16, #gpu.address_space<workgroup>> -> vector<8xf32>
  // expected-error @+1 {{pending must be 0..7 (wgmma.wait_group), got 8}}
  %r = fmha.warpgroup_wait %d reads %buf {pending = 8} : vector<8xf32>, memref<2x2x8x8xbf16, #gpu.address_space<workgroup>>
  return %r : vector<8xf32>
}

// -----

func.func @wait_for_what(%v: vector<8xf32>, %buf: memref<2x2x8x8xbf16, #gpu.address_space<workgroup>>) -> vector<8xf32> {
  // expected-error @+1 {{waits for the result of an fmha.warpgroup_mma}}
  %r = fmha.warpgroup_wait %v reads %buf : vector<8xf32>, memref<2x2x8x8xbf16, #gpu.address_space<workgroup>>
  return %r : vector<8xf32>
}

// -----

!A = !fmha.tile<16x16xbf16, a, "mma_sync_m16n8k16_bf16">
#wg = #gpu.address_space<workgroup>
func.func @acc_role(%a: !A, %acc: !A, %buf: memref<2x2x8x8xbf16, #wg>, %i: index) {
  // expected-error @+1 {{accumulates into a tile in role c, got a}}
  %d = fmha.tile_mma_warpgroup lhs %a : !A, rhs %buf[%i, %i] : memref<2x2x8x8xbf16, #wg>, acc %acc : !A
  return
}

// -----

!A = !fmha.tile<16x16xbf16, a, "mfma_f32_16x16x16_bf16">
!C = !fmha.tile<16x16xf32, c, "mfma_f32_16x16x16_bf16">
#wg = #gpu.address_space<workgroup>
func.func @mfma(%a: !A, %acc: !C, %buf: memref<2x2x8x8xbf16, #wg>, %i: index) {
  // expected-error @+1 {{keeps the subgroup's registers in an mma.sync layout, not 'mfma_f32_16x16x16_bf16'}}
  %d = fmha.tile_mma_warpgroup lhs %a : !A, rhs %buf[%i, %i] : memref<2x2x8x8xbf16, #wg>, acc %acc : !C
  return
}

// -----

!A = !fmha.tile<32x16xbf16, a, "mma_sync_m16n8k16_bf16">
!C = !fmha.tile<32x16xf32, c, "mma_sync_m16n8k16_bf16">
#wg = #gpu.address_space<workgroup>
func.func @acc_rows(%a: !A, %acc: !C, %buf: memref<2x2x8x8xbf16, #wg>, %i: index) {
  // expected-error @+1 {{takes the subgroup's 16 rows of the warpgroup's 64, got 32}}
  %d = fmha.tile_mma_warpgroup lhs %a : !A, rhs %buf[%i, %i] : memref<2x2x8x8xbf16, #wg>, acc %acc : !C
  return
}

// -----

!A = !fmha.tile<16x16xbf16, a, "mma_sync_m16n8k16_bf16">
!C = !fmha.tile<16x264xf32, c, "mma_sync_m16n8k16_bf16">
#wg = #gpu.address_space<workgroup>
func.func @too_wide(%a: !A, %acc: !C, %buf: memref<2x33x8x8xbf16, #wg>, %i: index) {
  // expected-error @+1 {{N (264) must be at most 256}}
  %d = fmha.tile_mma_warpgroup lhs %a : !A, rhs %buf[%i, %i] : memref<2x33x8x8xbf16, #wg>, acc %acc : !C
  return
}

// -----

!A = !fmha.tile<16x16xbf16, a, "mma_sync_m16n8k16_bf16">
!C = !fmha.tile<16x16xf32, c, "mma_sync_m16n8k16_bf16">
#wg = #gpu.address_space<workgroup>
func.func @both_lhs(%a: !A, %acc: !C, %abuf: memref<8x2x8x8xbf16, #wg>, %buf: memref<2x2x8x8xbf16, #wg>, %i: index) {
  // expected-error @+1 {{takes A from registers (lhs) or from workgroup memory (lhs_buffer and k), not both}}
  %d = fmha.tile_mma_warpgroup lhs %a : !A, lhs_buffer %abuf[%i, %i] : memref<8x2x8x8xbf16, #wg>, rhs %buf[%i, %i] : memref<2x2x8x8xbf16, #wg>, acc %acc {k = 16 : i64} : !C
  return
}

// -----

// k belongs to A in workgroup memory.
!A = !fmha.tile<16x16xbf16, a, "mma_sync_m16n8k16_bf16">
!C = !fmha.tile<16x16xf32, c, "mma_sync_m16n8k16_bf16">
#wg = #gpu.address_space<workgroup>
func.func @lhs_and_k(%a: !A, %acc: !C, %buf: memref<2x2x8x8xbf16, #wg>, %i: index) {
  // expected-error @+1 {{takes A from registers (lhs) or from workgroup memory (lhs_buffer and k), not both}}
  %d = fmha.tile_mma_warpgroup lhs %a : !A, rhs %buf[%i, %i] : memref<2x2x8x8xbf16, #wg>, acc %acc {k = 16 : i64} : !C
  return
}

// -----

!B = !fmha.tile<16x16xbf16, b, "mma_sync_m16n8k16_bf16">
!C = !fmha.tile<16x16xf32, c, "mma_sync_m16n8k16_bf16">
#wg = #gpu.address_space<workgroup>
func.func @lhs_role(%a: !B, %acc: !C, %buf: memref<2x2x8x8xbf16, #wg>, %i: index) {
  // expected-error @+1 {{lhs must be a tile in role a of 'mma_sync_m16n8k16_bf16'}}
  %d = fmha.tile_mma_warpgroup lhs %a : !B, rhs %buf[%i, %i] : memref<2x2x8x8xbf16, #wg>, acc %acc : !C
  return
}

// -----

!A = !fmha.tile<16x16xf16, a, "mma_sync_m16n8k16_f16">
!C = !fmha.tile<16x16xf32, c, "mma_sync_m16n8k16_bf16">
#wg = #gpu.address_space<workgroup>
func.func @lhs_atom(%a: !A, %acc: !C, %buf: memref<2x2x8x8xbf16, #wg>, %i: index) {
  // expected-error @+1 {{lhs must be a tile in role a of 'mma_sync_m16n8k16_bf16'}}
  %d = fmha.tile_mma_warpgroup lhs %a : !A, rhs %buf[%i, %i] : memref<2x2x8x8xbf16, #wg>, acc %acc : !C
  return
}

// -----

!A = !fmha.tile<32x16xbf16, a, "mma_sync_m16n8k16_bf16">
!C = !fmha.tile<16x16xf32, c, "mma_sync_m16n8k16_bf16">
#wg = #gpu.address_space<workgroup>
func.func @lhs_rows(%a: !A, %acc: !C, %buf: memref<2x2x8x8xbf16, #wg>, %i: index) {
  // expected-error @+1 {{takes the subgroup's 16 rows of A, got 32}}
  %d = fmha.tile_mma_warpgroup lhs %a : !A, rhs %buf[%i, %i] : memref<2x2x8x8xbf16, #wg>, acc %acc : !C
  return
}

// -----

!C = !fmha.tile<16x16xf32, c, "mma_sync_m16n8k16_bf16">
#wg = #gpu.address_space<workgroup>
func.func @no_lhs(%acc: !C, %buf: memref<2x2x8x8xbf16, #wg>, %i: index) {
  // expected-error @+1 {{takes A from registers (lhs) or from workgroup memory (lhs_buffer and k)}}
  %d = fmha.tile_mma_warpgroup rhs %buf[%i, %i] : memref<2x2x8x8xbf16, #wg>, acc %acc : !C
  return
}

// -----

!C = !fmha.tile<16x16xf32, c, "mma_sync_m16n8k16_bf16">
#wg = #gpu.address_space<workgroup>
func.func @no_k(%acc: !C, %abuf: memref<8x2x8x8xbf16, #wg>, %buf: memref<2x2x8x8xbf16, #wg>, %i: index) {
  // expected-error @+1 {{takes A from registers (lhs) or from workgroup memory (lhs_buffer and k)}}
  %d = fmha.tile_mma_warpgroup lhs_buffer %abuf[%i, %i] : memref<8x2x8x8xbf16, #wg>, rhs %buf[%i, %i] : memref<2x2x8x8xbf16, #wg>, acc %acc : !C
  return
}

// -----

!C = !fmha.tile<16x16xf32, c, "mma_sync_m16n8k16_bf16">
#wg = #gpu.address_space<workgroup>
func.func @ragged_k(%acc: !C, %abuf: memref<8x4x8x8xbf16, #wg>, %buf: memref<4x2x8x8xbf16, #wg>, %i: index) {
  // expected-error @+1 {{k (24) must be a positive multiple of 16}}
  %d = fmha.tile_mma_warpgroup lhs_buffer %abuf[%i, %i] : memref<8x4x8x8xbf16, #wg>, rhs %buf[%i, %i] : memref<4x2x8x8xbf16, #wg>, acc %acc {k = 24 : i64} : !C
  return
}

// -----

!C = !fmha.tile<16x16xf32, c, "mma_sync_m16n8k16_bf16">
#wg = #gpu.address_space<workgroup>
func.func @zero_k(%acc: !C, %abuf: memref<8x4x8x8xbf16, #wg>, %buf: memref<4x2x8x8xbf16, #wg>, %i: index) {
  // expected-error @+1 {{k (0) must be a positive multiple of 16}}
  %d = fmha.tile_mma_warpgroup lhs_buffer %abuf[%i, %i] : memref<8x4x8x8xbf16, #wg>, rhs %buf[%i, %i] : memref<4x2x8x8xbf16, #wg>, acc %acc {k = 0 : i64} : !C
  return
}

// -----

// A [64 x 32] needs 8 x 4 core matrices; the buffer has 8 x 2.
!C = !fmha.tile<16x16xf32, c, "mma_sync_m16n8k16_bf16">
#wg = #gpu.address_space<workgroup>
func.func @a_does_not_fit(%acc: !C, %abuf: memref<8x2x8x8xbf16, #wg>, %buf: memref<4x2x8x8xbf16, #wg>, %i: index) {
  // expected-error @+1 {{A [64 x 32] does not fit 'memref<8x2x8x8xbf16, #gpu.address_space<workgroup>>'}}
  %d = fmha.tile_mma_warpgroup lhs_buffer %abuf[%i, %i] : memref<8x2x8x8xbf16, #wg>, rhs %buf[%i, %i] : memref<4x2x8x8xbf16, #wg>, acc %acc {k = 32 : i64} : !C
  return
}

// -----

// With lhs_transposed A^T [32 x 64] is in the buffer: 4 x 8 core matrices.
!C = !fmha.tile<16x16xf32, c, "mma_sync_m16n8k16_bf16">
#wg = #gpu.address_space<workgroup>
func.func @a_transposed_does_not_fit(%acc: !C, %abuf: memref<8x4x8x8xbf16, #wg>, %buf: memref<4x2x8x8xbf16, #wg>, %i: index) {
  // expected-error @+1 {{A [32 x 64] does not fit 'memref<8x4x8x8xbf16, #gpu.address_space<workgroup>>'}}
  %d = fmha.tile_mma_warpgroup lhs_buffer %abuf[%i, %i] : memref<8x4x8x8xbf16, #wg>, rhs %buf[%i, %i] : memref<4x2x8x8xbf16, #wg>, acc %acc {k = 32 : i64, lhs_transposed} : !C
  return
}

// -----

!C = !fmha.tile<16x16xf32, c, "mma_sync_m16n8k16_bf16">
#wg = #gpu.address_space<workgroup>
func.func @a_rank(%acc: !C, %abuf: memref<64x32xbf16, #wg>, %buf: memref<4x2x8x8xbf16, #wg>, %i: index) {
  // expected-error @+1 {{reads A from a [R/8][C/W][8][W] buffer of 8-row atoms with rows of 16 bytes (core matrices) or 128 (swizzled), got 'memref<64x32xbf16, #gpu.address_space<workgroup>>'}}
  %d = fmha.tile_mma_warpgroup lhs_buffer %abuf[%i, %i] : memref<64x32xbf16, #wg>, rhs %buf[%i, %i] : memref<4x2x8x8xbf16, #wg>, acc %acc {k = 32 : i64} : !C
  return
}

// -----

!C = !fmha.tile<16x16xf32, c, "mma_sync_m16n8k16_bf16">
#wg = #gpu.address_space<workgroup>
func.func @a_element_type(%acc: !C, %abuf: memref<8x4x8x8xf16, #wg>, %buf: memref<4x2x8x8xbf16, #wg>, %i: index) {
  // expected-error @+1 {{A buffer element type 'f16' differs from 'bf16'}}
  %d = fmha.tile_mma_warpgroup lhs_buffer %abuf[%i, %i] : memref<8x4x8x8xf16, #wg>, rhs %buf[%i, %i] : memref<4x2x8x8xbf16, #wg>, acc %acc {k = 32 : i64} : !C
  return
}

// -----

!C = !fmha.tile<16x16xf32, c, "mma_sync_m16n8k16_bf16">
#wg = #gpu.address_space<workgroup>
func.func @a_global(%acc: !C, %abuf: memref<8x4x8x8xbf16>, %buf: memref<4x2x8x8xbf16, #wg>, %i: index) {
  // expected-error @+1 {{reads A from workgroup memory, got 'memref<8x4x8x8xbf16>'}}
  %d = fmha.tile_mma_warpgroup lhs_buffer %abuf[%i, %i] : memref<8x4x8x8xbf16>, rhs %buf[%i, %i] : memref<4x2x8x8xbf16, #wg>, acc %acc {k = 32 : i64} : !C
  return
}

// -----

!A = !fmha.tile<16x16xbf16, a, "mma_sync_m16n8k16_bf16">
!C = !fmha.tile<16x16xf32, c, "mma_sync_m16n8k16_bf16">
#wg = #gpu.address_space<workgroup>
func.func @b_core_matrix_shape(%a: !A, %acc: !C, %buf: memref<2x2x8x16xbf16, #wg>, %i: index) {
  // expected-error @+1 {{reads B from a [R/8][C/W][8][W] buffer of 8-row atoms with rows of 16 bytes (core matrices) or 128 (swizzled), got 'memref<2x2x8x16xbf16, #gpu.address_space<workgroup>>'}}
  %d = fmha.tile_mma_warpgroup lhs %a : !A, rhs %buf[%i, %i] : memref<2x2x8x16xbf16, #wg>, acc %acc : !C
  return
}

// -----

!A = !fmha.tile<16x16xbf16, a, "mma_sync_m16n8k16_bf16">
!C = !fmha.tile<16x16xf32, c, "mma_sync_m16n8k16_bf16">
#wg = #gpu.address_space<workgroup>
func.func @b_element_type(%a: !A, %acc: !C, %buf: memref<2x2x8x8xf16, #wg>, %i: index) {
  // expected-error @+1 {{B buffer element type 'f16' differs from 'bf16'}}
  %d = fmha.tile_mma_warpgroup lhs %a : !A, rhs %buf[%i, %i] : memref<2x2x8x8xf16, #wg>, acc %acc : !C
  return
}

// -----

!A = !fmha.tile<16x16xbf16, a, "mma_sync_m16n8k16_bf16">
!C = !fmha.tile<16x16xf32, c, "mma_sync_m16n8k16_bf16">
func.func @b_global(%a: !A, %acc: !C, %buf: memref<2x2x8x8xbf16>, %i: index) {
  // expected-error @+1 {{reads B from workgroup memory, got 'memref<2x2x8x8xbf16>'}}
  %d = fmha.tile_mma_warpgroup lhs %a : !A, rhs %buf[%i, %i] : memref<2x2x8x8xbf16>, acc %acc : !C
  return
}

// -----

!A = !fmha.tile<16x16xbf16, a, "mma_sync_m16n8k16_bf16">
!C = !fmha.tile<16x16xf32, c, "mma_sync_m16n8k16_bf16">
#wg = #gpu.address_space<workgroup>
func.func @b_dynamic_stride(%a: !A, %acc: !C, %buf: memref<2x2x8x8xbf16, strided<[?, 64, 8, 1]>, #wg>, %i: index) {
  // expected-error @+1 {{B needs static strides between dense 8 x 8 atoms, got 'memref<2x2x8x8xbf16, strided<[?, 64, 8, 1]>, #gpu.address_space<workgroup>>'}}
  %d = fmha.tile_mma_warpgroup lhs %a : !A, rhs %buf[%i, %i] : memref<2x2x8x8xbf16, strided<[?, 64, 8, 1]>, #wg>, acc %acc : !C
  return
}

// -----

// Core matrices of 8 rows of 16 bytes: rows 16 elements apart are not one.
!A = !fmha.tile<16x16xbf16, a, "mma_sync_m16n8k16_bf16">
!C = !fmha.tile<16x16xf32, c, "mma_sync_m16n8k16_bf16">
#wg = #gpu.address_space<workgroup>
func.func @b_sparse_core_matrix(%a: !A, %acc: !C, %buf: memref<2x2x8x8xbf16, strided<[512, 128, 16, 1]>, #wg>, %i: index) {
  // expected-error @+1 {{B needs static strides between dense 8 x 8 atoms}}
  %d = fmha.tile_mma_warpgroup lhs %a : !A, rhs %buf[%i, %i] : memref<2x2x8x8xbf16, strided<[512, 128, 16, 1]>, #wg>, acc %acc : !C
  return
}

// -----

// B [K x N] = [32 x 16]: 4 x 2 core matrices.
!A = !fmha.tile<16x32xbf16, a, "mma_sync_m16n8k16_bf16">
!C = !fmha.tile<16x16xf32, c, "mma_sync_m16n8k16_bf16">
#wg = #gpu.address_space<workgroup>
func.func @b_does_not_fit(%a: !A, %acc: !C, %buf: memref<2x4x8x8xbf16, #wg>, %i: index) {
  // expected-error @+1 {{B [32 x 16] does not fit 'memref<2x4x8x8xbf16, #gpu.address_space<workgroup>>'}}
  %d = fmha.tile_mma_warpgroup lhs %a : !A, rhs %buf[%i, %i] : memref<2x4x8x8xbf16, #wg>, acc %acc : !C
  return
}

// -----

// Transposed, the same buffer holds B^T [16 x 32] but not B^T [16 x 48].
!A = !fmha.tile<16x48xbf16, a, "mma_sync_m16n8k16_bf16">
!C = !fmha.tile<16x16xf32, c, "mma_sync_m16n8k16_bf16">
#wg = #gpu.address_space<workgroup>
func.func @b_transposed_does_not_fit(%a: !A, %acc: !C, %buf: memref<2x4x8x8xbf16, #wg>, %i: index) {
  // expected-error @+1 {{B [16 x 48] does not fit 'memref<2x4x8x8xbf16, #gpu.address_space<workgroup>>'}}
  %d = fmha.tile_mma_warpgroup lhs %a : !A, rhs %buf[%i, %i] : memref<2x4x8x8xbf16, #wg>, acc %acc {transposed} : !C
  return
}

// -----

!C = !fmha.tile<16x16xf32, c, "mma_sync_m16n8k16_bf16">
#wg = #gpu.address_space<workgroup>
func.func @write_core_matrix_shape(%t: !C, %buf: memref<2x2x16x8xbf16, #wg>, %i: index) {
  // expected-error @+1 {{writes a 4-D buffer of 8-row atoms with rows of 16 bytes (core matrices) or 128 (swizzled), got 'memref<2x2x16x8xbf16, #gpu.address_space<workgroup>>'}}
  fmha.tile_write %t, %buf[%i, %i] lane %i : !C, memref<2x2x16x8xbf16, #wg>
  return
}

// -----

// One-lane (host) atoms are written as whole 2-D blocks: not into atoms.
!C = !fmha.tile<16x16xf32, c, "host_16x16x16">
#wg = #gpu.address_space<workgroup>
func.func @write_host_atoms(%t: !C, %buf: memref<2x2x8x64xbf16, #wg>, %i: index) {
  // expected-error @+1 {{writes a tile of one-lane atoms ('host_16x16x16') into a 4-D buffer of 8-row atoms; those atoms go to 2-D buffers}}
  fmha.tile_write %t, %buf[%i, %i] lane %i : !C, memref<2x2x8x64xbf16, #wg>
  return
}

// -----

!C = !fmha.tile<16x16xf32, c, "mma_sync_m16n8k16_bf16">
#wg = #gpu.address_space<workgroup>
func.func @write_rank3(%t: !C, %buf: memref<2x16x8xbf16, #wg>, %i: index) {
  // expected-error @+1 {{operand #1 must be 2D/4D memref of floating-point values}}
  fmha.tile_write %t, %buf[%i, %i] lane %i : !C, memref<2x16x8xbf16, #wg>
  return
}

// -----

#wg = #gpu.address_space<workgroup>
func.func @split_no_thread(%b: memref<2x8x8x8xbf16, #wg>, %a: !fmha.tile<64x16xbf16, a, "mma_sync_m16n8k16_bf16", subgroups 4x1>,
                           %z: !fmha.tile<64x64xf32, c, "mma_sync_m16n8k16_bf16", subgroups 4x1>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{on workgroup tiles needs the thread's id (thread)}}
  %d = fmha.tile_mma_warpgroup lhs %a : !fmha.tile<64x16xbf16, a, "mma_sync_m16n8k16_bf16", subgroups 4x1>, rhs %b[%c0, %c0] : memref<2x8x8x8xbf16, #wg>, acc %z : !fmha.tile<64x64xf32, c, "mma_sync_m16n8k16_bf16", subgroups 4x1>
  return
}

// -----

#wg = #gpu.address_space<workgroup>
func.func @split_not_warpgroups(%b: memref<2x8x8x8xbf16, #wg>, %a: !fmha.tile<64x16xbf16, a, "mma_sync_m16n8k16_bf16", subgroups 4x1 strides 2x1>,
                                %z: !fmha.tile<64x64xf32, c, "mma_sync_m16n8k16_bf16", subgroups 4x1 strides 2x1>, %tid: index) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{splits acc's rows over warpgroups of four consecutive subgroups}}
  %d = fmha.tile_mma_warpgroup lhs %a : !fmha.tile<64x16xbf16, a, "mma_sync_m16n8k16_bf16", subgroups 4x1 strides 2x1>, rhs %b[%c0, %c0] : memref<2x8x8x8xbf16, #wg>, acc %z thread %tid : !fmha.tile<64x64xf32, c, "mma_sync_m16n8k16_bf16", subgroups 4x1 strides 2x1>
  return
}

// -----

#wg = #gpu.address_space<workgroup>
func.func @thread_on_subgroup_tiles(%b: memref<2x8x8x8xbf16, #wg>, %a: !fmha.tile<16x16xbf16, a, "mma_sync_m16n8k16_bf16">,
                                    %z: !fmha.tile<16x64xf32, c, "mma_sync_m16n8k16_bf16">, %tid: index) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{takes thread only on workgroup tiles}}
  %d = fmha.tile_mma_warpgroup lhs %a : !fmha.tile<16x16xbf16, a, "mma_sync_m16n8k16_bf16">, rhs %b[%c0, %c0] : memref<2x8x8x8xbf16, #wg>, acc %z thread %tid : !fmha.tile<16x64xf32, c, "mma_sync_m16n8k16_bf16">
  return
}

// -----

// B's N along 128-byte swizzled rows must span whole rows (64 bf16); read
// transposed (K along the rows' chunks) any N of 8-row groups will do.
!A = !fmha.tile<16x16xbf16, a, "mma_sync_m16n8k16_bf16">
!C = !fmha.tile<16x16xf32, c, "mma_sync_m16n8k16_bf16">
#wg = #gpu.address_space<workgroup>
func.func @b_swizzled_partial_rows(%a: !A, %acc: !C, %buf: memref<2x1x8x64xbf16, #wg>, %i: index) {
  %ok = fmha.tile_mma_warpgroup lhs %a : !A, rhs %buf[%i, %i] : memref<2x1x8x64xbf16, #wg>, acc %acc {transposed} : !C
  // expected-error @+1 {{B's 16 columns along a swizzled buffer's rows are not whole rows of 64}}
  %d = fmha.tile_mma_warpgroup lhs %a : !A, rhs %buf[%i, %i] : memref<2x1x8x64xbf16, #wg>, acc %acc : !C
  return
}
