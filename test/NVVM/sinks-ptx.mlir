// Attention sinks (issue 33) through fmha-bwd-nvvm on sm_90: the forward
// takes the sinks as a kernel argument; the backward adds
// fmha_bwd_sink_grad between the preprocess and the main kernel, one warp
// per head summing exp2(sink log2 e - c) * delta over the row records and
// meeting in a butterfly (a fixed order: no atomics).
// RUN: rocke-opt %s -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-nvvm{chip=sm_90},fmha-dump-binary{output=%t.ptx})'
// RUN: FileCheck %s --implicit-check-not=__nv_ --implicit-check-not=call.uni < %t.ptx

// CHECK-LABEL: .entry fmha_fwd_tiled_main(
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CHECK-LABEL: .entry fmha_bwd_preprocess(
// CHECK-LABEL: .entry fmha_bwd_sink_grad(
// CHECK-NOT: atom
// CHECK: ex2.approx.ftz.f32
// CHECK-COUNT-5: shfl.sync.bfly.b32
// CHECK-NOT: atom
// CHECK: st.global.b32
// CHECK-NOT: atom
// CHECK-LABEL: .entry fmha_bwd_tiled_main(
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
