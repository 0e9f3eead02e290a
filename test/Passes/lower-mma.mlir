// RUN: rocke-opt %s -split-input-file -fmha-lower-mma | FileCheck %s

// CHECK-LABEL: func @mfma_16x16x16
// CHECK: amdgpu.mfma 16x16x16 %{{.*}} * %{{.*}} + %{{.*}} blgp = none : vector<4xf16>, vector<4xf16>, vector<4xf32>
func.func @mfma_16x16x16(%a: vector<4xf16>, %b: vector<4xf16>, %c: vector<4xf32>) -> vector<4xf32> {
  %d = fmha.mma %a, %b, %c {atom = "mfma_f32_16x16x16_f16"} : vector<4xf16>, vector<4xf16> -> vector<4xf32>
  return %d : vector<4xf32>
}

// -----

// CHECK-LABEL: func @mfma_32x32x8_bf16
// CHECK: amdgpu.mfma 32x32x8 {{.*}} : vector<4xbf16>, vector<4xbf16>, vector<16xf32>
func.func @mfma_32x32x8_bf16(%a: vector<4xbf16>, %b: vector<4xbf16>, %c: vector<16xf32>) -> vector<16xf32> {
  %d = fmha.mma %a, %b, %c {atom = "mfma_f32_32x32x8_bf16"} : vector<4xbf16>, vector<4xbf16> -> vector<16xf32>
  return %d : vector<16xf32>
}

// -----

// CHECK-LABEL: func @mfma_16x16x32_gfx950
// CHECK: amdgpu.mfma 16x16x32 {{.*}} : vector<8xf16>, vector<8xf16>, vector<4xf32>
func.func @mfma_16x16x32_gfx950(%a: vector<8xf16>, %b: vector<8xf16>, %c: vector<4xf32>) -> vector<4xf32> {
  %d = fmha.mma %a, %b, %c {atom = "mfma_f32_16x16x32_f16"} : vector<8xf16>, vector<8xf16> -> vector<4xf32>
  return %d : vector<4xf32>
}

// -----

// mma.sync takes 32-bit register pairs: A 4x2, B 2x2, C 2x2.
// CHECK-LABEL: func @mma_sync
// CHECK: %[[A:.*]] = vector.shape_cast %{{.*}} : vector<8xf16> to vector<4x2xf16>
// CHECK: %[[B:.*]] = vector.shape_cast %{{.*}} : vector<4xf16> to vector<2x2xf16>
// CHECK: %[[C:.*]] = vector.shape_cast %{{.*}} : vector<4xf32> to vector<2x2xf32>
// CHECK: %[[D:.*]] = nvgpu.mma.sync(%[[A]], %[[B]], %[[C]]) {mmaShape = [16, 8, 16]}
// CHECK: vector.shape_cast %[[D]] : vector<2x2xf32> to vector<4xf32>
func.func @mma_sync(%a: vector<8xf16>, %b: vector<4xf16>, %c: vector<4xf32>) -> vector<4xf32> {
  %d = fmha.mma %a, %b, %c {atom = "mma_sync_m16n8k16_f16"} : vector<8xf16>, vector<4xf16> -> vector<4xf32>
  return %d : vector<4xf32>
}

// -----

// Host atoms: one lane holds the row-major atom; the operands are staged in
// stack buffers allocated once at the function's entry (never inside the
// loops around the atom: that overflowed rocke-run's stack), and every atom
// of one shape calls one private function, a loop nest (bf16 widened to f32
// per element).
// CHECK-LABEL: func @host
// CHECK-DAG: memref.alloca() : memref<64xbf16>
// CHECK-DAG: memref.alloca() : memref<64xbf16>
// CHECK-DAG: %[[C:.*]] = memref.alloca() : memref<64xf32>
// CHECK: scf.for
// CHECK-NOT: memref.alloca
// CHECK: vector.store %{{.*}}, %[[A:.*]][
// CHECK: vector.store %{{.*}}, %[[B:.*]][
// CHECK: vector.store %{{.*}}, %[[C]][
// CHECK: call @[[FN:fmha_host_mma_host_8x8x8_bf16_f32]](%[[A]], %[[B]], %[[C]])
// CHECK: vector.load %[[C]]
// CHECK-NOT: memref.alloca
// CHECK: call @[[FN]](%[[A]], %[[B]], %[[C]])
// CHECK: func.func private @[[FN]](%{{.*}}: memref<64xbf16>, %{{.*}}: memref<64xbf16>, %{{.*}}: memref<64xf32>)
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for {{.*}} iter_args
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: math.fma
// CHECK-NOT: func.func private @fmha_host_mma
func.func @host(%a: vector<64xbf16>, %b: vector<64xbf16>, %c: vector<64xf32>, %n: index) -> vector<64xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c) -> vector<64xf32> {
    %d = fmha.mma %a, %b, %acc {atom = "host_8x8x8"} : vector<64xbf16>, vector<64xbf16> -> vector<64xf32>
    %e = fmha.mma %b, %a, %d {atom = "host_8x8x8"} : vector<64xbf16>, vector<64xbf16> -> vector<64xf32>
    scf.yield %e : vector<64xf32>
  }
  return %r : vector<64xf32>
}
