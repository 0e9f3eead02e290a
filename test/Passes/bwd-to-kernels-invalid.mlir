// RUN: rocke-opt %s -split-input-file -verify-diagnostics -fmha-bwd-to-kernels='strategy=warp'
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='strategy=bogus' 2>&1 | FileCheck %s --check-prefix=STRATEGY
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='target=fpga' 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='strategy=warp subgroup-size=48' 2>&1 | FileCheck %s --check-prefix=POW2
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='strategy=warp block-q=-1' 2>&1 | FileCheck %s --check-prefix=BLOCK
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='strategy=warp index-bitwidth=16' 2>&1 | FileCheck %s --check-prefix=INDEX
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='strategy=warp matrix-atom=mfma_f32_16x16x16_f16' 2>&1 | FileCheck %s --check-prefix=ATOM
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='strategy=warp block-q=32' 2>&1 | FileCheck %s --check-prefix=TILEDQ
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='strategy=warp chip=gfx942 warpgroup-mma=on' 2>&1 | FileCheck %s --check-prefix=TILEDWG
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='chip=gfx1100 chip=gfx942' 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='strategy=warp block-q=0 strategy=tiled' 2>&1 | FileCheck %s --check-prefix=TWICE-STRATEGY

// STRATEGY: for the --strategy option: Cannot find option named 'bogus'!
// TARGET: for the --target option: Cannot find option named 'fpga'!
// POW2: subgroup-size must be a power of two, got 48
// BLOCK: block-q must be positive or 0 (auto), got -1
// INDEX: index-bitwidth must be 32 or 64, got 16
// ATOM: strategy=warp uses no matrix atoms; matrix-atom must be 'auto', got 'mfma_f32_16x16x16_f16'
// The tiled strategy's options are errors with the warp strategy, which
// would drop them.
// TILEDQ: error: fmha-bwd-to-kernels: block-q is an option of strategy=tiled; strategy=warp has no use for it
// TILEDWG: error: fmha-bwd-to-kernels: warpgroup-mma is an option of strategy=tiled; strategy=warp has no use for it
// An option given twice is an error (MLIR's option parser kept the last).
// TWICE: error: fmha-bwd-to-kernels: option 'chip' is given twice; give each option once
// TWICE-STRATEGY: error: fmha-bwd-to-kernels: option 'strategy' is given twice

// Head dim 96 does not split over 64 lanes.
func.func @head_dim(%q: memref<1x16x2x96xf16>, %lse: memref<1x2x16xf32>,
    %dq: memref<1x16x2x96xf16>, %dk: memref<1x16x2x96xf16>, %dv: memref<1x16x2x96xf16>) {
  // expected-error @below {{strategy=warp splits the head dims over the 64 lanes of a subgroup; the qk head dim 96 is not a multiple of it}}
  fmha.attention_bwd %q, %q, %q, %q, %q, stats(%lse) -> %dq, %dk, %dv
      : memref<1x16x2x96xf16>, memref<1x16x2x96xf16>, memref<1x16x2x96xf16>,
        memref<1x16x2x96xf16>, memref<1x16x2x96xf16>, stats(memref<1x2x16xf32>)
        -> memref<1x16x2x96xf16>, memref<1x16x2x96xf16>, memref<1x16x2x96xf16>
  return
}

// -----

func.func @v_head_dim(%q: memref<1x16x2x64xf16>, %v: memref<1x16x2x96xf16>, %lse: memref<1x2x16xf32>,
    %dq: memref<1x16x2x64xf16>, %dk: memref<1x16x2x64xf16>, %dv: memref<1x16x2x96xf16>) {
  // expected-error @below {{the v head dim 96 is not a multiple of it}}
  fmha.attention_bwd %q, %q, %v, %v, %v, stats(%lse) -> %dq, %dk, %dv
      : memref<1x16x2x64xf16>, memref<1x16x2x64xf16>, memref<1x16x2x96xf16>,
        memref<1x16x2x96xf16>, memref<1x16x2x96xf16>, stats(memref<1x2x16xf32>)
        -> memref<1x16x2x64xf16>, memref<1x16x2x64xf16>, memref<1x16x2x96xf16>
  return
}
