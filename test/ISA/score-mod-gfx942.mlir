// A softcap backward (issue 33) through fmha-bwd-rocdl on gfx942: the
// region's tanh is exp2 arithmetic (v_exp_f32, no __ocml_ call: no
// s_swappc) and an approximate f32 division (v_rcp_f32, not the exact
// v_div_scale / v_div_fmas / v_div_fixup sequence); the MFMA main loop is
// kept, without scratch.
// RUN: rocke-opt %s -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-rocdl{chip=gfx942},fmha-dump-binary{output=%t.hsaco})'
// RUN: llvm-objdump -d --mcpu=gfx942 %t.hsaco | FileCheck %s --implicit-check-not=s_swappc --implicit-check-not=v_div_fixup_f32
// RUN: llvm-readelf --notes %t.hsaco | FileCheck %s --check-prefix=NOTES
// CHECK-LABEL: <fmha_bwd_tiled_main>:
// CHECK-DAG: v_mfma_f32_16x16x16_bf16
// CHECK-DAG: v_exp_f32
// CHECK-DAG: v_rcp_f32
// CHECK: s_endpgm
// NOTES: .name: fmha_bwd_tiled_main
// NOTES: .private_segment_fixed_size: 0
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
