// RUN: rocke-opt %s -fmha-lower-to-loops -split-input-file | FileCheck %s

// Forward, no mask, lse: two passes over the keys (row max, then exp-sum and
// P V), O = acc / l with empty rows zeroed, lse = m + log(l) or -inf.
// CHECK-LABEL: func.func @fwd_none_lse
// CHECK-NOT:     fmha.
// CHECK-DAG:     %[[SCALE:.*]] = arith.constant 1.250000e-01 : f32
// CHECK-DAG:     %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK:         %[[ACC:.*]] = memref.alloca() : memref<64xf32>
// CHECK:         scf.for %[[B:.*]] = %{{.*}} to %{{.*}}
// CHECK:           scf.for %[[H:.*]] = %{{.*}} to %{{.*}}
// CHECK:             scf.for %[[I:.*]] = %{{.*}} to %{{.*}}
// CHECK:               %[[MAX:.*]] = scf.for %[[J:.*]] = {{.*}} iter_args(%[[M:.*]] = %[[NEGINF]])
// CHECK-NOT:             arith.cmpi
// CHECK:                 memref.load %arg0[%[[B]], %[[I]], %[[H]], %{{.*}}] : memref<2x17x4x64xf32>
// CHECK:                 memref.load %arg1[%[[B]], %[[J]], %[[H]], %{{.*}}] : memref<2x17x4x64xf32>
// CHECK:                 %[[S:.*]] = arith.mulf %{{.*}}, %[[SCALE]]
// CHECK:                 arith.maximumf %[[M]], %[[S]]
// CHECK:               %[[SUM:.*]] = scf.for
// CHECK:                 arith.subf %{{.*}}, %[[MAX]]
// CHECK:                 math.exp
// CHECK:                 memref.store %{{.*}}, %[[ACC]]
// CHECK:               %[[NONEMPTY:.*]] = arith.cmpf ogt, %[[SUM]]
// CHECK:               scf.for
// CHECK:                 arith.divf %{{.*}}, %[[SUM]]
// CHECK:                 arith.select %[[NONEMPTY]]
// CHECK:                 memref.store %{{.*}}, %arg3[%[[B]], %[[I]], %[[H]], %{{.*}}]
// CHECK:               %[[LOG:.*]] = math.log %[[SUM]]
// CHECK:               %[[LSE:.*]] = arith.addf %[[MAX]], %[[LOG]]
// CHECK:               %[[SEL:.*]] = arith.select %[[NONEMPTY]], %[[LSE]], %[[NEGINF]]
// CHECK:               memref.store %[[SEL]], %arg4[%[[B]], %[[H]], %[[I]]]
func.func @fwd_none_lse(%q: memref<2x17x4x64xf32>, %k: memref<2x17x4x64xf32>,
                        %v: memref<2x17x4x64xf32>, %o: memref<2x17x4x64xf32>,
                        %lse: memref<2x4x17xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
    : memref<2x17x4x64xf32>, memref<2x17x4x64xf32>, memref<2x17x4x64xf32>
      -> memref<2x17x4x64xf32>, stats(memref<2x4x17xf32>)
  return
}

// -----

// Bottom-right causal on dynamic sizes: the diagonal offset Sk - Sq comes
// from memref.dim; GQA maps query head h to kv head h / 2; f16 is widened on
// load and rounded on store.
// CHECK-LABEL: func.func @fwd_causal_br_gqa_f16
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : index
// CHECK:         %[[SQ:.*]] = memref.dim %arg0, %[[C1]]
// CHECK:         %[[SK:.*]] = memref.dim %arg1, %[[C1]]
// CHECK:         %[[OFF:.*]] = arith.subi %[[SK]], %[[SQ]] : index
// CHECK:         scf.for %{{.*}} = %[[C0]] to %{{.*}}
// CHECK-NEXT:      scf.for %[[H:.*]] = %[[C0]] to %{{.*}}
// CHECK-NEXT:        %[[HK:.*]] = arith.divui %[[H]], %[[C2]] : index
// CHECK:           scf.for %[[I:.*]] = %[[C0]] to %[[SQ]]
// CHECK:             scf.for %[[J:.*]] = %[[C0]] to %[[SK]]
// CHECK:               %[[D:.*]] = arith.addi %[[I]], %[[OFF]]
// CHECK:               %[[REL:.*]] = arith.subi %[[J]], %[[D]]
// CHECK:               %[[VIS:.*]] = arith.cmpi sle, %[[REL]], %[[C0]]
// CHECK:               scf.if %[[VIS]] -> (f32)
// CHECK:                 memref.load %arg1[%{{.*}}, %[[J]], %[[HK]], %{{.*}}] : memref<?x?x2x64xf16>
// CHECK:                 arith.extf %{{.*}} : f16 to f32
// CHECK:           arith.truncf %{{.*}} : f32 to f16
func.func @fwd_causal_br_gqa_f16(%q: memref<?x?x4x64xf16>, %k: memref<?x?x2x64xf16>,
                                 %v: memref<?x?x2x64xf16>, %o: memref<?x?x4x64xf16>,
                                 %lse: memref<?x4x?xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
    {mask = #fmha.mask<causal, alignment = bottom_right>}
    : memref<?x?x4x64xf16>, memref<?x?x2x64xf16>, memref<?x?x2x64xf16>
      -> memref<?x?x4x64xf16>, stats(memref<?x4x?xf32>)
  return
}

// -----

// A sliding window tests both band edges; log2_max_sum works in the log2
// domain (scale * log2e = 0.5 * 1.4427) with exp2 and stores M and L.
// CHECK-LABEL: func.func @fwd_window_log2
// CHECK-DAG:     %[[C3:.*]] = arith.constant -3 : index
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG:     %[[CL:.*]] = arith.constant 0.72134751 : f32
// CHECK:         %[[REL:.*]] = arith.subi
// CHECK:         %[[LO:.*]] = arith.cmpi sge, %[[REL]], %[[C3]]
// CHECK:         %[[HI:.*]] = arith.cmpi sle, %[[REL]], %[[C2]]
// CHECK:         arith.andi %[[LO]], %[[HI]]
// CHECK:         arith.mulf %{{.*}}, %[[CL]]
// CHECK:         math.exp2
// CHECK-NOT:     math.log
// CHECK:         memref.store %{{.*}}, %arg4
// CHECK:         memref.store %{{.*}}, %arg5
func.func @fwd_window_log2(%q: memref<1x8x2x32xf32>, %k: memref<1x8x2x32xf32>,
                           %v: memref<1x8x2x32xf32>, %o: memref<1x8x2x32xf32>,
                           %m: memref<1x2x8xf32>, %l: memref<1x2x8xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%m, %l)
    {mask = #fmha.mask<sliding_window, left = 3, right = 2>, scale = 0.5 : f32,
     stats_encoding = #fmha.stats<log2_max_sum>}
    : memref<1x8x2x32xf32>, memref<1x8x2x32xf32>, memref<1x8x2x32xf32>
      -> memref<1x8x2x32xf32>, stats(memref<1x2x8xf32>, memref<1x2x8xf32>)
  return
}

// -----

// one_sided_window W: q + off - k < W, i.e. rel >= -(W - 1); no upper edge.
// CHECK-LABEL: func.func @fwd_one_sided
// CHECK-DAG:     %[[LOW:.*]] = arith.constant -4 : index
// CHECK:         arith.cmpi sge, %{{.*}}, %[[LOW]]
// CHECK-NOT:     arith.cmpi sle
// CHECK:         return
func.func @fwd_one_sided(%q: memref<1x8x2x32xf32>, %k: memref<1x8x2x32xf32>,
                         %v: memref<1x8x2x32xf32>, %o: memref<1x8x2x32xf32>,
                         %lse: memref<1x2x8xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
    {mask = #fmha.mask<one_sided_window, left = 5>}
    : memref<1x8x2x32xf32>, memref<1x8x2x32xf32>, memref<1x8x2x32xf32>
      -> memref<1x8x2x32xf32>, stats(memref<1x2x8xf32>)
  return
}

// -----

// Backward on strided (BHSD) memrefs: a dQ nest over query rows and a dK/dV
// nest over key rows that sums the query heads of each kv head; P is only
// evaluated under the mask, so fully masked rows get exactly zero gradients.
// CHECK-LABEL: func.func @bwd_bhsd
// CHECK-NOT:     fmha.
// CHECK-DAG:     %[[SCALE:.*]] = arith.constant 1.250000e-01 : f32
// CHECK:         %[[ACCQ:.*]] = memref.alloca() : memref<64xf32>
// CHECK:         %[[ACCK:.*]] = memref.alloca() : memref<64xf32>
// CHECK:         %[[ACCV:.*]] = memref.alloca() : memref<64xf32>
// dQ nest
// CHECK:         scf.for
// CHECK:           %[[LSE:.*]] = memref.load %arg5
// CHECK:           %[[VIS:.*]] = arith.cmpi sle
// CHECK:           scf.if %[[VIS]]
// CHECK:           arith.subf %{{.*}}, %[[LSE]]
// CHECK:           math.exp
// CHECK:           memref.store %{{.*}}, %[[ACCQ]]
// CHECK:           arith.mulf %{{.*}}, %[[SCALE]]
// CHECK:           memref.store %{{.*}}, %arg6
// dK / dV nest: kv heads outside, the group of query heads inside
// CHECK:         scf.for
// CHECK-NEXT:      scf.for %[[HK:.*]] =
// CHECK-NEXT:        scf.for %[[J:.*]] =
// CHECK:             scf.for %[[G:.*]] =
// CHECK:               arith.muli %[[HK]]
// CHECK:               memref.store %{{.*}}, %[[ACCK]]
// CHECK:               memref.store %{{.*}}, %[[ACCV]]
// CHECK:           memref.store %{{.*}}, %arg7
// CHECK:           memref.store %{{.*}}, %arg8
func.func @bwd_bhsd(
    %q: memref<1x16x4x64xf32, strided<[4096, 64, 1024, 1]>>,
    %k: memref<1x16x2x64xf32, strided<[2048, 64, 1024, 1]>>,
    %v: memref<1x16x2x64xf32, strided<[2048, 64, 1024, 1]>>,
    %o: memref<1x16x4x64xf32, strided<[4096, 64, 1024, 1]>>,
    %do: memref<1x16x4x64xf32, strided<[4096, 64, 1024, 1]>>,
    %lse: memref<1x4x16xf32>,
    %dq: memref<1x16x4x64xf32, strided<[4096, 64, 1024, 1]>>,
    %dk: memref<1x16x2x64xf32, strided<[2048, 64, 1024, 1]>>,
    %dv: memref<1x16x2x64xf32, strided<[2048, 64, 1024, 1]>>) {
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv
    {mask = #fmha.mask<causal>}
    : memref<1x16x4x64xf32, strided<[4096, 64, 1024, 1]>>,
      memref<1x16x2x64xf32, strided<[2048, 64, 1024, 1]>>,
      memref<1x16x2x64xf32, strided<[2048, 64, 1024, 1]>>,
      memref<1x16x4x64xf32, strided<[4096, 64, 1024, 1]>>,
      memref<1x16x4x64xf32, strided<[4096, 64, 1024, 1]>>,
      stats(memref<1x4x16xf32>)
      -> memref<1x16x4x64xf32, strided<[4096, 64, 1024, 1]>>,
         memref<1x16x2x64xf32, strided<[2048, 64, 1024, 1]>>,
         memref<1x16x2x64xf32, strided<[2048, 64, 1024, 1]>>
  return
}

// -----

// log2_max_sum backward: P = exp2(s * scale * log2e - M) / L; bf16 inputs,
// f32 gradients.
// CHECK-LABEL: func.func @bwd_log2_bf16
// CHECK:         %[[M:.*]] = memref.load %arg5
// CHECK:         %[[L:.*]] = memref.load %arg6
// CHECK:         arith.extf %{{.*}} : bf16 to f32
// CHECK:         %[[T:.*]] = arith.subf %{{.*}}, %[[M]]
// CHECK:         %[[E:.*]] = math.exp2 %[[T]]
// CHECK:         arith.divf %[[E]], %[[L]]
// CHECK-NOT:     arith.truncf
// CHECK:         return
func.func @bwd_log2_bf16(%q: memref<1x5x4x32xbf16>, %k: memref<1x7x2x32xbf16>,
                         %v: memref<1x7x2x32xbf16>, %o: memref<1x5x4x32xbf16>,
                         %do: memref<1x5x4x32xbf16>, %m: memref<1x4x5xf32>,
                         %l: memref<1x4x5xf32>, %dq: memref<1x5x4x32xf32>,
                         %dk: memref<1x7x2x32xf32>, %dv: memref<1x7x2x32xf32>) {
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%m, %l) -> %dq, %dk, %dv
    {mask = #fmha.mask<sliding_window, left = 3, right = 2>, scale = 0.5 : f32,
     stats_encoding = #fmha.stats<log2_max_sum>}
    : memref<1x5x4x32xbf16>, memref<1x7x2x32xbf16>, memref<1x7x2x32xbf16>,
      memref<1x5x4x32xbf16>, memref<1x5x4x32xbf16>,
      stats(memref<1x4x5xf32>, memref<1x4x5xf32>)
      -> memref<1x5x4x32xf32>, memref<1x7x2x32xf32>, memref<1x7x2x32xf32>
  return
}
