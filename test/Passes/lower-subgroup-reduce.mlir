// RUN: rocke-opt %s -split-input-file -pass-pipeline='builtin.module(gpu.module(fmha-lower-subgroup-reduce{subgroup-size=64}))' | FileCheck %s
// RUN: rocke-opt %s -split-input-file -pass-pipeline='builtin.module(gpu.module(fmha-lower-subgroup-reduce{subgroup-size=32}))' | FileCheck %s --check-prefix=SG32

gpu.module @m {
  // A full-subgroup sum: log2(64) = 6 xor steps (5 for 32 lanes).
  // CHECK-LABEL: func.func @add
  // CHECK-NOT:     gpu.subgroup_reduce
  // CHECK-DAG:     %[[W:.*]] = arith.constant 64 : i32
  // CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : i32
  // CHECK-DAG:     %[[C32:.*]] = arith.constant 32 : i32
  // CHECK:         %[[S0:.*]], %{{.*}} = gpu.shuffle xor %arg0, %[[C1]], %[[W]] : f32
  // CHECK:         %[[A0:.*]] = arith.addf %arg0, %[[S0]] : f32
  // CHECK-COUNT-4: gpu.shuffle xor
  // CHECK:         %[[S5:.*]], %{{.*}} = gpu.shuffle xor %{{.*}}, %[[C32]], %[[W]] : f32
  // CHECK:         %[[R:.*]] = arith.addf %{{.*}}, %[[S5]] : f32
  // CHECK-NOT:     gpu.shuffle
  // CHECK:         return %[[R]]
  // SG32-LABEL: func.func @add
  // SG32-COUNT-5:  gpu.shuffle xor {{.*}} : f32
  // SG32-NOT:      gpu.shuffle
  // SG32:          return
  func.func @add(%x: f32) -> f32 {
    %r = gpu.subgroup_reduce add %x uniform : (f32) -> f32
    return %r : f32
  }

  // A cluster of 4 lanes: offsets 1 and 2 only, width = the subgroup.
  // CHECK-LABEL: func.func @max_cluster
  // CHECK-DAG:     %[[W:.*]] = arith.constant 64 : i32
  // CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : i32
  // CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : i32
  // CHECK:         %[[S0:.*]], %{{.*}} = gpu.shuffle xor %arg0, %[[C1]], %[[W]] : f32
  // CHECK:         arith.maxnumf %arg0, %[[S0]] : f32
  // CHECK:         gpu.shuffle xor %{{.*}}, %[[C2]], %[[W]] : f32
  // CHECK:         arith.maxnumf
  // CHECK-NOT:     gpu.shuffle
  // CHECK:         return
  func.func @max_cluster(%x: f32) -> f32 {
    %r = gpu.subgroup_reduce maxnumf %x cluster(size = 4) : (f32) -> f32
    return %r : f32
  }

  // Two f16 lanes travel in one 32-bit shuffle.
  // CHECK-LABEL: func.func @packed_f16
  // CHECK:         vector.bitcast %arg0 : vector<2xf16> to vector<1xi32>
  // CHECK:         gpu.shuffle xor {{.*}} : i32
  // CHECK:         arith.addf {{.*}} : vector<2xf16>
  // CHECK-NOT:     gpu.subgroup_reduce
  func.func @packed_f16(%x: vector<2xf16>) -> vector<2xf16> {
    %r = gpu.subgroup_reduce add %x : (vector<2xf16>) -> vector<2xf16>
    return %r : vector<2xf16>
  }
}
