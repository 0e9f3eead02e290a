// RUN: rocke-run --split-input-file --lowering='%tiled_host' %s | FileCheck %s --implicit-check-not=FAIL
// RUN: rocke-run --split-input-file --lowering='%tiled_mfma_host' %s | FileCheck %s --implicit-check-not=FAIL
//
// Problems with many workgroups at D = 128 crashed the CPU oracle (a
// segfault at the 8 MiB stack): rocke-run's lowering staged each 2-D
// vector transfer of the host atom in a memref.alloca inside the kernels'
// grid loops, one more per workgroup.

// CHECK-LABEL: case 0: bwd f16 B=2 Sq=128 Sk=128 Hq=8 Hkv=8 Dqk=128 Dv=128
// CHECK: case 0: PASS
func.func @attention_bwd(%q: memref<2x128x8x128xf16>, %k: memref<2x128x8x128xf16>,
    %v: memref<2x128x8x128xf16>, %o: memref<2x128x8x128xf16>, %do: memref<2x128x8x128xf16>,
    %lse: memref<2x8x128xf32>, %dq: memref<2x128x8x128xf16>, %dk: memref<2x128x8x128xf16>,
    %dv: memref<2x128x8x128xf16>) {
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv
      {mask = #fmha.mask<causal>}
      : memref<2x128x8x128xf16>, memref<2x128x8x128xf16>, memref<2x128x8x128xf16>,
        memref<2x128x8x128xf16>, memref<2x128x8x128xf16>, stats(memref<2x8x128xf32>)
        -> memref<2x128x8x128xf16>, memref<2x128x8x128xf16>, memref<2x128x8x128xf16>
  return
}

// -----

// CHECK-LABEL: case 1: fwd bf16 B=2 Sq=100 Sk=130 Hq=16 Hkv=4 Dqk=128 Dv=128
// CHECK: case 1: PASS
func.func @fwd(%q: memref<2x100x16x128xbf16>, %k: memref<2x130x4x128xbf16>, %v: memref<2x130x4x128xbf16>, %o: memref<2x100x16x128xbf16>, %lse: memref<2x16x100xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) {mask = #fmha.mask<causal>}
    : memref<2x100x16x128xbf16>, memref<2x130x4x128xbf16>, memref<2x130x4x128xbf16> -> memref<2x100x16x128xbf16>, stats(memref<2x16x100xf32>)
  return
}
