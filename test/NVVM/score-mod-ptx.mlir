// A softcap backward (issue 33) through fmha-bwd-nvvm: PTX for sm_90
// (mma.sync) and sm_90a (warpgroup products). The region's tanh is exp2
// arithmetic: one more ex2.approx per score than P's, and an approximate
// f32 division (div.approx.f32; the exact div.rn.f32 expands into a long
// sequence per score); no libdevice call.
// RUN: rocke-opt %s -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-nvvm{chip=sm_90},fmha-dump-binary{output=%t.sm90.ptx})'
// RUN: FileCheck %s --check-prefixes=CHECK,SM90 --implicit-check-not=__nv_ --implicit-check-not=call.uni --implicit-check-not=div.rn.f32 < %t.sm90.ptx
// RUN: rocke-opt %s -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-nvvm{chip=sm_90a},fmha-dump-binary{output=%t.sm90a.ptx})'
// RUN: FileCheck %s --check-prefixes=CHECK,SM90A --implicit-check-not=__nv_ --implicit-check-not=call.uni --implicit-check-not=div.rn.f32 < %t.sm90a.ptx

// CHECK-LABEL: .entry fmha_bwd_tiled_main(
// SM90: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// SM90A: wgmma.mma_async
// CHECK-DAG: ex2.approx.ftz.f32
// CHECK-DAG: div.approx.f32
// CHECK: ret;
func.func @softcap_bwd(%q: memref<?x?x16x64xbf16>, %k: memref<?x?x4x64xbf16>, %v: memref<?x?x4x64xbf16>,
    %o: memref<?x?x16x64xbf16>, %do: memref<?x?x16x64xbf16>, %lse: memref<?x16x?xf32>,
    %dq: memref<?x?x16x64xbf16>, %dk: memref<?x?x4x64xbf16>, %dv: memref<?x?x4x64xbf16>) {
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv {mask = #fmha.mask<causal>}
      : memref<?x?x16x64xbf16>, memref<?x?x4x64xbf16>, memref<?x?x4x64xbf16>, memref<?x?x16x64xbf16>,
        memref<?x?x16x64xbf16>, stats(memref<?x16x?xf32>)
        -> memref<?x?x16x64xbf16>, memref<?x?x4x64xbf16>, memref<?x?x4x64xbf16>
      score_mod softcap(30.0)
  return
}
