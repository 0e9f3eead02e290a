// An additive bias (issue 33) through fmha-bwd-nvvm on sm_90a: a bf16 bias
// broadcast over the heads, its elements loaded where the score registers
// are (one ld.global.b16 + cvt.f32.bf16 per score, forward and backward), and dBias = dS' added by one atom.global.add.f32 per score
// into grad_bias, which fmha_bwd_zero_dbias zero-fills first; dQ keeps its
// vector reductions, forward and backward their warpgroup products.
// RUN: rocke-opt %s -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-nvvm{chip=sm_90a},fmha-dump-binary{output=%t.ptx})'
// RUN: FileCheck %s --implicit-check-not=__nv_ --implicit-check-not=call.uni < %t.ptx

// CHECK-LABEL: .entry fmha_fwd_tiled_main(
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// CHECK-COUNT-64: cvt.f32.bf16
// CHECK-NOT: atom.global
// CHECK-NOT: .entry fmha_bwd_zero_dq(
// CHECK-LABEL: .entry fmha_bwd_zero_dbias(
// CHECK: st.global.b32
// CHECK-LABEL: .entry fmha_bwd_preprocess(
// CHECK: st.global.v4.b32 [{{.*}}], {0f00000000, 0f00000000, 0f00000000, 0f00000000};
// CHECK-LABEL: .entry fmha_bwd_tiled_main(
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// CHECK-COUNT-64: cvt.f32.bf16
// CHECK: ex2.approx.ftz.f32
// CHECK-COUNT-64: atom.global.add.f32
// CHECK: wgmma.mma_async
// CHECK-LABEL: .entry fmha_bwd_convert_dq(
func.func @bias_chain(%q: memref<?x?x16x64xbf16>, %k: memref<?x?x4x64xbf16>, %v: memref<?x?x4x64xbf16>,
    %o: memref<?x?x16x64xbf16>, %do: memref<?x?x16x64xbf16>, %lse: memref<?x16x?xf32>,
    %dq: memref<?x?x16x64xbf16>, %dk: memref<?x?x4x64xbf16>, %dv: memref<?x?x4x64xbf16>,
    %bias: memref<?x1x?x?xbf16>, %dbias: memref<?x1x?x?xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) bias(%bias) {mask = #fmha.mask<causal>}
      : memref<?x?x16x64xbf16>, memref<?x?x4x64xbf16>, memref<?x?x4x64xbf16>
        -> memref<?x?x16x64xbf16>, stats(memref<?x16x?xf32>) bias(memref<?x1x?x?xbf16>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) bias(%bias) -> %dq, %dk, %dv grad_bias(%dbias) {mask = #fmha.mask<causal>}
      : memref<?x?x16x64xbf16>, memref<?x?x4x64xbf16>, memref<?x?x4x64xbf16>, memref<?x?x16x64xbf16>,
        memref<?x?x16x64xbf16>, stats(memref<?x16x?xf32>) bias(memref<?x1x?x?xbf16>)
        -> memref<?x?x16x64xbf16>, memref<?x?x4x64xbf16>, memref<?x?x4x64xbf16> grad_bias(memref<?x1x?x?xf32>)
  return
}
