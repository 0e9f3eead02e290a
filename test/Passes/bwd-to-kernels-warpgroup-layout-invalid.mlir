// warpgroup-layout / fwd-warpgroup-layout (how the operands of warpgroup
// products lie in workgroup memory) asked for where it cannot hold, or where
// the kernel has no warpgroup products to lay out, is a diagnostic; auto
// takes 128-byte swizzled rows where the head dims fill them, else core
// matrices.
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='chip=sm_90a forward=true fwd-warpgroup-layout=swizzle-128b' 2>&1 | FileCheck %s --check-prefix=FWD-ROWS
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='chip=sm_90a forward=true fwd-warpgroup-mma=off fwd-warpgroup-layout=core-matrices' 2>&1 | FileCheck %s --check-prefix=FWD-UNUSED
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='chip=sm_90a strategy=tiled warpgroup-layout=swizzle-128b' 2>&1 | FileCheck %s --check-prefix=BWD-ROWS
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='chip=sm_90 strategy=tiled warpgroup-layout=swizzle-128b' 2>&1 | FileCheck %s --check-prefix=BWD-UNUSED
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='chip=gfx942 forward=true fwd-warpgroup-layout=swizzle-128b' 2>&1 | FileCheck %s --check-prefix=AMD
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='chip=sm_90a fwd-warpgroup-layout=swizzle-128b' 2>&1 | FileCheck %s --check-prefix=NOFWD
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='chip=sm_90a warpgroup-layout=swizzled' 2>&1 | FileCheck %s --check-prefix=BADVALUE
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='chip=sm_90a strategy=warp warpgroup-layout=core-matrices' 2>&1 | FileCheck %s --check-prefix=WARP
// auto: swizzled rows at D = 128, core matrices at D = 96 (one and a half
// 128-byte rows), forward and backward.
// RUN: rocke-opt %s -split-input-file -fmha-bwd-to-kernels='chip=sm_90a forward=true' | FileCheck %s --check-prefix=AUTO

// FWD-ROWS: error: 'fmha.attention_fwd' op fwd-warpgroup-layout=swizzle-128b needs head dims in whole 128-byte rows (multiples of 64 elements), got 96 96
// FWD-UNUSED: error: 'fmha.attention_fwd' op fwd-warpgroup-layout lays out the operands of warpgroup products, which this kernel does not use
// BWD-ROWS: error: 'fmha.attention_bwd' op warpgroup-layout=swizzle-128b needs head dims in whole 128-byte rows (multiples of 64 elements), got 96 96
// BWD-UNUSED: error: 'fmha.attention_bwd' op warpgroup-layout lays out the operands of warpgroup products, which this kernel does not use
// AMD: error: 'fmha.attention_fwd' op fwd-warpgroup-layout lays out the operands of warpgroup products, which this kernel does not use
// NOFWD: error: fmha-bwd-to-kernels: fwd-warpgroup-layout is an option of the forward; without forward=true the pass lowers none
// BADVALUE: for the --warpgroup-layout option: Cannot find option named 'swizzled'!
// WARP: error: fmha-bwd-to-kernels: warpgroup-layout is an option of strategy=tiled; strategy=warp has no use for it

// AUTO-LABEL: gpu.func @fmha_fwd_tiled_main
// AUTO: fmha.tile_mma_warpgroup {{.*}}memref<16x12x8x8xbf16
// AUTO-LABEL: gpu.func @fmha_bwd_tiled_main
// AUTO: fmha.tile_mma_warpgroup {{.*}}memref<16x12x8x8xbf16
// AUTO-LABEL: gpu.func @fmha_fwd_tiled_main
// AUTO: fmha.tile_mma_warpgroup {{.*}}memref<16x2x8x64xbf16
// AUTO-LABEL: gpu.func @fmha_bwd_tiled_main
// AUTO: fmha.tile_mma_warpgroup {{.*}}memref<16x2x8x64xbf16

func.func @bf16_d96(%q: memref<?x?x4x96xbf16>, %o: memref<?x?x4x96xbf16>, %lse: memref<?x4x?xf32>,
                    %do: memref<?x?x4x96xbf16>, %dq: memref<?x?x4x96xbf16>,
    %dk: memref<?x?x4x96xbf16>, %dv: memref<?x?x4x96xbf16>) {
  fmha.attention_fwd %q, %q, %q -> %o, stats(%lse) {mask = #fmha.mask<causal>}
      : memref<?x?x4x96xbf16>, memref<?x?x4x96xbf16>, memref<?x?x4x96xbf16> -> memref<?x?x4x96xbf16>, stats(memref<?x4x?xf32>)
  fmha.attention_bwd %q, %q, %q, %o, %do, stats(%lse) -> %dq, %dk, %dv {mask = #fmha.mask<causal>}
      : memref<?x?x4x96xbf16>, memref<?x?x4x96xbf16>, memref<?x?x4x96xbf16>, memref<?x?x4x96xbf16>, memref<?x?x4x96xbf16>, stats(memref<?x4x?xf32>) -> memref<?x?x4x96xbf16>, memref<?x?x4x96xbf16>, memref<?x?x4x96xbf16>
  return
}

// -----

func.func @bf16_d128(%q: memref<?x?x4x128xbf16>, %o: memref<?x?x4x128xbf16>, %lse: memref<?x4x?xf32>,
                     %do: memref<?x?x4x128xbf16>, %dq: memref<?x?x4x128xbf16>,
    %dk: memref<?x?x4x128xbf16>, %dv: memref<?x?x4x128xbf16>) {
  fmha.attention_fwd %q, %q, %q -> %o, stats(%lse) {mask = #fmha.mask<causal>}
      : memref<?x?x4x128xbf16>, memref<?x?x4x128xbf16>, memref<?x?x4x128xbf16> -> memref<?x?x4x128xbf16>, stats(memref<?x4x?xf32>)
  fmha.attention_bwd %q, %q, %q, %o, %do, stats(%lse) -> %dq, %dk, %dv {mask = #fmha.mask<causal>}
      : memref<?x?x4x128xbf16>, memref<?x?x4x128xbf16>, memref<?x?x4x128xbf16>, memref<?x?x4x128xbf16>, memref<?x?x4x128xbf16>, stats(memref<?x4x?xf32>) -> memref<?x?x4x128xbf16>, memref<?x?x4x128xbf16>, memref<?x?x4x128xbf16>
  return
}
