// RUN: rocke-opt %s -split-input-file -fmha-lower-warpgroup-mma | FileCheck %s

// A from registers (RS), two k steps, N = 16 (8 accumulator registers): a
// wgmma fence, one wgmma.mma_async per step, one commit. The A fragment's
// bf16 pairs are 4 b32 registers ("r"), the B descriptor a 64-bit one
// ("l"), the accumulators tied to the results ("0".."7"). The product
// starts from a zero accumulator: the first step computes D = A * B
// (scale-d predicate 0) on registers nobody set (poison), the second adds
// to the first's results. RS has no transpose immediate for A; B's core
// matrices run along N (mn_major_b: 1). The wait passes the registers
// through wgmma.wait_group with its pending count.
// CHECK-LABEL: func.func @rs_from_zero
// CHECK-SAME: (%[[A0:[^:]*]]: vector<8xbf16>, %[[A1:[^:]*]]: vector<8xbf16>, %[[B0:[^:]*]]: i64, %[[B1:[^:]*]]: i64
// CHECK: %[[P:.*]] = llvm.mlir.poison : f32
// CHECK-NEXT: nvvm.wgmma.fence.aligned
// CHECK-NEXT: %[[R0:.*]] = vector.bitcast %[[A0]] : vector<8xbf16> to vector<4xi32>
// CHECK-NEXT: %[[X0:.*]] = vector.extract %[[R0]][0] : i32 from vector<4xi32>
// CHECK-NEXT: %[[X1:.*]] = vector.extract %[[R0]][1] : i32 from vector<4xi32>
// CHECK-NEXT: %[[X2:.*]] = vector.extract %[[R0]][2] : i32 from vector<4xi32>
// CHECK-NEXT: %[[X3:.*]] = vector.extract %[[R0]][3] : i32 from vector<4xi32>
// CHECK-NEXT: %[[S0:.*]] = llvm.inline_asm has_side_effects asm_dialect = att "{\0A.reg .pred p;\0Asetp.ne.b32 p, 0, 0;\0Awgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 {$0, $1, $2, $3, $4, $5, $6, $7}, {$8, $9, $10, $11}, $12, p, 1, 1, 1;\0A}", "=f,=f,=f,=f,=f,=f,=f,=f,r,r,r,r,l,0,1,2,3,4,5,6,7" %[[X0]], %[[X1]], %[[X2]], %[[X3]], %[[B0]], %[[P]], %[[P]], %[[P]], %[[P]], %[[P]], %[[P]], %[[P]], %[[P]] : (i32, i32, i32, i32, i64, f32, f32, f32, f32, f32, f32, f32, f32) -> !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
// CHECK-NEXT: %[[E0:.*]] = llvm.extractvalue %[[S0]][0]
// CHECK-NEXT: %[[E1:.*]] = llvm.extractvalue %[[S0]][1]
// CHECK-NEXT: %[[E2:.*]] = llvm.extractvalue %[[S0]][2]
// CHECK-NEXT: %[[E3:.*]] = llvm.extractvalue %[[S0]][3]
// CHECK-NEXT: %[[E4:.*]] = llvm.extractvalue %[[S0]][4]
// CHECK-NEXT: %[[E5:.*]] = llvm.extractvalue %[[S0]][5]
// CHECK-NEXT: %[[E6:.*]] = llvm.extractvalue %[[S0]][6]
// CHECK-NEXT: %[[E7:.*]] = llvm.extractvalue %[[S0]][7]
// CHECK-NEXT: vector.bitcast %[[A1]] : vector<8xbf16> to vector<4xi32>
// CHECK-NOT: nvvm.wgmma
// CHECK: %[[S1:.*]] = llvm.inline_asm has_side_effects asm_dialect = att "{\0A.reg .pred p;\0Asetp.ne.b32 p, 1, 0;\0Awgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 {$0, $1, $2, $3, $4, $5, $6, $7}, {$8, $9, $10, $11}, $12, p, 1, 1, 1;\0A}", "=f,=f,=f,=f,=f,=f,=f,=f,r,r,r,r,l,0,1,2,3,4,5,6,7" %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %[[B1]], %[[E0]], %[[E1]], %[[E2]], %[[E3]], %[[E4]], %[[E5]], %[[E6]], %[[E7]] :
// CHECK-COUNT-8: llvm.extractvalue %[[S1]]
// CHECK-NEXT: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: %[[W:.*]] = llvm.inline_asm has_side_effects asm_dialect = att "wgmma.wait_group.sync.aligned 2;", "=f,=f,=f,=f,=f,=f,=f,=f,0,1,2,3,4,5,6,7" %{{.*}} : (f32, f32, f32, f32, f32, f32, f32, f32) -> !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
// CHECK-COUNT-8: llvm.extractvalue %[[W]]
// CHECK-NEXT: %[[R:.*]] = vector.from_elements {{.*}} : vector<8xf32>
// CHECK-NEXT: return %[[R]]
// CHECK-NOT: fmha.warpgroup
#wg = #gpu.address_space<workgroup>
func.func @rs_from_zero(%a0: vector<8xbf16>, %a1: vector<8xbf16>, %b0: i64, %b1: i64, %buf: memref<4x2x8x8xbf16, #wg>) -> vector<8xf32> {
  %z = arith.constant dense<0.0> : vector<8xf32>
  %d = fmha.warpgroup_mma %z, a[%a0, %a1 : vector<8xbf16>, vector<8xbf16>], a_desc[], b_desc[%b0, %b1] reads %buf : memref<4x2x8x8xbf16, #wg> {mn_major_b} -> vector<8xf32>
  %w = fmha.warpgroup_wait %d reads %buf {pending = 2} : vector<8xf32>, memref<4x2x8x8xbf16, #wg>
  return %w : vector<8xf32>
}

// -----

// A from workgroup memory (SS), N = 8 (4 registers), onto an accumulator
// that is not zero: every step adds (scale-d predicate 1) and starts from
// the accumulator's registers. Two descriptors ("l,l"); the transpose
// immediates: A's core matrices along M (mn_major_a: 1), B's along K (0).
// The wait with pending 0.
// CHECK-LABEL: func.func @ss_accumulate
// CHECK-SAME: (%[[ACC:[^:]*]]: vector<4xf32>, %[[A0:[^:]*]]: i64, %[[A1:[^:]*]]: i64, %[[B0:[^:]*]]: i64, %[[B1:[^:]*]]: i64
// CHECK-NOT: llvm.mlir.poison
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-NEXT: %[[C0:.*]] = vector.extract %[[ACC]][0] : f32 from vector<4xf32>
// CHECK-NEXT: %[[C1:.*]] = vector.extract %[[ACC]][1] : f32 from vector<4xf32>
// CHECK-NEXT: %[[C2:.*]] = vector.extract %[[ACC]][2] : f32 from vector<4xf32>
// CHECK-NEXT: %[[C3:.*]] = vector.extract %[[ACC]][3] : f32 from vector<4xf32>
// CHECK-NEXT: %[[S0:.*]] = llvm.inline_asm has_side_effects asm_dialect = att "{\0A.reg .pred p;\0Asetp.ne.b32 p, 1, 0;\0Awgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {$0, $1, $2, $3}, $4, $5, p, 1, 1, 1, 0;\0A}", "=f,=f,=f,=f,l,l,0,1,2,3" %[[A0]], %[[B0]], %[[C0]], %[[C1]], %[[C2]], %[[C3]] : (i64, i64, f32, f32, f32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK-COUNT-4: llvm.extractvalue %[[S0]]
// CHECK-NEXT: %[[S1:.*]] = llvm.inline_asm has_side_effects asm_dialect = att "{\0A.reg .pred p;\0Asetp.ne.b32 p, 1, 0;\0Awgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {$0, $1, $2, $3}, $4, $5, p, 1, 1, 1, 0;\0A}", "=f,=f,=f,=f,l,l,0,1,2,3" %[[A1]], %[[B1]],
// CHECK-COUNT-4: llvm.extractvalue %[[S1]]
// CHECK-NEXT: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: llvm.inline_asm has_side_effects asm_dialect = att "wgmma.wait_group.sync.aligned 0;", "=f,=f,=f,=f,0,1,2,3"
#wg = #gpu.address_space<workgroup>
func.func @ss_accumulate(%acc: vector<4xf32>, %a0: i64, %a1: i64, %b0: i64, %b1: i64,
    %abuf: memref<2x8x8x8xbf16, #wg>, %bbuf: memref<2x1x8x8xbf16, #wg>) -> vector<4xf32> {
  %d = fmha.warpgroup_mma %acc, a[], a_desc[%a0, %a1], b_desc[%b0, %b1] reads %bbuf, %abuf : memref<2x1x8x8xbf16, #wg>, memref<2x8x8x8xbf16, #wg> {mn_major_a} -> vector<4xf32>
  %w = fmha.warpgroup_wait %d reads %bbuf, %abuf : vector<4xf32>, memref<2x1x8x8xbf16, #wg>, memref<2x8x8x8xbf16, #wg>
  return %w : vector<4xf32>
}

// -----

// f16, N = 32 (16 registers), SS from a zero accumulator, both operands'
// core matrices along K (transpose immediates 0, 0); a non-zero constant
// accumulator is accumulated onto (scale-d 1 from the first step).
// CHECK-LABEL: func.func @f16
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[P:.*]] = llvm.mlir.poison : f32
// CHECK-NEXT: nvvm.wgmma.fence.aligned
// CHECK-NEXT: llvm.inline_asm has_side_effects asm_dialect = att "{\0A.reg .pred p;\0Asetp.ne.b32 p, 0, 0;\0Awgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 {$0, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15}, $16, $17, p, 1, 1, 0, 0;\0A}", "=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,l,l,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15"
// CHECK-SAME: %[[P]], %[[P]], %[[P]], %[[P]], %[[P]], %[[P]], %[[P]], %[[P]], %[[P]], %[[P]], %[[P]], %[[P]], %[[P]], %[[P]], %[[P]], %[[P]] :
// CHECK-COUNT-16: llvm.extractvalue
// CHECK-NEXT: nvvm.wgmma.commit.group.sync.aligned
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-NEXT: llvm.inline_asm has_side_effects asm_dialect = att "{\0A.reg .pred p;\0Asetp.ne.b32 p, 1, 0;\0Awgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16
// CHECK-SAME: %[[ONE]], %[[ONE]], %[[ONE]], %[[ONE]], %[[ONE]], %[[ONE]], %[[ONE]], %[[ONE]], %[[ONE]], %[[ONE]], %[[ONE]], %[[ONE]], %[[ONE]], %[[ONE]], %[[ONE]], %[[ONE]] :
// CHECK-COUNT-16: llvm.extractvalue
// CHECK-NEXT: nvvm.wgmma.commit.group.sync.aligned
// CHECK: "wgmma.wait_group.sync.aligned 1;"
// CHECK: "wgmma.wait_group.sync.aligned 0;"
#wg = #gpu.address_space<workgroup>
func.func @f16(%a: i64, %b: i64, %abuf: memref<8x2x8x8xf16, #wg>, %bbuf: memref<2x4x8x8xf16, #wg>) -> (vector<16xf32>, vector<16xf32>) {
  %z = arith.constant dense<0.0> : vector<16xf32>
  %one = arith.constant dense<1.0> : vector<16xf32>
  %d = fmha.warpgroup_mma %z, a[], a_desc[%a], b_desc[%b] reads %bbuf, %abuf : memref<2x4x8x8xf16, #wg>, memref<8x2x8x8xf16, #wg> -> vector<16xf32>
  %e = fmha.warpgroup_mma %one, a[], a_desc[%a], b_desc[%b] reads %bbuf, %abuf : memref<2x4x8x8xf16, #wg>, memref<8x2x8x8xf16, #wg> -> vector<16xf32>
  %w = fmha.warpgroup_wait %d reads %bbuf, %abuf {pending = 1} : vector<16xf32>, memref<2x4x8x8xf16, #wg>, memref<8x2x8x8xf16, #wg>
  %v = fmha.warpgroup_wait %e reads %bbuf, %abuf : vector<16xf32>, memref<2x4x8x8xf16, #wg>, memref<8x2x8x8xf16, #wg>
  return %w, %v : vector<16xf32>, vector<16xf32>
}
