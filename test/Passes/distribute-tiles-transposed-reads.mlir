// RUN: rocke-opt %s -split-input-file -fmha-distribute-tiles=transposed-lds-reads=true | FileCheck %s
// RUN: rocke-opt %s -split-input-file -fmha-distribute-tiles | FileCheck %s --check-prefix=NOTR

// gfx950's transposed LDS reads: V^T [32 x 32] as the A operand of the kw4
// atom (k = keys) read out of V's rows [keys x d] in workgroup memory, four
// registers per ds_read_b64_tr_b16 (amdgpu.transpose_load): two per fragment,
// two fragments along k. Each lane gives the address of row (lane % 16) / 4
// of its group's 4 x 16 block at the d of lane 16 (lane / 16) + 4 (lane % 4).
// Without the option: one element per read.
// CHECK-LABEL: func.func @value_rows
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK: %[[G:.*]] = arith.divui %arg2, %[[C16]] : index
// CHECK: %[[G0:.*]] = arith.muli %[[G]], %[[C16]] : index
// CHECK: %[[Q:.*]] = arith.remui %arg2, %[[C4]] : index
// CHECK: %[[Q4:.*]] = arith.muli %[[Q]], %[[C4]] : index
// CHECK: %[[AL:.*]] = arith.addi %[[G0]], %[[Q4]] : index
// CHECK-COUNT-4: amdgpu.transpose_load %arg0[{{.*}}] : memref<32x40xbf16, #gpu.address_space<workgroup>> -> vector<4xbf16>
// CHECK-NOT: amdgpu.transpose_load
// CHECK: fmha.mma {{.*}} {atom = "mfma_f32_32x32x16_kw4_bf16"} : vector<8xbf16>, vector<8xbf16> -> vector<16xf32>
// NOTR-LABEL: func.func @value_rows
// NOTR-NOT: amdgpu.transpose_load
// NOTR-COUNT-16: vector.load %arg0[{{.*}}] : memref<32x40xbf16, #gpu.address_space<workgroup>>, vector<1xbf16>
func.func @value_rows(%v: memref<32x40xbf16, #gpu.address_space<workgroup>>, %i: index, %lane: index,
                      %p0: vector<8xbf16>, %p1: vector<8xbf16>) -> vector<16xf32> {
  %p = fmha.tile_pack %p0, %p1 : vector<8xbf16>, vector<8xbf16> -> !fmha.tile<32x32xbf16, b, "mfma_f32_32x32x16_kw4_bf16">
  %z = fmha.tile_zero : !fmha.tile<32x32xf32, c, "mfma_f32_32x32x16_kw4_bf16">
  %vt = fmha.tile_read %v[%i, %i] lane %lane {transposed} : memref<32x40xbf16, #gpu.address_space<workgroup>> -> !fmha.tile<32x32xbf16, a, "mfma_f32_32x32x16_kw4_bf16">
  %o = fmha.tile_mma %vt, %p, %z : !fmha.tile<32x32xbf16, a, "mfma_f32_32x32x16_kw4_bf16">, !fmha.tile<32x32xbf16, b, "mfma_f32_32x32x16_kw4_bf16"> -> !fmha.tile<32x32xf32, c, "mfma_f32_32x32x16_kw4_bf16">
  %f = fmha.tile_unpack %o : !fmha.tile<32x32xf32, c, "mfma_f32_32x32x16_kw4_bf16"> -> vector<16xf32>
  return %f : vector<16xf32>
}

// -----

// A B operand stored [k][n] runs down the columns too; one stored [n][k]
// (transposed) runs along the rows: vector loads. Global memory has no
// transposed reads.
// CHECK-LABEL: func.func @b_operand
// CHECK-COUNT-2: amdgpu.transpose_load %arg0
// CHECK-NOT: amdgpu.transpose_load
// CHECK: vector.load %arg0[{{.*}}] : memref<32x40xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
// CHECK-NOT: amdgpu.transpose_load
// CHECK: return
func.func @b_operand(%buf: memref<32x40xbf16, #gpu.address_space<workgroup>>, %g: memref<32x40xbf16>, %lane: index)
    -> (vector<8xbf16>, vector<8xbf16>, vector<8xbf16>) {
  %c0 = arith.constant 0 : index
  %kn = fmha.tile_read %buf[%c0, %c0] lane %lane : memref<32x40xbf16, #gpu.address_space<workgroup>> -> !fmha.tile<32x16xbf16, b, "mfma_f32_16x16x32_bf16">
  %nk = fmha.tile_read %buf[%c0, %c0] lane %lane {transposed} : memref<32x40xbf16, #gpu.address_space<workgroup>> -> !fmha.tile<32x16xbf16, b, "mfma_f32_16x16x32_bf16">
  %gl = fmha.tile_read %g[%c0, %c0] lane %lane : memref<32x40xbf16> -> !fmha.tile<32x16xbf16, b, "mfma_f32_16x16x32_bf16">
  %a = fmha.tile_unpack %kn : !fmha.tile<32x16xbf16, b, "mfma_f32_16x16x32_bf16"> -> vector<8xbf16>
  %b = fmha.tile_unpack %nk : !fmha.tile<32x16xbf16, b, "mfma_f32_16x16x32_bf16"> -> vector<8xbf16>
  %c = fmha.tile_unpack %gl : !fmha.tile<32x16xbf16, b, "mfma_f32_16x16x32_bf16"> -> vector<8xbf16>
  return %a, %b, %c : vector<8xbf16>, vector<8xbf16>, vector<8xbf16>
}

// -----

// A 32x32 accumulator is two 16-deep B fragments of the kw4 atom: its
// registers 0-7, then 8-15, truncated.
// CHECK-LABEL: func.func @accumulator_as_b
// CHECK: %[[T:.*]] = arith.truncf %arg0 : vector<16xf32> to vector<16xbf16>
// CHECK: vector.shuffle %[[T]], %[[T]] [0, 1, 2, 3, 4, 5, 6, 7] : vector<16xbf16>, vector<16xbf16>
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [8, 9, 10, 11, 12, 13, 14, 15] : vector<16xbf16>, vector<16xbf16>
func.func @accumulator_as_b(%c: vector<16xf32>) -> (vector<8xbf16>, vector<8xbf16>) {
  %s = fmha.tile_pack %c : vector<16xf32> -> !fmha.tile<32x32xf32, c, "mfma_f32_32x32x16_bf16">
  %p = fmha.tile_convert %s : !fmha.tile<32x32xf32, c, "mfma_f32_32x32x16_bf16"> -> !fmha.tile<32x32xbf16, b, "mfma_f32_32x32x16_kw4_bf16">
  %f:2 = fmha.tile_unpack %p : !fmha.tile<32x32xbf16, b, "mfma_f32_32x32x16_kw4_bf16"> -> vector<8xbf16>, vector<8xbf16>
  return %f#0, %f#1 : vector<8xbf16>, vector<8xbf16>
}
