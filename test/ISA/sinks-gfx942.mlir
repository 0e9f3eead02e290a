// Attention sinks (issue 33) through fmha-bwd-rocdl on gfx942: the sink
// gradient kernel (one wave per head, exp2 as v_exp_f32, a swizzle
// reduction, one store: no atomics, no __ocml_ call) between the
// preprocess and the main kernel, and the forward with the sinks, without
// scratch.
// RUN: rocke-opt %s -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-rocdl{chip=gfx942},fmha-dump-binary{output=%t.hsaco})'
// RUN: llvm-objdump -d --mcpu=gfx942 %t.hsaco | FileCheck %s --implicit-check-not=s_swappc --implicit-check-not=scratch_
// RUN: llvm-readelf --notes %t.hsaco | FileCheck %s --check-prefix=NOTES
// CHECK-LABEL: <fmha_fwd_tiled_main>:
// CHECK: v_mfma_f32_32x32x8_bf16
// CHECK-LABEL: <fmha_bwd_preprocess>:
// CHECK-LABEL: <fmha_bwd_sink_grad>:
// CHECK-NOT: global_atomic
// CHECK: v_exp_f32
// CHECK-NOT: global_atomic
// CHECK: ds_swizzle_b32
// CHECK-NOT: global_atomic
// CHECK: global_store_dword
// CHECK-NOT: global_atomic
// CHECK: s_endpgm
// CHECK-LABEL: <fmha_bwd_tiled_main>:
// NOTES: .name: fmha_fwd_tiled_main
// NOTES: .private_segment_fixed_size: 0
// NOTES: .name: fmha_bwd_sink_grad
// NOTES: .private_segment_fixed_size: 0
func.func @sinks_chain(%q: memref<?x?x16x64xbf16>, %k: memref<?x?x4x64xbf16>, %v: memref<?x?x4x64xbf16>,
    %o: memref<?x?x16x64xbf16>, %do: memref<?x?x16x64xbf16>, %lse: memref<?x16x?xf32>,
    %dq: memref<?x?x16x64xbf16>, %dk: memref<?x?x4x64xbf16>, %dv: memref<?x?x4x64xbf16>,
    %sinks: memref<16xf32>, %dsinks: memref<16xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) sinks(%sinks) {mask = #fmha.mask<causal>}
      : memref<?x?x16x64xbf16>, memref<?x?x4x64xbf16>, memref<?x?x4x64xbf16>
        -> memref<?x?x16x64xbf16>, stats(memref<?x16x?xf32>) sinks(memref<16xf32>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) sinks(%sinks) -> %dq, %dk, %dv grad_sinks(%dsinks) {mask = #fmha.mask<causal>}
      : memref<?x?x16x64xbf16>, memref<?x?x4x64xbf16>, memref<?x?x4x64xbf16>, memref<?x?x16x64xbf16>,
        memref<?x?x16x64xbf16>, stats(memref<?x16x?xf32>) sinks(memref<16xf32>)
        -> memref<?x?x16x64xbf16>, memref<?x?x4x64xbf16>, memref<?x?x4x64xbf16> grad_sinks(memref<16xf32>)
  return
}
