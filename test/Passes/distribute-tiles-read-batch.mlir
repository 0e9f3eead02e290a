// RUN: rocke-opt %s -split-input-file -fmha-distribute-tiles | FileCheck %s --check-prefix=STEP
// RUN: rocke-opt %s -split-input-file -fmha-distribute-tiles=mfma-read-batch=2 | FileCheck %s --check-prefix=BATCH
// RUN: not rocke-opt %s -split-input-file -fmha-distribute-tiles=mfma-read-batch=0 2>&1 | FileCheck %s --check-prefix=ZERO

// A 32x32x32 product on 16x16x16 MFMA atoms, A read from workgroup memory:
// each k step's atoms use the fragment read last first (LDS reads complete
// in order, so LLVM's one wait before it covers the step). With
// mfma-read-batch=2 both k steps are read first, then one explicit LDS wait.
// STEP-LABEL: func.func @product
// STEP-NOT: amdgpu.memory_counter_wait
// STEP: vector.load %arg0
// STEP: %[[LAST:.*]] = vector.load %arg0
// STEP-NEXT: fmha.mma %[[LAST]]
// STEP-NOT: amdgpu.memory_counter_wait

// BATCH-LABEL: func.func @product
// BATCH-COUNT-4: vector.load %arg0
// BATCH-NOT: fmha.mma
// BATCH: amdgpu.memory_counter_wait ds(0)
// BATCH-COUNT-8: fmha.mma
// BATCH-NOT: fmha.mma
// BATCH-NOT: amdgpu.memory_counter_wait
// BATCH: return

// ZERO: error: fmha-distribute-tiles: mfma-read-batch must be at least 1, got 0
func.func @product(%buf: memref<32x40xbf16>, %src: memref<?x?x8x128xbf16>, %i: index, %lane: index)
    -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>) {
  %z = fmha.tile_zero : !fmha.tile<32x32xf32, c, "mfma_f32_16x16x16_bf16">
  %a = fmha.tile_read %buf[%i, %i] lane %lane : memref<32x40xbf16> -> !fmha.tile<32x32xbf16, a, "mfma_f32_16x16x16_bf16">
  %b = fmha.tile_load %src[%i, %i, %i, %i] lane %lane seq %i {transposed} : memref<?x?x8x128xbf16> -> !fmha.tile<32x32xbf16, b, "mfma_f32_16x16x16_bf16">
  %c = fmha.tile_mma %a, %b, %z : !fmha.tile<32x32xbf16, a, "mfma_f32_16x16x16_bf16">, !fmha.tile<32x32xbf16, b, "mfma_f32_16x16x16_bf16"> -> !fmha.tile<32x32xf32, c, "mfma_f32_16x16x16_bf16">
  %f:4 = fmha.tile_unpack %c : !fmha.tile<32x32xf32, c, "mfma_f32_16x16x16_bf16"> -> vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>
  return %f#0, %f#1, %f#2, %f#3 : vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>
}

// -----

// Host atoms (the CPU oracle) have no LDS counters to wait on.
// BATCH-LABEL: func.func @host_product
// BATCH-NOT: amdgpu.memory_counter_wait
// BATCH: return
func.func @host_product(%buf: memref<32x40xf32>, %lane: index) -> vector<256xf32> {
  %c0 = arith.constant 0 : index
  %z = fmha.tile_zero : !fmha.tile<16x16xf32, c, "host_16x16x16">
  %a = fmha.tile_read %buf[%c0, %c0] lane %lane : memref<32x40xf32> -> !fmha.tile<16x32xf32, a, "host_16x16x16">
  %b = fmha.tile_read %buf[%c0, %c0] lane %lane {transposed} : memref<32x40xf32> -> !fmha.tile<32x16xf32, b, "host_16x16x16">
  %c = fmha.tile_mma %a, %b, %z : !fmha.tile<16x32xf32, a, "host_16x16x16">, !fmha.tile<32x16xf32, b, "host_16x16x16"> -> !fmha.tile<16x16xf32, c, "host_16x16x16">
  %f = fmha.tile_unpack %c : !fmha.tile<16x16xf32, c, "host_16x16x16"> -> vector<256xf32>
  return %f : vector<256xf32>
}
