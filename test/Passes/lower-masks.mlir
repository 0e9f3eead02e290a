// RUN: rocke-opt %s -split-input-file -fmha-lower-masks | FileCheck %s

// MFMA 16x16x16 C fragment, scores as S [q x kv]: lane l holds rows
// 4 (l / 16) + r (queries) of column l % 16 (one key). key - query of the
// registers is the lane's value minus 0, 1, 2, 3: causal (key <= query)
// compares (key - query base) against 0, 1, 2, 3; keys past Sk by one
// comparison of the 4 (equal) keys.
// CHECK-LABEL: func.func @mfma_causal
// CHECK: %[[KEYOFF:.*]] = arith.constant dense<0> : vector<4xindex>
// CHECK: %[[KEYS:.*]] = arith.addi %{{.*}}, %[[KEYOFF]] : vector<4xindex>
// CHECK: %[[INSEQ:.*]] = arith.cmpi ult, %[[KEYS]], %{{.*}} : vector<4xindex>
// CHECK: %[[BASE:.*]] = vector.broadcast %{{.*}} : index to vector<4xindex>
// CHECK: %[[BOUND:.*]] = arith.constant dense<[0, 1, 2, 3]> : vector<4xindex>
// CHECK: %[[BAND:.*]] = arith.cmpi sle, %[[BASE]], %[[BOUND]] : vector<4xindex>
// CHECK: %[[VIS:.*]] = arith.andi %[[INSEQ]], %[[BAND]] : vector<4xi1>
// CHECK: arith.select %[[VIS]], %{{.*}}, %{{.*}} : vector<4xi1>, vector<4xf32>
// CHECK-NOT: fmha.mask_fragment
func.func @mfma_causal(%x: vector<4xf32>, %q: index, %k: index, %lane: index,
    %sq: index, %sk: index) -> vector<4xf32> {
  %p = fmha.mask_fragment %x at(%q, %k) lane %lane seq(%sq, %sk)
      {atom = "mfma_f32_16x16x16_bf16", mask = #fmha.mask<causal>} : vector<4xf32>
  return %p : vector<4xf32>
}

// -----

// mma.sync m16n8 C fragment, scores as S^T [kv x q] (keys along rows): lane
// l holds key rows l / 4 and l / 4 + 8, query columns 2 (l % 4) + 0, 1.
// Without a mask only the keys past Sk are hidden: no band comparison.
// CHECK-LABEL: func.func @mma_sync_keys_along_rows
// CHECK: %[[KEYOFF:.*]] = arith.constant dense<[0, 0, 8, 8]> : vector<4xindex>
// CHECK: arith.addi %{{.*}}, %[[KEYOFF]] : vector<4xindex>
// CHECK: %[[INSEQ:.*]] = arith.cmpi ult
// CHECK-NOT: arith.cmpi
// CHECK: arith.select %[[INSEQ]]
// CHECK-NOT: fmha.mask_fragment
func.func @mma_sync_keys_along_rows(%x: vector<4xf32>, %q: index, %k: index,
    %lane: index, %sq: index, %sk: index) -> vector<4xf32> {
  %p = fmha.mask_fragment %x at(%q, %k) lane %lane seq(%sq, %sk)
      {atom = "mma_sync_m16n8k16_bf16", keys_along_rows} : vector<4xf32>
  return %p : vector<4xf32>
}

// -----

// A window (2 keys left of the diagonal, 1 right) aligned to the bottom
// right: both band edges, against key - query - (Sk - Sq).
// CHECK-LABEL: func.func @window_bottom_right
// CHECK: %[[SHIFT:.*]] = arith.subi %{{.*}}, %{{.*}} : index
// CHECK: arith.subi %{{.*}}, %[[SHIFT]] : index
// CHECK: arith.cmpi sge
// CHECK: arith.cmpi sle
// CHECK: arith.andi
// CHECK: arith.andi
// CHECK: arith.select
func.func @window_bottom_right(%x: vector<4xf32>, %q: index, %k: index,
    %lane: index, %sq: index, %sk: index) -> vector<4xf32> {
  %p = fmha.mask_fragment %x at(%q, %k) lane %lane seq(%sq, %sk)
      {atom = "mfma_f32_16x16x16_bf16", mask = #fmha.mask<sliding_window, left = 2, right = 1, alignment = bottom_right>} : vector<4xf32>
  return %p : vector<4xf32>
}
