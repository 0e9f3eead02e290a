// RUN: rocke-opt %s -split-input-file -fmha-bwd-to-kernels='strategy=warp subgroup-size=64' | FileCheck %s
// RUN: rocke-opt %s -split-input-file -fmha-bwd-to-kernels='strategy=warp subgroup-size=32' | FileCheck %s --check-prefix=SG32
// RUN: rocke-opt %s -split-input-file -fmha-bwd-to-kernels='strategy=warp target=host' | FileCheck %s --check-prefix=HOST

// f16 gradients: f32 accumulators for dK/dV, zero-filled by kernels, then
// converted; causal (top-left) keys [0, q + 1).

// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK-LABEL: func.func @causal_f16
// CHECK-DAG:     %[[DK:.*]] = gpu.alloc () : memref<2x128x8x64xf32>
// CHECK-DAG:     %[[DV:.*]] = gpu.alloc () : memref<2x128x8x64xf32>
// CHECK-DAG:     %[[DELTA:.*]] = gpu.alloc () : memref<2x8x128xf32>
// CHECK:         gpu.launch_func @fmha_kernels::@fmha_bwd_zero_dk {{.*}} args(%[[DK]] : memref<2x128x8x64xf32>)
// CHECK:         gpu.launch_func @fmha_kernels::@fmha_bwd_zero_dv {{.*}} args(%[[DV]] : memref<2x128x8x64xf32>)
// CHECK:         gpu.launch_func @fmha_kernels::@fmha_bwd_preprocess {{.*}} args(%arg3 : {{.*}}, %arg4 : {{.*}}, %[[DELTA]] : memref<2x8x128xf32>)
// CHECK:         gpu.launch_func @fmha_kernels::@fmha_bwd_warp {{.*}} threads in (%c64{{.*}}) args(%arg0 : {{.*}}, %arg1 : {{.*}}, %arg2 : {{.*}}, %arg4 : {{.*}}, %[[DELTA]] : {{.*}}, %arg6 : {{.*}}, %[[DK]] : {{.*}}, %[[DV]] : {{.*}}, %arg5 : memref<2x8x128xf32>)
// CHECK:         gpu.launch_func @fmha_kernels::@fmha_bwd_convert_dk {{.*}} args(%[[DK]] : memref<2x128x8x64xf32>, %arg7 : memref<2x128x8x64xf16>)
// CHECK:         gpu.launch_func @fmha_kernels::@fmha_bwd_convert_dv {{.*}} args(%[[DV]] : memref<2x128x8x64xf32>, %arg8 : memref<2x128x8x64xf16>)
// CHECK-DAG:     gpu.dealloc %[[DK]]
// CHECK-DAG:     gpu.dealloc %[[DV]]
// CHECK-DAG:     gpu.dealloc %[[DELTA]]
// CHECK-NOT:     fmha.attention_bwd
// CHECK:         return

// CHECK:       gpu.module @fmha_kernels
// The zero-fills take four f32 (16 bytes) a lane.
// CHECK:         gpu.func @fmha_bwd_zero_dk(%{{.*}}: memref<2x128x8x64xf32>) kernel
// CHECK-SAME:      known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 128, 1, 1>
// CHECK-SAME:      rocke.launch = {args = ["dk_accum:f32:zero"], block = [256, 1, 1], grid = ["ceildiv(B*Sk*Hkv*Dqk,1024)", "1", "1"], ops = [0], order = 0 : i64}
// CHECK:           arith.cmpi ult
// CHECK:           scf.if
// CHECK:             vector.store {{.*}} {alignment = 16 : i64} : memref<2x128x8x64xf32, #gpu.address_space<global>>, vector<4xf32>
// CHECK:         gpu.func @fmha_bwd_zero_dv
// CHECK-SAME:      order = 1 : i64
// The preprocess: a row over 8 lanes (16-byte runs of O and dO), eight rows
// a 64-lane subgroup, 32 a workgroup.
// CHECK:         gpu.func @fmha_bwd_preprocess
// CHECK-SAME:      known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 8, 2>
// CHECK-SAME:      rocke.launch = {args = ["o", "do", "delta:f32:none"], block = [256, 1, 1], grid = ["ceildiv(Sq,32)", "Hq", "B"], ops = [0], order = 2 : i64}
// CHECK:           scf.for
// CHECK:           gpu.subgroup_reduce add %{{.*}} uniform cluster(size = 8) : (f32) -> f32

// The main kernel: one subgroup per (query, head, batch); lane l owns d = l.
// CHECK:         gpu.func @fmha_bwd_warp(
// CHECK-SAME:      known_block_size = array<i32: 64, 1, 1>, known_grid_size = array<i32: 128, 8, 2>
// CHECK-SAME:      rocke.launch = {args = ["q", "k", "v", "do", "delta:f32:none", "dq", "dk_accum:f32:zero", "dv_accum:f32:zero", "lse"], block = [64, 1, 1], grid = ["Sq", "Hq", "B"], ops = [0], order = 3 : i64}
// CHECK:           %[[Q:.*]] = memref.memory_space_cast %arg0 : memref<2x128x8x64xf16> to memref<2x128x8x64xf16, #gpu.address_space<global>>
// CHECK-DAG:       %[[ROW:.*]] = gpu.block_id x
// CHECK-DAG:       %[[HEAD:.*]] = gpu.block_id y
// CHECK-DAG:       %[[BATCH:.*]] = gpu.block_id z
// CHECK-DAG:       %[[LANE:.*]] = gpu.thread_id x
// CHECK:           memref.load %[[Q]][%[[BATCH]], %[[ROW]], %[[HEAD]], %[[LANE]]]
// lse -> log2 domain, +inf for fully masked rows.
// CHECK:           arith.cmpf ogt
// CHECK:           arith.select
// Causal: keys [0, min(Sk, q + 1)).
// CHECK:           %[[NEXT:.*]] = arith.addi %[[ROW]], %c1
// CHECK:           arith.minsi {{.*}}%[[NEXT]]
// CHECK:           scf.for %[[KEY:.*]] = %c0{{.*}} to %{{.*}} step %c1{{.*}} iter_args
// CHECK:             gpu.subgroup_reduce add
// CHECK:             gpu.subgroup_reduce add
// CHECK:             math.exp2
// dK and dV through the accumulation op, one element per lane and dim
// (fmha-lower-atomic-add makes them the target's atomics).
// CHECK:             fmha.atomic_add {{.*}}[%[[BATCH]], %[[KEY]], %{{.*}}, %[[LANE]]] : vector<1xf32>, memref<2x128x8x64xf32, #gpu.address_space<global>>
// CHECK:             fmha.atomic_add
// CHECK:             scf.yield
// CHECK:           arith.truncf {{.*}} : f32 to f16
// CHECK:           memref.store {{.*}}[%[[BATCH]], %[[ROW]], %[[HEAD]], %[[LANE]]] : memref<2x128x8x64xf16, #gpu.address_space<global>>
// CHECK:         gpu.func @fmha_bwd_convert_dk
// CHECK-SAME:      rocke.launch = {args = ["dk_accum:f32:zero", "dk"], {{.*}}, ops = [0], order = 4 : i64}
// CHECK:           arith.truncf
// CHECK:         gpu.func @fmha_bwd_convert_dv
// CHECK-SAME:      order = 5 : i64

// With 32 lanes each lane owns two head-dim elements.
// SG32-LABEL: func.func @causal_f16
// SG32:         gpu.func @fmha_bwd_warp(
// SG32-SAME:      known_block_size = array<i32: 32, 1, 1>
// SG32:           %[[LANE:.*]] = gpu.thread_id x
// SG32:           %[[C32:.*]] = arith.constant 32 : index
// SG32:           arith.addi %[[LANE]], %[[C32]]
// SG32:           scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (f32, f32)

// Host: private functions looping over the grid, one lane, no reductions.
// HOST-LABEL: func.func @causal_f16
// HOST-NOT:     gpu.
// HOST:         memref.alloc() : memref<2x128x8x64xf32>
// HOST:         call @fmha_bwd_zero_dk(
// HOST:         call @fmha_bwd_zero_dv(
// HOST:         call @fmha_bwd_preprocess(
// HOST:         call @fmha_bwd_warp(
// HOST:         call @fmha_bwd_convert_dk(
// HOST:         call @fmha_bwd_convert_dv(
// HOST:         memref.dealloc
// HOST:       func.func private @fmha_bwd_zero_dk(%{{.*}}: memref<2x128x8x64xf32>, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index)
// HOST-SAME:    rocke.launch = {args = ["dk_accum:f32:zero"], block = [1, 1, 1], grid = ["ceildiv(B*Sk*Hkv*Dqk,4)", "1", "1"], ops = [0], order = 0 : i64}
// HOST:       func.func private @fmha_bwd_warp(
// HOST-SAME:    block = [1, 1, 1]
// HOST:         scf.for %[[Z:.*]] =
// HOST:           scf.for %[[Y:.*]] =
// HOST:             scf.for %[[X:.*]] =
// HOST-NOT:           gpu.subgroup_reduce
// HOST:               scf.for {{.*}} -> (f32, f32, f32
// HOST-NOT:   gpu.module

func.func @causal_f16(%q: memref<2x128x8x64xf16>, %k: memref<2x128x8x64xf16>,
    %v: memref<2x128x8x64xf16>, %o: memref<2x128x8x64xf16>, %do: memref<2x128x8x64xf16>,
    %lse: memref<2x8x128xf32>, %dq: memref<2x128x8x64xf16>, %dk: memref<2x128x8x64xf16>,
    %dv: memref<2x128x8x64xf16>) {
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv
      {mask = #fmha.mask<causal>}
      : memref<2x128x8x64xf16>, memref<2x128x8x64xf16>, memref<2x128x8x64xf16>,
        memref<2x128x8x64xf16>, memref<2x128x8x64xf16>, stats(memref<2x8x128xf32>)
        -> memref<2x128x8x64xf16>, memref<2x128x8x64xf16>, memref<2x128x8x64xf16>
  return
}

// -----

// GQA 8/2, dynamic batch and sequence lengths, f32 gradients (accumulated in
// place: no scratch, no conversion), log2_max_sum statistics, bottom-right
// sliding window.

// CHECK-LABEL: func.func @gqa_window_f32
// CHECK-NOT:     gpu.alloc () : memref<?x?x2x64xf32>
// CHECK:         %[[DELTA:.*]] = gpu.alloc (%{{.*}}, %{{.*}}) : memref<?x8x?xf32>
// CHECK:         gpu.launch_func @fmha_kernels::@fmha_bwd_zero_dk {{.*}} args(%arg8 : memref<?x?x2x64xf32>)
// CHECK:         gpu.launch_func @fmha_kernels::@fmha_bwd_zero_dv {{.*}} args(%arg9 : memref<?x?x2x64xf32>)
// CHECK:         gpu.launch_func @fmha_kernels::@fmha_bwd_preprocess
// CHECK:         gpu.launch_func @fmha_kernels::@fmha_bwd_warp {{.*}} args({{.*}}, %arg7 : memref<?x?x8x64xf32>, %arg8 : memref<?x?x2x64xf32>, %arg9 : memref<?x?x2x64xf32>, %arg5 : memref<?x8x?xf32>, %arg6 : memref<?x8x?xf32>)
// CHECK-NOT:     fmha_bwd_convert
// CHECK:         gpu.dealloc %[[DELTA]]
// Dynamic grids: no known_grid_size.
// CHECK:         gpu.func @fmha_bwd_zero_dk
// CHECK-NOT:       known_grid_size
// CHECK-SAME:      rocke.launch = {args = ["dk"]
// CHECK:         gpu.func @fmha_bwd_warp(
// CHECK-SAME:      known_block_size = array<i32: 64, 1, 1>, rocke.launch = {args = ["q", "k", "v", "do", "delta:f32:none", "dq", "dk", "dv", "m", "l"]
// GQA: kv head = query head / 4.
// CHECK-DAG:       %[[HEAD:.*]] = gpu.block_id y
// CHECK-DAG:       %[[C4:.*]] = arith.constant 4 : index
// CHECK:           %[[KVH:.*]] = arith.divui %[[HEAD]], %[[C4]] : index
// log2_max_sum: offset M, 1/L with arcp, zero for fully masked rows.
// CHECK:           arith.divf %{{.*}}, %{{.*}} fastmath<arcp> : f32
// Bottom-right window [q + off - 16, q + off + 4], off = Sk - Sq.
// CHECK:           %[[OFF:.*]] = arith.subi %{{.*}}, %{{.*}} : index
// CHECK:           arith.maxsi
// CHECK:           arith.minsi
// CHECK:           %[[HI:.*]] = arith.maxsi
// CHECK:           scf.for {{.*}} to %[[HI]]
// CHECK:             memref.load %{{.*}}[%{{.*}}, %{{.*}}, %[[KVH]], %{{.*}}] : memref<?x?x2x64xbf16
// CHECK:             arith.mulf
// CHECK:             fmha.atomic_add {{.*}}[%{{.*}}, %{{.*}}, %[[KVH]], %{{.*}}] : vector<1xf32>, memref<?x?x2x64xf32, #gpu.address_space<global>>
// CHECK-NOT:       arith.truncf
// CHECK:           gpu.return

// SG32-LABEL: func.func @gqa_window_f32
// HOST-LABEL: func.func @gqa_window_f32
// HOST:         memref.alloc(%{{.*}}, %{{.*}}) : memref<?x8x?xf32>
// HOST:         call @fmha_bwd_warp

func.func @gqa_window_f32(%q: memref<?x?x8x64xbf16>, %k: memref<?x?x2x64xbf16>,
    %v: memref<?x?x2x64xbf16>, %o: memref<?x?x8x64xbf16>, %do: memref<?x?x8x64xbf16>,
    %m: memref<?x8x?xf32>, %l: memref<?x8x?xf32>, %dq: memref<?x?x8x64xf32>,
    %dk: memref<?x?x2x64xf32>, %dv: memref<?x?x2x64xf32>) {
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%m, %l) -> %dq, %dk, %dv
      {mask = #fmha.mask<sliding_window, alignment = bottom_right, left = 16, right = 4>,
       stats_encoding = #fmha.stats<log2_max_sum>, scale = 0.5 : f32}
      : memref<?x?x8x64xbf16>, memref<?x?x2x64xbf16>, memref<?x?x2x64xbf16>,
        memref<?x?x8x64xbf16>, memref<?x?x8x64xbf16>, stats(memref<?x8x?xf32>, memref<?x8x?xf32>)
        -> memref<?x?x8x64xf32>, memref<?x?x2x64xf32>, memref<?x?x2x64xf32>
  return
}

// -----

// Two ops in one module share @fmha_kernels; each op's launch order starts
// at 0. Identical ops share identical kernels: emitted once, launched by both
// (rocke.launch.ops lists them). No mask: keys [0, Sk).

// CHECK-LABEL: func.func @two_ops
// CHECK-COUNT-2: gpu.launch_func @fmha_kernels::@fmha_bwd_warp blocks
// CHECK-NOT:     gpu.launch_func @fmha_kernels::@fmha_bwd_warp_
// CHECK-COUNT-1: gpu.module @fmha_kernels
// CHECK:         gpu.func @fmha_bwd_zero_dk(
// CHECK-SAME:      ops = [0, 1], order = 0 : i64
// CHECK:         gpu.func @fmha_bwd_warp(
// CHECK-SAME:      ops = [0, 1], order = 3 : i64
// CHECK-NOT:       arith.minsi
// CHECK-NOT:       arith.maxsi
// CHECK:           scf.for %{{.*}} = %c0{{.*}} to %c64{{.*}} step
// CHECK-NOT:     gpu.func @fmha_bwd_warp_
// SG32-LABEL: func.func @two_ops
// HOST-LABEL: func.func @two_ops
// HOST-COUNT-2: call @fmha_bwd_warp(
// HOST-NOT:     call @fmha_bwd_warp_

func.func @two_ops(%q: memref<1x64x2x64xf32>, %lse: memref<1x2x64xf32>,
    %g: memref<1x64x2x64xf32>, %dk: memref<1x64x2x64xf32>, %dv: memref<1x64x2x64xf32>) {
  fmha.attention_bwd %q, %q, %q, %q, %q, stats(%lse) -> %g, %dk, %dv
      : memref<1x64x2x64xf32>, memref<1x64x2x64xf32>, memref<1x64x2x64xf32>,
        memref<1x64x2x64xf32>, memref<1x64x2x64xf32>, stats(memref<1x2x64xf32>)
        -> memref<1x64x2x64xf32>, memref<1x64x2x64xf32>, memref<1x64x2x64xf32>
  fmha.attention_bwd %q, %q, %q, %q, %q, stats(%lse) -> %g, %dk, %dv
      : memref<1x64x2x64xf32>, memref<1x64x2x64xf32>, memref<1x64x2x64xf32>,
        memref<1x64x2x64xf32>, memref<1x64x2x64xf32>, stats(memref<1x2x64xf32>)
        -> memref<1x64x2x64xf32>, memref<1x64x2x64xf32>, memref<1x64x2x64xf32>
  return
}

// -----

// deterministic: no atomics and no accumulators; a key-stationary kernel per
// (key, kv head, batch) walks the group's query heads, then the queries that
// see its key (bottom-right causal: q >= k - (Sk - Sq)), in a fixed order.
// accumulator_type = bf16 is served by f32 registers.

// CHECK-LABEL: func.func @deterministic
// CHECK-NOT:     gpu.alloc () : memref<1x24x2x64xf32>
// CHECK:         gpu.launch_func @fmha_kernels::@fmha_bwd_preprocess
// CHECK:         gpu.launch_func @fmha_kernels::@fmha_bwd_warp {{.*}} args(%arg0 : {{.*}}, %arg1 : {{.*}}, %arg2 : {{.*}}, %arg4 : {{.*}}, %{{.*}} : memref<1x4x40xf32>, %arg6 : memref<1x40x4x64xbf16>, %arg5 : memref<1x4x40xf32>)
// CHECK:         gpu.launch_func @fmha_kernels::@fmha_bwd_warp_dkdv blocks in (%c24{{.*}}, %c2{{.*}}, %c1{{.*}}) threads in (%c64{{.*}}) args({{.*}}, %arg7 : memref<1x24x2x64xbf16>, %arg8 : memref<1x24x2x64xbf16>, %arg5 : memref<1x4x40xf32>)
// CHECK-NOT:   fmha_bwd_zero
// CHECK-NOT:   fmha_bwd_convert
// CHECK:         gpu.func @fmha_bwd_warp(
// CHECK-SAME:      rocke.launch = {args = ["q", "k", "v", "do", "delta:f32:none", "dq", "lse"], block = [64, 1, 1], grid = ["Sq", "Hq", "B"], ops = [0], order = 1 : i64}
// CHECK-NOT:       {{memref.atomic_rmw|fmha.atomic_add}}
// CHECK:           gpu.return
// CHECK:         gpu.func @fmha_bwd_warp_dkdv(
// CHECK-SAME:      known_grid_size = array<i32: 24, 2, 1>
// CHECK-SAME:      rocke.launch = {args = ["q", "k", "v", "do", "delta:f32:none", "dk", "dv", "lse"], block = [64, 1, 1], grid = ["Sk", "Hkv", "B"], ops = [0], order = 2 : i64}
// CHECK-DAG:       %[[KEY:.*]] = gpu.block_id x
// CHECK-DAG:       %[[KVH:.*]] = gpu.block_id y
// CHECK:           %[[SHIFT:.*]] = arith.subi %[[KEY]], %{{.*}} : index
// CHECK:           %[[QLO:.*]] = arith.maxsi %[[SHIFT]], %{{.*}} : index
// CHECK:           %[[QHI:.*]] = arith.maxsi {{.*}}%[[QLO]]{{.*}} : index
// CHECK:           %[[H0:.*]] = arith.muli %[[KVH]], %c2{{.*}} : index
// CHECK:           %[[H1:.*]] = arith.addi %[[H0]], %c2{{.*}} : index
// CHECK:           scf.for %[[HEAD:.*]] = %[[H0]] to %[[H1]] step {{.*}} -> (f32, f32)
// CHECK:             scf.for %[[ROW:.*]] = %[[QLO]] to %[[QHI]] step {{.*}} -> (f32, f32)
// CHECK:               memref.load %{{.*}}[%{{.*}}, %[[ROW]], %[[HEAD]], %{{.*}}] : memref<1x40x4x64xbf16
// CHECK:               gpu.subgroup_reduce add
// CHECK:               gpu.subgroup_reduce add
// CHECK-NOT:           {{memref.atomic_rmw|fmha.atomic_add}}
// CHECK:               scf.yield
// CHECK:           arith.truncf {{.*}} : f32 to bf16
// CHECK:           memref.store {{.*}}[%{{.*}}, %[[KEY]], %[[KVH]], %{{.*}}] : memref<1x24x2x64xbf16, #gpu.address_space<global>>
// CHECK:           memref.store
// CHECK:           gpu.return
// SG32-LABEL: func.func @deterministic
// HOST-LABEL: func.func @deterministic
// HOST-NOT:     memref.alloc() : memref<1x24x2x64xf32>
// HOST:         call @fmha_bwd_warp_dkdv(

func.func @deterministic(%q: memref<1x40x4x64xbf16>, %k: memref<1x24x2x64xbf16>,
    %v: memref<1x24x2x64xbf16>, %o: memref<1x40x4x64xbf16>, %do: memref<1x40x4x64xbf16>,
    %lse: memref<1x4x40xf32>, %dq: memref<1x40x4x64xbf16>, %dk: memref<1x24x2x64xbf16>,
    %dv: memref<1x24x2x64xbf16>) {
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv
      {mask = #fmha.mask<causal, alignment = bottom_right>, deterministic, accumulator_type = bf16}
      : memref<1x40x4x64xbf16>, memref<1x24x2x64xbf16>, memref<1x24x2x64xbf16>,
        memref<1x40x4x64xbf16>, memref<1x40x4x64xbf16>, stats(memref<1x4x40xf32>)
        -> memref<1x40x4x64xbf16>, memref<1x24x2x64xbf16>, memref<1x24x2x64xbf16>
  return
}
