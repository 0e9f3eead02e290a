// fmha-bwd-nvvm: fmha.attention_bwd -> PTX for both strategies, with the
// launch facts the H200 runner (bench/run_bwd.py) reads from the sidecar.
// RUN: rocke-opt %S/Inputs/attention_bwd_bf16.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-nvvm{strategy=warp},fmha-dump-binary{output=%t.warp.ptx})'
// RUN: FileCheck %s --check-prefix=WARP --implicit-check-not=__nv_ < %t.warp.ptx
// RUN: FileCheck %s --check-prefix=WARPJSON < %t.warp.ptx.json
// RUN: rocke-opt %S/Inputs/attention_bwd_bf16.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-nvvm{strategy=tiled block-q=64 block-kv=64 num-warps=4},fmha-dump-binary{output=%t.tiled.ptx})'
// RUN: FileCheck %s --check-prefix=TILED --implicit-check-not=__nv_ --implicit-check-not=atom.global --implicit-check-not=red.global.add.f32 < %t.tiled.ptx
// RUN: FileCheck %s --check-prefix=TILEDJSON < %t.tiled.ptx.json

// WARP: .target sm_90
// WARP-LABEL: .entry fmha_bwd_warp(
// WARP: .maxntid 32, 1, 1
// WARP: shfl.sync.bfly.b32
// WARP: ex2.approx.ftz.f32
// WARP: {{atom|red}}.global.add.f32

// WARPJSON: "launch": {
// WARPJSON: "q",
// WARPJSON: "dk_accum:f32:zero",
// WARPJSON: "param_count":
// WARPJSON: "name": "fmha_bwd_warp"

// dQ leaves the mma.sync accumulators as two atoms' register pairs at once
// (the accumulator's paired columns), each one vector reduction (PTX ISA
// 8.1, sm_90): no scalar atomics in any tiled kernel.
// Fragments come from ldmatrix.x4: B fragments two atoms at a time.
// TILED: .version 8.1
// TILED-LABEL: .entry fmha_bwd_tiled_main(
// TILED: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// TILED-DAG: ex2.approx.ftz.f32
// TILED-DAG: red.global.add.v4.f32 [%rd{{[0-9]+}}], {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}};
// TILED-DAG: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// TILED-DAG: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16

// One workgroup per (KV block, kv head, batch); causal, so in one dimension,
// heaviest first (KV block 0 of four (head, batch) pairs, then block 1...).
// TILEDJSON: "ceildiv(Sk,64)*Hkv*B",
// TILEDJSON-NEXT: "1",
// TILEDJSON-NEXT: "1"
// TILEDJSON: "name": "fmha_bwd_tiled_main"
