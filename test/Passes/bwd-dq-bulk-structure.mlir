// dq-accumulation=bulk-reduce: the tiled backward's dQ through workgroup
// memory and the bulk-copy unit (sm_90a, warpgroup products), on the input
// of test/NVVM/bwd-wgmma-ptx.mlir (bf16, D = 64, Hq = 16, Hkv = 4, causal:
// block-q 128, two warpgroups), where auto takes it too (one slot), as with
// block-q 64 (D = 128's tiles); where the stage does not fit beside auto's
// tiles (D = 192), atomics. dq-stage-slots=2 makes the stage a double
// buffer.
// RUN: rocke-opt %S/../NVVM/Inputs/attention_bwd_bf16.mlir -pass-pipeline='builtin.module(fmha-bwd-to-kernels{strategy=tiled chip=sm_90a dq-accumulation=bulk-reduce dq-stage-slots=2},fmha-pipeline-tile-fetches,fmha-lower-tile-copies,fmha-split-workgroup-tiles,fmha-distribute-tiles,gpu.module(gpu.func(fmha-place-workgroup-barriers)))' -o %t
// RUN: FileCheck %s < %t
// RUN: FileCheck %s --check-prefix=STAGE < %t
// RUN: rocke-opt %S/../NVVM/Inputs/attention_bwd_bf16.mlir -fmha-bwd-to-kernels='strategy=tiled chip=sm_90a dq-accumulation=bulk-reduce' | FileCheck %s --check-prefix=LAUNCH
// RUN: rocke-opt %S/../NVVM/Inputs/attention_bwd_bf16.mlir -fmha-bwd-to-kernels='strategy=tiled chip=sm_90a' | FileCheck %s --check-prefix=LAUNCH
// RUN: rocke-opt %S/../NVVM/Inputs/attention_bwd_bf16.mlir -fmha-bwd-to-kernels='strategy=tiled chip=sm_90a dq-accumulation=bulk-reduce dq-stage-slots=2' | FileCheck %s --check-prefix=TWOSLOTS
// RUN: rocke-opt %S/../NVVM/Inputs/attention_bwd_bf16.mlir -fmha-bwd-to-kernels='strategy=tiled chip=sm_90a dq-accumulation=atomics' | FileCheck %s --check-prefix=ATOMICS
// RUN: rocke-opt %S/../NVVM/Inputs/attention_bwd_bf16.mlir -fmha-bwd-to-kernels='strategy=tiled chip=sm_90a block-q=64' | FileCheck %s --check-prefix=ONESLOT64
// RUN: rocke-opt %S/../ISA/Inputs/tiled_bf16_d192_none.mlir -fmha-bwd-to-kernels='strategy=tiled chip=sm_90a' | FileCheck %s --check-prefix=D192
// RUN: rocke-opt %S/../NVVM/Inputs/attention_bwd_bf16.mlir -fmha-bwd-to-kernels='strategy=tiled chip=sm_90a block-q=64 dq-accumulation=bulk-reduce' | FileCheck %s --check-prefix=ONESLOT64
// RUN: rocke-opt %S/../NVVM/Inputs/attention_bwd_bf16.mlir -fmha-bwd-to-kernels='strategy=tiled chip=sm_90a block-q=64 dq-accumulation=bulk-reduce dq-stage-slots=2' | FileCheck %s --check-prefix=BLOCKQ64
// RUN: rocke-opt %S/../NVVM/Inputs/attention_bwd_bf16.mlir -pass-pipeline='builtin.module(fmha-bwd-to-kernels{strategy=tiled chip=sm_90a dq-accumulation=bulk-reduce},fmha-pipeline-tile-fetches,fmha-lower-tile-copies,fmha-split-workgroup-tiles,fmha-distribute-tiles,gpu.module(gpu.func(fmha-place-workgroup-barriers)))' | FileCheck %s --check-prefix=ONESLOT

// Per query block, still two barriers: the block's Q / dO copies (fetched
// an iteration ahead) and the previous block's staged dQ are published by
// the first, after which work-item 0 hands slot (qb - 1) mod 2, all its
// 128 rows of 64 + 8 f32, to the bulk-copy unit in one operation (none
// before the first block): the accumulator is head-major with the same
// padded rows, so the block is one run of it. Every work-item commits a
// bulk group. Before the barrier
// that publishes dS the reads of all groups but the newest are waited for:
// those of slot qb mod 2, which dQ is staged into after it. Each head's
// last block is issued after the loop, the kernel waits for it at its end.
// No dQ atomics.
// CHECK-LABEL: gpu.func @fmha_bwd_tiled_main
// CHECK-NOT: fmha.atomic_add
// CHECK: scf.for
// CHECK: scf.for
// CHECK: nvgpu.device_async_wait
// CHECK-NEXT: nvvm.fence.proxy
// CHECK-NEXT: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: %[[LATER:.*]] = arith.cmpi ugt, %[[QB:.*]], %{{.*}} : index
// CHECK-NEXT: scf.if %[[LATER]] {
// CHECK-NEXT: %[[PREV:.*]] = arith.subi %[[QB]], %{{.*}} : index
// CHECK-NEXT: arith.constant 2
// CHECK-NEXT: %[[PSLOT:.*]] = arith.remui %[[PREV]], %{{.*}} : index
// CHECK-NEXT: %[[PBUF:.*]] = memref.subview %[[STAGED:[a-z0-9_]+]][%[[PSLOT]], 0, 0] [1, 128, 72]
// CHECK-NEXT: %[[ISSUER:.*]] = arith.cmpi eq, %[[TID:.*]], %[[C0:.*]] : index
// CHECK-NEXT: scf.if %[[ISSUER]] {
// CHECK-NEXT: %[[ROW:.*]] = arith.muli %[[PREV]], %{{.*}} : index
// CHECK-NEXT: fmha.bulk_add %[[PBUF]][%[[C0]], %[[C0]]] to %{{.*}}[%{{.*}}, %{{.*}}, %[[ROW]], %[[C0]]] {count = 9216 : i64} : memref<128x72xf32, strided<[72, 1], offset: ?>, #gpu.address_space<workgroup>>, memref<?x16x?x72xf32, #gpu.address_space<global>>
// CHECK: }
// CHECK-NEXT: }
// CHECK-NEXT: fmha.bulk_commit
// CHECK-NOT: gpu.barrier
// CHECK: fmha.bulk_wait pending 1
// CHECK-NEXT: nvvm.fence.proxy
// CHECK-NEXT: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: %[[SLOT:.*]] = arith.remui %[[QB]], %{{.*}} : index
// CHECK-NEXT: %[[SBUF:.*]] = memref.subview %[[STAGED]][%[[SLOT]], 0, 0] [1, 128, 72]
// CHECK-NOT: gpu.barrier
// CHECK: vector.store %{{.*}}, %[[SBUF]][
// CHECK-NOT: gpu.barrier
// CHECK: scf.yield
// CHECK: nvgpu.device_async_wait
// CHECK-NEXT: nvvm.fence.proxy
// CHECK-NEXT: gpu.barrier
// CHECK: fmha.bulk_add
// CHECK: fmha.bulk_commit
// CHECK: scf.yield
// CHECK-NOT: gpu.barrier
// CHECK: fmha.bulk_wait{{$}}
// CHECK-NEXT: gpu.return

// One slot (the default): the wait before the dS barrier covers every
// group, the newest included.
// ONESLOT-LABEL: gpu.func @fmha_bwd_tiled_main
// ONESLOT: fmha.bulk_add
// ONESLOT: fmha.bulk_commit
// ONESLOT-NOT: gpu.barrier
// ONESLOT: fmha.bulk_wait{{$}}
// ONESLOT-NEXT: nvvm.fence.proxy
// ONESLOT-NEXT: gpu.barrier

// The stage: each warpgroup's 64 x 64 block of dQ, 16 two-element stores a
// lane into rows of 64 + 8 f32 of the block's slot.
// STAGE-LABEL: gpu.func @fmha_bwd_tiled_main
// STAGE-COUNT-16: vector.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<128x72xf32, strided<[72, 1], offset: ?>, #gpu.address_space<workgroup>>, vector<2xf32>
// STAGE-NOT: memref<128x72xf32, strided<[72, 1], offset: ?>, #gpu.address_space<workgroup>>, vector<2xf32>
// STAGE: gpu.return

// The accumulator, [B, Hq, Sq', 64 + 8] f32, is zero-filled by the
// preprocess and read by the conversion through one view of it as [B, Sq',
// Hq, 64] (its padding columns are never read).
// LAUNCH: gpu.alloc ({{.*}}) : memref<?x16x?x72xf32>
// LAUNCH-LABEL: gpu.func @fmha_bwd_preprocess
// LAUNCH-SAME: "dq_accum:f32:zero:[B,Hq,ceildiv(Sq,BQ)*BQ,Dqk+8]"
// LAUNCH: memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [%{{.*}}, %{{.*}}, 16, 64], strides: [%{{.*}}, 72, %{{.*}}, 1] : memref<?x16x?x72xf32{{.*}}> to memref<?x?x16x64xf32, strided<[?, 72, ?, 1]>{{.*}}>
// The stage is the last workgroup buffer (36 KiB after the 129 KiB of the
// others; two slots: 72 KiB); the accumulator's columns stay in order (no
// paired columns), which the conversion reads as such.
// LAUNCH-LABEL: gpu.func @fmha_bwd_tiled_main
// LAUNCH-SAME: dynamic_shared_bytes = 168960
// LAUNCH: memref.view %{{.*}}[%c132096][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<1x128x72xf32, #gpu.address_space<workgroup>>
// TWOSLOTS-LABEL: gpu.func @fmha_bwd_tiled_main
// TWOSLOTS-SAME: dynamic_shared_bytes = 205824
// TWOSLOTS: memref.view %{{.*}}[%c132096][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<2x128x72xf32, #gpu.address_space<workgroup>>
// LAUNCH-LABEL: gpu.func @fmha_bwd_convert_dq
// LAUNCH-NOT: vector.shuffle
// LAUNCH: memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [%{{.*}}, %{{.*}}, 16, 64], strides: [%{{.*}}, 72, %{{.*}}, 1] : memref<?x16x?x72xf32{{.*}}> to memref<?x?x16x64xf32, strided<[?, 72, ?, 1]>{{.*}}>
// LAUNCH-NOT: vector.shuffle
// LAUNCH: gpu.return
// ATOMICS-LABEL: gpu.func @fmha_bwd_tiled_main
// ATOMICS-NOT: memref<128x72xf32
// ATOMICS-NOT: fmha.bulk
// ATOMICS: fmha.tile_accumulate atomic_add {{.*}} {paired_columns}
// ATOMICS-NOT: fmha.bulk
// ATOMICS-LABEL: gpu.func @fmha_bwd_convert_dq
// ATOMICS: vector.shuffle
// ATOMICS: gpu.return
// At block-q 64 (D = 128's tiles): one slot of 64 rows of staged dQ (auto,
// or asked for), or two.
// BLOCKQ64-LABEL: gpu.func @fmha_bwd_tiled_main
// BLOCKQ64-SAME: dynamic_shared_bytes = 
// BLOCKQ64: memref<2x64x72xf32, #gpu.address_space<workgroup>>
// ONESLOT64-LABEL: gpu.func @fmha_bwd_tiled_main
// ONESLOT64: memref<1x64x72xf32, #gpu.address_space<workgroup>>
// BLOCKQ64-NOT: fmha.tile_accumulate
// ONESLOT64: fmha.bulk_add {{.*}} {count = 4608 : i64}
// ONESLOT64-NOT: fmha.tile_accumulate

// D = 192: auto's tiles (block-q 16, block-kv 64, 128 work-items) leave no
// room for the stage, so auto adds dQ atomically, into the row-major
// accumulator.
// D192-LABEL: gpu.func @fmha_bwd_preprocess
// D192-SAME: "dq_accum:f32:zero:[B,ceildiv(Sq,BQ)*BQ,Hq,Dqk]"
// D192-LABEL: gpu.func @fmha_bwd_tiled_main
// D192-SAME: dynamic_shared_bytes = 40832
// D192-NOT: fmha.bulk
// D192: fmha.tile_accumulate atomic_add
// D192-NOT: fmha.bulk
// D192: gpu.return
