// An additive bias (issue 33) through fmha-bwd-rocdl on gfx942: an f32 bias
// per batch and head (no broadcast) in a deterministic backward. The bias
// elements are loaded where the score registers are (one global_load_dword
// per score, forward and backward); each (b, h, q, k) is computed by one
// workgroup, so dBias = dS' leaves by one global_store_dword per score,
// with no atomics and (no mask skips a block) no zero-fill; no scratch, no
// device-library call.
// RUN: rocke-opt %s -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-rocdl{chip=gfx942},fmha-dump-binary{output=%t.hsaco})'
// RUN: llvm-objdump -d --mcpu=gfx942 %t.hsaco | FileCheck %s --implicit-check-not=s_swappc --implicit-check-not=scratch_ --implicit-check-not=fmha_bwd_zero_dbias
// CHECK-LABEL: <fmha_fwd_tiled_main>:
// CHECK: v_mfma_f32_32x32x8_f16
// CHECK-COUNT-64: global_load_dword v
// CHECK-LABEL: <fmha_bwd_zero_dq>:
// CHECK-LABEL: <fmha_bwd_preprocess>:
// CHECK-LABEL: <fmha_bwd_tiled_main>:
// CHECK-NOT: global_atomic
// CHECK-COUNT-64: global_store_dword v
// CHECK-NOT: global_atomic
// CHECK-LABEL: <fmha_bwd_reduce_dq>:
func.func @bias_chain(%q: memref<?x?x8x64xf16>, %k: memref<?x?x8x64xf16>, %v: memref<?x?x8x64xf16>,
    %o: memref<?x?x8x64xf16>, %do: memref<?x?x8x64xf16>, %lse: memref<?x8x?xf32>,
    %dq: memref<?x?x8x64xf16>, %dk: memref<?x?x8x64xf16>, %dv: memref<?x?x8x64xf16>,
    %bias: memref<?x8x?x?xf32>, %dbias: memref<?x8x?x?xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) bias(%bias)
      : memref<?x?x8x64xf16>, memref<?x?x8x64xf16>, memref<?x?x8x64xf16>
        -> memref<?x?x8x64xf16>, stats(memref<?x8x?xf32>) bias(memref<?x8x?x?xf32>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) bias(%bias) -> %dq, %dk, %dv grad_bias(%dbias) {deterministic}
      : memref<?x?x8x64xf16>, memref<?x?x8x64xf16>, memref<?x?x8x64xf16>, memref<?x?x8x64xf16>,
        memref<?x?x8x64xf16>, stats(memref<?x8x?xf32>) bias(memref<?x8x?x?xf32>)
        -> memref<?x?x8x64xf16>, memref<?x?x8x64xf16>, memref<?x?x8x64xf16> grad_bias(memref<?x8x?x?xf32>)
  return
}
