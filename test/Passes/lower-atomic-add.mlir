// RUN: rocke-opt %s -split-input-file -fmha-lower-atomic-add=chip=sm_90 | FileCheck %s --check-prefixes=CHECK,SM90
// RUN: rocke-opt %s -split-input-file -fmha-lower-atomic-add=chip=sm_80 | FileCheck %s --check-prefixes=CHECK,SCALAR
// RUN: rocke-opt %s -split-input-file -fmha-lower-atomic-add=chip=gfx942 | FileCheck %s --check-prefixes=CHECK,SCALAR
// RUN: rocke-opt %s -split-input-file -fmha-lower-atomic-add | FileCheck %s --check-prefixes=CHECK,SCALAR
// RUN: rocke-opt %s -split-input-file -fmha-lower-to-loops | FileCheck %s --check-prefixes=CHECK,SCALAR
// RUN: not rocke-opt %s -split-input-file -fmha-lower-atomic-add=chip=sm_70 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// UNKNOWN: fmha-lower-atomic-add: unknown chip 'sm_70'

// An aligned f32 pair in global memory: one vector reduction on sm_90 at
// the element's address (offset + sum(index * stride) from the aligned
// pointer), one scalar atomic per element elsewhere.
// CHECK-LABEL: func.func @pair
// SM90-DAG: %[[X0:.*]] = vector.extract %[[V:.*]][0] : f32 from vector<2xf32>
// SM90-DAG: %[[X1:.*]] = vector.extract %[[V]][1] : f32 from vector<2xf32>
// SM90: %[[PTR:.*]] = memref.extract_aligned_pointer_as_index %[[ACC:.*]] :
// SM90: %[[INT:.*]] = arith.index_cast %[[PTR]] : index to i64
// SM90: %[[BASE:.*]] = llvm.inttoptr %[[INT]] : i64 to !llvm.ptr<1>
// SM90: %[[C512:.*]] = arith.constant 512 : index
// SM90: %[[ROWS:.*]] = arith.muli %[[I:.*]], %[[C512]] : index
// SM90: %[[C64:.*]] = arith.constant 64 : index
// SM90: %[[COLS:.*]] = arith.muli %[[J:.*]], %[[C64]] : index
// SM90: %[[SUM:.*]] = arith.addi %[[ROWS]], %[[COLS]] : index
// SM90: %[[LIN:.*]] = arith.addi %[[SUM]], %[[K:.*]] : index
// SM90: %[[OFF:.*]] = arith.index_cast %[[LIN]] : index to i64
// SM90: %[[AT:.*]] = llvm.getelementptr inbounds %[[BASE]][%[[OFF]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// SM90: llvm.inline_asm has_side_effects "red.global.add.v2.f32 [$0], {$1, $2};", "l,f,f" %[[AT]], %[[X0]], %[[X1]] : (!llvm.ptr<1>, f32, f32) -> ()
// SM90-NOT: memref.atomic_rmw
// SCALAR: %[[X0:.*]] = vector.extract %[[V:.*]][0] : f32 from vector<2xf32>
// SCALAR: memref.atomic_rmw addf %[[X0]], %[[ACC:.*]][%[[I:.*]], %[[J:.*]], %[[K:.*]]] :
// SCALAR: %[[X1:.*]] = vector.extract %[[V]][1] : f32 from vector<2xf32>
// SCALAR: %[[K1:.*]] = arith.addi %[[K]], %{{.*}} : index
// SCALAR: memref.atomic_rmw addf %[[X1]], %[[ACC]][%[[I]], %[[J]], %[[K1]]] :
// SCALAR-NOT: llvm.inline_asm
// CHECK-NOT: fmha.atomic_add
// CHECK: return
func.func @pair(%v: vector<2xf32>, %acc: memref<?x8x64xf32, #gpu.address_space<global>>,
    %i: index, %j: index, %k: index) {
  fmha.atomic_add %v, %acc[%i, %j, %k] {alignment = 8} : vector<2xf32>, memref<?x8x64xf32, #gpu.address_space<global>>
  return
}

// -----

// Chunks as wide as the alignment allows, up to four: v4 + v4, v2 + v2, and
// v2 + a scalar for the odd element.
// CHECK-LABEL: func.func @chunks
// SM90: llvm.inline_asm has_side_effects "red.global.add.v4.f32 [$0], {$1, $2, $3, $4};", "l,f,f,f,f" %[[AT:[^,]*]],
// SM90: %[[NEXT:.*]] = llvm.getelementptr inbounds %[[AT]][4] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
// SM90: llvm.inline_asm has_side_effects "red.global.add.v4.f32 [$0], {$1, $2, $3, $4};", "l,f,f,f,f" %[[NEXT]],
// SM90: llvm.inline_asm has_side_effects "red.global.add.v2.f32 [$0], {$1, $2};", "l,f,f" %[[AT2:[^,]*]],
// SM90: %[[NEXT2:.*]] = llvm.getelementptr inbounds %[[AT2]][2] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
// SM90: llvm.inline_asm has_side_effects "red.global.add.v2.f32 [$0], {$1, $2};", "l,f,f" %[[NEXT2]],
// SM90: llvm.inline_asm has_side_effects "red.global.add.v2.f32 [$0], {$1, $2};", "l,f,f"
// SM90: %[[C2:.*]] = arith.constant 2 : index
// SM90: %[[COL:.*]] = arith.addi %{{.*}}, %[[C2]] : index
// SM90: memref.atomic_rmw addf %{{.*}}, %{{.*}}[%{{.*}}, %[[COL]]]
// SM90-NOT: llvm.inline_asm
// SCALAR-COUNT-15: memref.atomic_rmw addf
// SCALAR-NOT: memref.atomic_rmw
// CHECK-NOT: fmha.atomic_add
// CHECK: return
func.func @chunks(%v8: vector<8xf32>, %v4: vector<4xf32>, %v3: vector<3xf32>,
    %acc: memref<?x64xf32, #gpu.address_space<global>>, %i: index, %j: index) {
  fmha.atomic_add %v8, %acc[%i, %j] {alignment = 32} : vector<8xf32>, memref<?x64xf32, #gpu.address_space<global>>
  fmha.atomic_add %v4, %acc[%i, %j] {alignment = 8} : vector<4xf32>, memref<?x64xf32, #gpu.address_space<global>>
  fmha.atomic_add %v3, %acc[%i, %j] {alignment = 8} : vector<3xf32>, memref<?x64xf32, #gpu.address_space<global>>
  return
}

// -----

// Dynamic offset and strides come from the memref's metadata.
// CHECK-LABEL: func.func @dynamic_layout
// SM90: %[[BUF:.*]], %[[OFFSET:.*]], %{{.*}}:2, %[[STRIDES:.*]]:2 = memref.extract_strided_metadata
// SM90: %[[ROW:.*]] = arith.muli %{{.*}}, %[[STRIDES]]#0 : index
// SM90: %[[SUM:.*]] = arith.addi %[[OFFSET]], %[[ROW]] : index
// SM90: arith.addi %[[SUM]], %{{.*}} : index
// SM90: "red.global.add.v2.f32 [$0], {$1, $2};"
// SCALAR-COUNT-2: memref.atomic_rmw addf
// CHECK: return
func.func @dynamic_layout(%v: vector<2xf32>,
    %acc: memref<?x64xf32, strided<[?, 1], offset: ?>, #gpu.address_space<global>>, %i: index, %j: index) {
  fmha.atomic_add %v, %acc[%i, %j] {alignment = 8} : vector<2xf32>, memref<?x64xf32, strided<[?, 1], offset: ?>, #gpu.address_space<global>>
  return
}

// -----

// Scalar atomics on every chip: no alignment promised, memory other than
// global (PTX's red.global needs a global address), or not f32.
// CHECK-LABEL: func.func @scalar_everywhere
// CHECK-COUNT-8: memref.atomic_rmw addf
// CHECK-NOT: memref.atomic_rmw
// CHECK-NOT: llvm.inline_asm
// CHECK-NOT: fmha.atomic_add
// CHECK: return
func.func @scalar_everywhere(%v: vector<2xf32>, %h: vector<2xf16>,
    %global: memref<64xf32, #gpu.address_space<global>>, %generic: memref<64xf32>,
    %shared: memref<64xf32, #gpu.address_space<workgroup>>,
    %half: memref<64xf16, #gpu.address_space<global>>, %i: index) {
  fmha.atomic_add %v, %global[%i] : vector<2xf32>, memref<64xf32, #gpu.address_space<global>>
  fmha.atomic_add %v, %generic[%i] {alignment = 8} : vector<2xf32>, memref<64xf32>
  fmha.atomic_add %v, %shared[%i] {alignment = 8} : vector<2xf32>, memref<64xf32, #gpu.address_space<workgroup>>
  fmha.atomic_add %h, %half[%i] {alignment = 8} : vector<2xf16>, memref<64xf16, #gpu.address_space<global>>
  return
}
