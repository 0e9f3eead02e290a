// RUN: rocke-opt %s -split-input-file -pass-pipeline='builtin.module(gpu.module(fmha-nvgpu-mma-bf16-to-nvvm))' | FileCheck %s

gpu.module @m {
  // CHECK-LABEL: func.func @bf16_m16n8k16
  // CHECK-COUNT-4: vector.bitcast %{{.*}} : vector<2xbf16> to vector<1xi32>
  // CHECK-COUNT-2: vector.bitcast %{{.*}} : vector<2xbf16> to vector<1xi32>
  // CHECK: nvvm.mma.sync A[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] B[%{{.*}}, %{{.*}}] C[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}]
  // CHECK-SAME: layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>
  // CHECK-SAME: multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>
  // CHECK-SAME: shape = #nvvm.shape<m = 16, n = 8, k = 16>
  // CHECK-SAME: -> !llvm.struct<(f32, f32, f32, f32)>
  // CHECK-COUNT-4: llvm.extractvalue
  // CHECK: vector.from_elements {{.*}} : vector<2x2xf32>
  // CHECK-NOT: nvgpu.mma.sync
  func.func @bf16_m16n8k16(%a: vector<4x2xbf16>, %b: vector<2x2xbf16>, %c: vector<2x2xf32>) -> vector<2x2xf32> {
    %d = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [16, 8, 16]} : (vector<4x2xbf16>, vector<2x2xbf16>, vector<2x2xf32>) -> vector<2x2xf32>
    return %d : vector<2x2xf32>
  }
  // CHECK-LABEL: func.func @bf16_m16n8k8
  // CHECK: nvvm.mma.sync A[%{{.*}}, %{{.*}}] B[%{{.*}}] C[
  // CHECK-SAME: shape = #nvvm.shape<m = 16, n = 8, k = 8>
  func.func @bf16_m16n8k8(%a: vector<2x2xbf16>, %b: vector<1x2xbf16>, %c: vector<2x2xf32>) -> vector<2x2xf32> {
    %d = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [16, 8, 8]} : (vector<2x2xbf16>, vector<1x2xbf16>, vector<2x2xf32>) -> vector<2x2xf32>
    return %d : vector<2x2xf32>
  }
  // f16 is left to convert-nvgpu-to-nvvm.
  // CHECK-LABEL: func.func @f16_untouched
  // CHECK: nvgpu.mma.sync
  // CHECK-NOT: nvvm.mma.sync
  func.func @f16_untouched(%a: vector<4x2xf16>, %b: vector<2x2xf16>, %c: vector<2x2xf32>) -> vector<2x2xf32> {
    %d = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
    return %d : vector<2x2xf32>
  }
}
