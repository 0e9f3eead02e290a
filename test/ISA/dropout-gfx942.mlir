// Dropout (issue 33) through fmha-bwd-rocdl on gfx942: Philox4x32-10 per
// score as v_mul_hi_u32 / v_mul_lo_u32 and xors in the forward and the
// backward main kernel, no __ocml_ call, no scratch.
// RUN: rocke-opt %s -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-rocdl{chip=gfx942},fmha-dump-binary{output=%t.hsaco})'
// RUN: llvm-objdump -d --mcpu=gfx942 %t.hsaco | FileCheck %s --implicit-check-not=s_swappc --implicit-check-not=scratch_
// RUN: llvm-readelf --notes %t.hsaco | FileCheck %s --check-prefix=NOTES
// CHECK-LABEL: <fmha_fwd_tiled_main>:
// CHECK: v_mul_hi_u32
// CHECK: v_xor
// CHECK: v_mfma_f32_32x32x8_bf16
// CHECK-LABEL: <fmha_bwd_preprocess>:
// CHECK-LABEL: <fmha_bwd_tiled_main>:
// CHECK: v_mul_hi_u32
// CHECK: v_xor
// NOTES: .name: fmha_fwd_tiled_main
// NOTES: .private_segment_fixed_size: 0
// NOTES: .name: fmha_bwd_tiled_main
// NOTES: .private_segment_fixed_size: 0
func.func @dropout_chain(%q: memref<?x?x16x64xbf16>, %k: memref<?x?x4x64xbf16>, %v: memref<?x?x4x64xbf16>,
    %o: memref<?x?x16x64xbf16>, %do: memref<?x?x16x64xbf16>, %lse: memref<?x16x?xf32>,
    %dq: memref<?x?x16x64xbf16>, %dk: memref<?x?x4x64xbf16>, %dv: memref<?x?x4x64xbf16>,
    %so: memref<2xi64>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) dropout(%so, p = 0.1) {mask = #fmha.mask<causal>}
      : memref<?x?x16x64xbf16>, memref<?x?x4x64xbf16>, memref<?x?x4x64xbf16>
        -> memref<?x?x16x64xbf16>, stats(memref<?x16x?xf32>) dropout(memref<2xi64>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) dropout(%so, p = 0.1) -> %dq, %dk, %dv {mask = #fmha.mask<causal>}
      : memref<?x?x16x64xbf16>, memref<?x?x4x64xbf16>, memref<?x?x4x64xbf16>, memref<?x?x16x64xbf16>,
        memref<?x?x16x64xbf16>, stats(memref<?x16x?xf32>) dropout(memref<2xi64>)
        -> memref<?x?x16x64xbf16>, memref<?x?x4x64xbf16>, memref<?x?x4x64xbf16>
  return
}
