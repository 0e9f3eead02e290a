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
// The backward's dQ product reads each warpgroup's share of K's columns: at
// D = 64 and block-q = 64 the two warpgroups take 32 columns each, half a
// swizzled row: auto takes core matrices, swizzle-128b is a diagnostic.
// RUN: rocke-opt %s -split-input-file -fmha-bwd-to-kernels='chip=sm_90a strategy=tiled block-q=64' | FileCheck %s --check-prefix=SHARE-AUTO
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='chip=sm_90a strategy=tiled block-q=64 block-kv=128 num-warps=8 warpgroup-layout=swizzle-128b' 2>&1 | FileCheck %s --check-prefix=SHARE

// FWD-ROWS: error: 'fmha.attention_fwd' op fwd-warpgroup-layout=swizzle-128b needs head dims in whole 128-byte rows (multiples of 64 elements), got 96 96
// FWD-UNUSED: error: 'fmha.attention_fwd' op fwd-warpgroup-layout lays out the operands of warpgroup products, which this kernel does not use
// BWD-ROWS: error: 'fmha.attention_bwd' op warpgroup-layout=swizzle-128b needs head dims in whole 128-byte rows (multiples of 64 elements), got 96 96
// BWD-UNUSED: error: 'fmha.attention_bwd' op warpgroup-layout lays out the operands of warpgroup products, which this kernel does not use
// AMD: error: 'fmha.attention_fwd' op fwd-warpgroup-layout lays out the operands of warpgroup products, which this kernel does not use
// NOFWD: error: fmha-bwd-to-kernels: fwd-warpgroup-layout is an option of the forward; without forward=true the pass lowers none
// BADVALUE: for the --warpgroup-layout option: Cannot find option named 'swizzled'!
// WARP: error: fmha-bwd-to-kernels: warpgroup-layout is an option of strategy=tiled; strategy=warp has no use for it
// SHARE: error: 'fmha.attention_bwd' op warpgroup-layout=swizzle-128b: each warpgroup's 32 columns of dQ (Dqk 64 over 2 warpgroups a 64-row block of block-q 64) are not whole 128-byte rows of 64 elements; raise block-q or use warpgroup-layout=core-matrices

// SHARE-AUTO-COUNT-2: // -----
// SHARE-AUTO: gpu.func @fmha_bwd_tiled_main
// SHARE-AUTO: fmha.tile_mma_warpgroup {{.*}}memref<8x8x8x8xbf16

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

// -----

func.func @bf16_d64(%q: memref<?x?x4x64xbf16>, %o: memref<?x?x4x64xbf16>, %lse: memref<?x4x?xf32>,
                    %do: memref<?x?x4x64xbf16>, %dq: memref<?x?x4x64xbf16>,
    %dk: memref<?x?x4x64xbf16>, %dv: memref<?x?x4x64xbf16>) {
  fmha.attention_bwd %q, %q, %q, %o, %do, stats(%lse) -> %dq, %dk, %dv {mask = #fmha.mask<causal>}
      : memref<?x?x4x64xbf16>, memref<?x?x4x64xbf16>, memref<?x?x4x64xbf16>, memref<?x?x4x64xbf16>, memref<?x?x4x64xbf16>, stats(memref<?x4x?xf32>) -> memref<?x?x4x64xbf16>, memref<?x?x4x64xbf16>, memref<?x?x4x64xbf16>
  return
}
