// Dropout (issue 33) through fmha-bwd-nvvm on sm_90a: the forward and the
// backward main kernel take {seed, offset} as an argument of role
// dropout_seed_offset (the sidecar) and compute Philox4x32-10 per score:
// mul.hi.u32 (the arith.mului_extended products) and xors, no library
// call.
// RUN: rocke-opt %s -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-nvvm{chip=sm_90a},fmha-dump-binary{output=%t.ptx})'
// RUN: FileCheck %s --implicit-check-not=__nv_ --implicit-check-not=call.uni < %t.ptx
// RUN: FileCheck %s --check-prefix=ABI < %t.ptx.json

// CHECK-LABEL: .entry fmha_fwd_tiled_main(
// CHECK: mul.hi.u32
// CHECK: xor.b32
// CHECK: wgmma.mma_async
// CHECK-LABEL: .entry fmha_bwd_preprocess(
// CHECK-LABEL: .entry fmha_bwd_tiled_main(
// CHECK: wgmma.mma_async
// CHECK: mul.hi.u32
// CHECK: xor.b32
// ABI: "name": "dropout_seed_offset"
// ABI: "name": "fmha_fwd_tiled_main"
// ABI: "name": "dropout_seed_offset"
// ABI: "name": "fmha_bwd_tiled_main"
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
