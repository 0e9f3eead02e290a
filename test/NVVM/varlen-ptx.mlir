// A packed (varlen) forward and backward through fmha-bwd-nvvm for sm_90a:
// every kernel that reads per-sequence data takes cu_seqlens_q /
// cu_seqlens_k after its other arguments, loads its sequence's two offsets
// (grid z) and leaves at once when its block starts past the sequence's end
// (the preprocess, main kernels, and the dQ conversion); the preprocess
// zero-fills its rows of the dQ accumulator (16-byte stores: the rows of
// each sequence start 16-byte aligned). Grids run over the longest sequence
// (max_seqlen_q / max_seqlen_k, launch symbols). The accumulator is
// head-major, [Hq, T_q + B * 64, 128 + 8] f32, with each sequence's rows
// padded to whole query blocks, so the main kernel adds each staged block
// of 64 rows in one bulk reduction (34816 bytes) where the sequence's view
// puts it.
// RUN: rocke-opt %S/Inputs/varlen_fwd_bwd_bf16_d128_causal.mlir -o %t.mlir -pass-pipeline='builtin.module(fmha-bwd-nvvm{chip=sm_90a},fmha-dump-binary{output=%t.ptx})'
// RUN: FileCheck %s --check-prefix=PTX --implicit-check-not=.local < %t.ptx
// RUN: FileCheck %s --check-prefix=JSON < %t.ptx.json
// RUN: FileCheck %s --check-prefix=HOST < %t.mlir

// PTX: .target sm_90a
// PTX-LABEL: .entry fmha_fwd_tiled_main(
// PTX: ld.global.s32 {{.*}}, [[[CUQ:%rd[0-9]+]]];
// PTX-NEXT: ld.global.s32 {{.*}}, [[[CUQ]]+4];
// PTX: setp.ge.u64 [[EXIT:%p[0-9]+]],
// PTX-NEXT: @[[EXIT]] bra
// PTX: wgmma.mma_async
// PTX-NOT: .entry fmha_bwd_zero_dq(
// PTX-LABEL: .entry fmha_bwd_preprocess(
// PTX: ld.global.s32 {{.*}}, [[[CUQ:%rd[0-9]+]]];
// PTX-NEXT: ld.global.s32 {{.*}}, [[[CUQ]]+4];
// PTX: setp.ge.u64 [[EXIT:%p[0-9]+]],
// PTX-NEXT: @[[EXIT]] bra
// PTX: ld.global.v4.b32
// PTX: st.global.v4.b32 [{{.*}}], {0f00000000, 0f00000000, 0f00000000, 0f00000000};
// PTX-LABEL: .entry fmha_bwd_tiled_main(
// PTX: ld.global.s32 {{.*}}, [[[CU:%rd[0-9]+]]];
// PTX-NEXT: ld.global.s32 {{.*}}, [[[CU]]+4];
// PTX: setp.ge.u64 [[EXIT:%p[0-9]+]],
// PTX-NEXT: @[[EXIT]] bra
// PTX: wgmma.mma_async
// PTX: mov.b32 [[SIZE:%r[0-9]+]], 34816;
// PTX: cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%rd{{[0-9]+}}], [%r{{[0-9]+}}], [[SIZE]];
// PTX-LABEL: .entry fmha_bwd_convert_dq(
// PTX: ld.global.s32 {{.*}}, [[[CUQ:%rd[0-9]+]]];
// PTX-NEXT: ld.global.s32 {{.*}}, [[[CUQ]]+4];

// Each kernel's launch facts come before its name.
// JSON: "launch": {
// JSON-NEXT: "args": [
// JSON-NEXT: "q",
// JSON-NEXT: "k",
// JSON-NEXT: "v",
// JSON-NEXT: "o",
// JSON-NEXT: "lse",
// JSON-NEXT: "cu_seqlens_q",
// JSON-NEXT: "cu_seqlens_k"
// JSON: "grid": [
// JSON-NEXT: "ceildiv(max_seqlen_q,128)",
// JSON-NEXT: "Hq",
// JSON-NEXT: "B"
// JSON: "symbols": {
// JSON-NEXT: "max_seqlen_k": 4096,
// JSON-NEXT: "max_seqlen_q": 4096
// JSON: "name": "fmha_fwd_tiled_main"
// JSON: "dq_accum:f32:zero:[Hq,Sq+B*BQ,Dqk+8]"
// JSON-NOT: "name": "fmha_bwd_zero_dq"
// JSON: "row_stats:f32:none:[Hq,Sq,2]",
// JSON: "dq_accum:f32:zero:[Hq,Sq+B*BQ,Dqk+8]",
// JSON: "ceildiv(max_seqlen_q,16)",
// JSON: "name": "fmha_bwd_preprocess"
// JSON: {{^ *}}"dv",
// JSON-NEXT: "cu_seqlens_q",
// JSON-NEXT: "cu_seqlens_k"
// JSON: "ceildiv(max_seqlen_k,128)",
// JSON-NEXT: "Hkv",
// JSON-NEXT: "B"
// JSON: "name": "fmha_bwd_tiled_main"
// JSON: "ceildiv(max_seqlen_q*Hq*128,2048)",
// JSON-NEXT: "1",
// JSON-NEXT: "B"
// JSON: "name": "fmha_bwd_convert_dq"

// The grids' z is B = the offsets' length - 1; x is static (the maxima).
// HOST-LABEL: func.func @varlen_fwd_bwd(
// HOST: %[[N:.*]] = memref.dim %arg6, %c0
// HOST: %[[B:.*]] = arith.subi %[[N]], %c1
// HOST: gpu.launch_func @fmha_kernels::@fmha_fwd_tiled_main blocks in (%c32, %c16, %[[B]]) {{.*}} args({{.*}}, %arg4 : memref<16x?xf32>, %arg6 : memref<?xi32>, %arg7 : memref<?xi32>)
// HOST-NOT: @fmha_bwd_zero_dq
// HOST: gpu.launch_func @fmha_kernels::@fmha_bwd_preprocess {{.*}} args({{.*}} : memref<16x?x2xf32>, %arg4 : memref<16x?xf32>, %{{.*}} : memref<16x?x136xf32>, %arg6 : memref<?xi32>, %arg7 : memref<?xi32>)
// HOST: gpu.launch_func @fmha_kernels::@fmha_bwd_tiled_main blocks in (%c32, %c4, %{{.*}}) {{.*}} %arg6 : memref<?xi32>, %arg7 : memref<?xi32>)
// HOST: gpu.launch_func @fmha_kernels::@fmha_bwd_convert_dq {{.*}} %arg6 : memref<?xi32>, %arg7 : memref<?xi32>)
